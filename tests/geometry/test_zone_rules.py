"""The zone rules: the default is the smallest-zone-wins lookup every table had; a zone priority changes
which zone a point falls in, the same in the layout, the table file made from it and the review's
raster; the delivered-pile rule; a table without the optional zones all the way downstream."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from monitor.calibration import CalibrationError, from_layout, load_table
from monitor.calibration.fitting import FitError, parse_point
from monitor.calibration.markers import DEFAULT_PLACES, MarkerSet
from monitor.calibration.zones import absent_zones, delivery_seat
from monitor.cli import app
from monitor.geometry import LayoutError, TableLayout, default_layout, load_layout, parse_layout
from monitor.geometry.layout_write import layout_data, save_layout
from monitor.geometry.zone_rules import DEFAULT_RULES, DeliveredPile, ZoneRules, parse_zone_rules
from monitor.layout.measurements import make_layout
from monitor.render.table_art import TABLE_STYLES, render_table_texture
from monitor.review.zones import RasterCalibration
from tests.support.paths import ROOT, TABLE_FILE

DEFAULT = default_layout()
H = np.array([[1.2, 0.05, -1300.0], [0.02, -1.3, 800.0], [1e-6, 2e-5, 1.0]])
# points of the default table where two zones overlap: a hand area in its seat's felt, a pile slot in
# the centre area
FRONT4 = (0.0, 230.0)
PILE4 = (0.0, -40.0)


def with_rules(**rules: object) -> TableLayout:
    data = layout_data(DEFAULT)
    data["rules"] = rules
    return parse_layout(data, "ruled.yaml")


def test_the_default_rules_are_smallest_first_as_before() -> None:
    assert DEFAULT.rules == DEFAULT_RULES and DEFAULT.rules.smallest_wins
    by_area = sorted(DEFAULT.zones, key=lambda z: z.shape.area)
    assert [z.name for z in DEFAULT.zones] == [z.name for z in by_area]
    assert DEFAULT.zone_at(*FRONT4) == "seat4.front" and DEFAULT.zone_at(*PILE4) == "pile4"
    cal = load_table(TABLE_FILE)
    assert cal.zone_rules == DEFAULT_RULES
    by_area_file = sorted(cal.zones.items(), key=lambda kv: kv[1].area)
    assert [n for n, _ in cal.ordered_zones] == [n for n, _ in by_area_file]


def test_a_zone_priority_changes_which_zone_a_point_is_in() -> None:
    lay = with_rules(zone_priority=["seat", "center"])
    assert lay.zone_at(*FRONT4) == "seat4"  # the seat's felt now wins over its front hand area
    assert lay.zone_at(*PILE4) == "center"
    assert lay.zone_at(-815, 330) == "seat1"  # the betting circle lies inside seat 1's felt too
    assert lay.zone_at(*lay.zone("stub").shape.center) == "stub"  # no overlap: nothing changes
    within = with_rules(zone_priority=["bet"])  # kinds not named: after, smallest first
    assert within.zone_at(*FRONT4) == "seat4.front" and within.zone_at(*PILE4) == "pile4"


def test_the_priority_reaches_the_table_file_and_the_review_raster(tmp_path: Path) -> None:
    lay = with_rules(zone_priority=["seat", "center"], delivered_pile="seat_or_hands")
    cal = from_layout(lay, H, (1920, 1080))
    assert cal.zone_rules == lay.rules
    again = load_table(cal.save(tmp_path / "t.yaml"))
    assert again.zone_rules == lay.rules
    assert yaml.safe_load((tmp_path / "t.yaml").read_text())["zone_rules"] == {
        "zone_priority": ["seat", "center"], "delivered_pile": "seat_or_hands"}
    raster = RasterCalibration.of(again)
    for cal_ in (again, raster):
        assert cal_.zone_at(*FRONT4) == "seat4" and cal_.zone_at(*PILE4) == "center"
    default_cal = from_layout(DEFAULT, H, (1920, 1080))
    assert "zone_rules" not in default_cal.to_data()  # a default table file is written as before
    assert default_cal.zone_at(*FRONT4) == "seat4.front"
    # the layout's lookup and the table file's agree everywhere but on zone edges
    rng = np.random.default_rng(5)
    pts = rng.uniform([-1200, -570], [1200, 750], size=(3000, 2))
    assert np.mean(np.array(lay.zones_at(pts)) == np.array(again.zones_at(pts))) > 0.99


def test_the_delivered_pile_rule() -> None:
    assert delivery_seat("seat3") == 3 and delivery_seat("seat3.front") is None
    assert delivery_seat("seat3.bet") is None and delivery_seat("pile3") is None
    hands = ZoneRules(delivered_pile=DeliveredPile.HAND_AREAS)
    assert delivery_seat("seat3", hands) is None and delivery_seat("seat3.back", hands) == 3
    both = ZoneRules(delivered_pile=DeliveredPile.SEAT_OR_HANDS)
    zones = ("seat5", "seat5.front", "seat5.back", "seat5.bet")
    assert [delivery_seat(z, both) for z in zones] == [5, 5, 5, None]


@pytest.mark.parametrize(("section", "field"), [
    ("fewest", "rules.zone_priority: must be 'smallest' or a list"),
    (["bet", "bet"], "rules.zone_priority[1]: 'bet' is named twice"),
    ([], "rules.zone_priority: must be 'smallest' or a list"),
])
def test_bad_zone_priorities_are_named(section: object, field: str) -> None:
    rules, problems = parse_zone_rules({"zone_priority": section})
    assert rules is None and field in str(problems[0])
    data = layout_data(DEFAULT)
    data["rules"] = {"zone_priority": section}
    with pytest.raises(LayoutError, match=field.replace("[", r"\[").replace("]", r"\]")):
        parse_layout(data)


def test_a_table_file_with_bad_zone_rules_is_refused_by_field(tmp_path: Path) -> None:
    data = from_layout(DEFAULT, H, (1920, 1080)).to_data()
    data["zone_rules"] = {"zone_priority": ["seat", "hand"], "overlap": "x"}
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(CalibrationError) as info:
        load_table(tmp_path / "t.yaml")
    fields = {p.field for p in info.value.problems}
    assert fields == {"zone_rules.zone_priority[1]", "zone_rules.overlap"}


@pytest.fixture(scope="module")
def room() -> TableLayout:
    return make_layout(yaml.safe_load((ROOT / "calibration" / "example-measurements.yaml").read_text()))


def test_a_table_without_tray_banker_or_dice_goes_all_the_way_downstream(room: TableLayout,
                                                                          tmp_path: Path) -> None:
    lay = load_layout(save_layout(room, tmp_path / "room.yaml"))
    # the table file: made, written, read back and checked, the missing zones "not on this table"
    cal = load_table(from_layout(lay, H, (1920, 1080), table="riverside").save(tmp_path / "room-table.yaml"))
    assert absent_zones(cal.zones) == ("center", "banker", "tray", "dice")
    assert cal.zone_at(*lay.zone("seat2.back").shape.center) == "seat2.back"
    # the marker sheet puts the dice's and the banker's markers on the outer pile slots
    places = [p.zone for p in MarkerSet.for_layout(lay).places]
    assert places == ["seat1.bet", "seat4.bet", "seat7.bet", "pile1", "pile7", "stub"]
    assert [p.zone for p in MarkerSet.for_layout(DEFAULT).places] == list(DEFAULT_PLACES)
    # the renderer's felt prints what the table has, and no banker's place or dice circle
    tex = render_table_texture(lay, TABLE_STYLES["green"], 0.25, seed=1)
    assert tex.image.shape[0] > 100
    # the pipeline's deal layout needs only the pile slots and the stub
    from monitor.pipeline.watchers.view import TableLayout as DealLayout

    deal = DealLayout.of(cal.zones)
    assert sorted(deal.slot_centers) == list(range(1, 8)) and deal.deck_at is not None


def test_check_table_says_what_is_not_on_the_table(room: TableLayout, tmp_path: Path) -> None:
    path = from_layout(room, H, (1920, 1080)).save(tmp_path / "room-table.yaml")
    r = CliRunner().invoke(app, ["check-table", str(path)])
    assert r.exit_code == 0, r.output
    assert "not on this table: center, banker, tray, dice" in r.output


def test_a_layout_lacking_a_zone_is_not_a_crash_where_a_zone_is_named(room: TableLayout) -> None:
    with pytest.raises(FitError, match="dice"):
        parse_point("10,20=dice", room)
    assert dataclasses.replace(DEFAULT, dice=None).absent == ("dice",)
