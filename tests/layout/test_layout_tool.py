"""The layout tool: a layout made from measurements and from clicked points, its file read back, its
drawing and its explanation; a table without the optional zones; bad measurements named by key."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import yaml
from typer.testing import CliRunner

from monitor.cli import app
from monitor.geometry import LayoutError, default_layout, load_layout
from monitor.geometry.layout_write import layout_data, save_layout
from monitor.layout.draw import picture, zone_fill
from monitor.layout.explain import explain
from monitor.layout.measurements import make_layout
from tests.support.paths import ROOT

EXAMPLE = ROOT / "calibration" / "example-measurements.yaml"
CLICKED = ROOT / "calibration" / "example-clicked.yaml"
DEFAULT = default_layout()


def default_measurements() -> dict[str, Any]:
    """The shipped seven-seat table as a room would measure it."""
    return {
        "name": "paigow-7-seat", "description": DEFAULT.description,
        "table": {"outline": [list(p) for p in DEFAULT.outline.points]},
        "dealer": [0, -620],
        "tray": {"center": [0, -330], "size": [600, 110]},
        "banker_place": {"center": [0, -195], "size": [440, 120]},
        "dice_area": {"center": [-560, -200], "size": [240, 170]},
        "center_area": {"center": [0, -40], "size": [960, 170]},
        "piles": {"count": 7, "row": {"center": [0, -40], "spacing": 125, "size": [115, 140]}},
        "stub": {"center": [560, -200], "size": [150, 170]},
        "seats": {"count": 7, "fan": {
            "center": [0, -1000], "spacing_deg": 10.5, "betting_circle": {"distance": 1560, "radius": 75},
            "back_hand": {"distance": 1390, "size": [220, 130]},
            "front_hand": {"distance": 1230, "size": [150, 120]}, "player": {"distance": 1960}}},
    }


def example() -> dict[str, Any]:
    return dict(yaml.safe_load(EXAMPLE.read_text()))


def grid(lay: Any, n: int = 300) -> np.ndarray:
    x0, y0, x1, y1 = lay.bounds
    gx, gy = np.meshgrid(np.linspace(x0, x1, n), np.linspace(y0, y1, n * 2 // 3))
    return np.column_stack([gx.ravel(), gy.ravel()])


def test_measurements_of_the_default_table_make_the_default_layout() -> None:
    made = make_layout(default_measurements())
    assert {z.name for z in made.zones} == {z.name for z in DEFAULT.zones}
    for z in DEFAULT.zones:
        off = np.hypot(*np.subtract(made.zone(z.name).shape.center, z.shape.center))
        # the shipped file rounds to whole millimetres; a seat's own felt ends at the rail when made
        assert off < (10.0 if z.kind == "seat" else 0.6), z.name
    pts = grid(DEFAULT)
    assert np.mean(np.array(made.zones_at(pts)) == np.array(DEFAULT.zones_at(pts))) > 0.995
    seat1 = made.seat(1)
    assert seat1.position[0] < 0 and abs(seat1.position[0] + 1024) < 1  # seat 1 at the dealer's left


def test_the_example_room_has_no_tray_banker_or_dice_and_says_so() -> None:
    lay = make_layout(example(), str(EXAMPLE))
    assert lay.absent == ("center", "banker", "tray", "dice")
    assert lay.tray is None and lay.banker_place is None and lay.dice is None
    assert len(lay.zones) == 7 * 4 + 7 + 1
    for name in ("seat1.bet", "seat4.front", "seat7.back", "pile1", "pile7", "stub"):
        assert lay.zone_at(*lay.zone(name).shape.center) == name
    with pytest.raises(KeyError, match="the dice area is not on this table"):
        lay.zone("dice")
    # where the dealer rolls and sets the banker's hand, by the pile row (the renderer draws them there)
    assert lay.zone_at(*lay.spot("dice")) == "felt" and lay.zone_at(*lay.spot("banker")) == "felt"


def test_clicked_points_make_the_zones_that_were_clicked() -> None:
    lay = make_layout(yaml.safe_load(CLICKED.read_text()), str(CLICKED))
    for name in ("pile1", "pile4", "pile7", "stub", "banker", "dice", "tray"):
        off = np.hypot(*np.subtract(lay.zone(name).shape.center, DEFAULT.zone(name).shape.center))
        assert off < 1.0, name  # the picture's pixels are the default camera's view of the default table
    assert lay.absent == ("center",)
    assert lay.zone_at(-815, 330) == "seat1.bet"


def test_a_made_layout_reads_back_from_its_file(tmp_path: Path) -> None:
    for lay in (make_layout(example()), make_layout(yaml.safe_load(CLICKED.read_text())), DEFAULT):
        again = load_layout(save_layout(lay, tmp_path / f"{lay.name}.yaml"))
        assert again == lay and again.zones == lay.zones and again.absent == lay.absent
    assert "tray" not in yaml.safe_load((tmp_path / "riverside-6ft.yaml").read_text())["dealer"]


def test_the_drawing_fills_and_labels_every_zone() -> None:
    for lay in (DEFAULT, make_layout(example())):
        pic = picture(lay, px_per_mm=0.3)
        assert pic.image.ndim == 3 and pic.image.shape[0] > pic.zone_of_pixel.shape[0]  # the legend below
        names = list(lay.zone_names)
        for z in lay.zones:
            spot = pic.labels[z.name]
            assert spot is not None, z.name  # no zone of these tables is wholly covered by others
            assert names[pic.zone_of_pixel[spot[1], spot[0]]] == z.name  # the label sits on its own zone
        table = pic.image[: pic.zone_of_pixel.shape[0]]
        for kind in {z.kind for z in lay.zones}:
            fill = np.array(zone_fill(kind), np.uint8)
            assert (table == fill).all(axis=2).sum() > 50, kind  # each kind's colour is on the picture


def test_explain_names_every_zone_and_what_the_table_lacks() -> None:
    lay = make_layout(example())
    text = explain(lay)
    named = {line.split()[0] for line in text if line.startswith("  ") and not line.startswith("   ")}
    assert {z.name for z in lay.zones} | {"felt", "off_table"} <= named
    lacks = text[text.index("not on this table:") + 1:]
    assert [line.split()[0] for line in lacks] == ["center", "banker", "tray", "dice"]
    assert any("the smallest zone wins" in line for line in text)
    assert any("a pile resting here is delivered to seat 3" in line for line in text)
    full = explain(DEFAULT)
    assert full[-1] == "  (nothing: every optional zone is there)"


def _set(path: str, value: Any) -> Any:
    def mutate(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for p in parents:
            d = d[p]
        if value is KeyError:
            del d[last]
        else:
            d[last] = value
    return mutate


@pytest.mark.parametrize(("mutate", "expected"), [
    (_set("seats.count", 6), "seats.count: 6 is not allowed: the monitor judges Pai Gow tables of 7 seats"),
    (_set("seats.fan.betting_circle.radius", -5),
     "seats.fan.betting_circle.radius: must be a positive number"),
    (_set("seats.fan.front_hand", KeyError), "seats.fan.front_hand: required, but missing"),
    (_set("piles.row.spacing", 50), "piles.row.spacing: 50 mm is less than a slot's width"),
    (_set("stub", {"center": [3000, 0], "size": [150, 170]}),
     "stub: the stub spot centre (3000, 0) is off the table"),
    (_set("stub", {"clicked": [[1, 2], [3, 4], [5, 9]]}), "stub.clicked[0]: a clicked pixel needs a picture"),
    (_set("stub", {"center": [560, -200]}), "stub: must be one shape"),
    (_set("table", {"kidney": {"width": 2100}}), "table.kidney.depth: required, but missing"),
    (_set("table", {"kidney": {"width": 2100, "depth": 1200}, "rectangle": {}}),
     "table: must give exactly one of"),
    (_set("colour", "green"), "colour: unknown key"),
    (_set("name", ""), "name: must be a non-empty string"),
    (_set("seats.fan.betting_circle.distance", 3000),
     "seats.fan.betting_circle: seat 1's betting circle centre"),
    (_set("rules", {"zone_priority": ["bet", "hands"]}),
     "rules.zone_priority[1]: 'hands' is not a zone kind"),
    (_set("rules", {"delivered_pile": "anywhere"}), "rules.delivered_pile: 'anywhere' is not allowed"),
])
def test_bad_measurements_are_named_by_key(mutate: Any, expected: str) -> None:
    data = example()
    mutate(data)
    with pytest.raises(LayoutError) as info:
        make_layout(data, "room.yaml")
    assert "room.yaml" in str(info.value)
    assert expected in str(info.value)
    assert info.value.problems and all(p.field for p in info.value.problems)


def test_a_misclicked_picture_point_is_named() -> None:
    data = yaml.safe_load(CLICKED.read_text())
    data["picture"]["points"][3]["pixel"] = [990, 850]  # the dealer's rail middle, misclicked ~60 mm off
    with pytest.raises(LayoutError, match=r"picture\.points\[3\]: is \d+ mm from the fit of the others"):
        make_layout(data)


def test_all_problems_are_listed_at_once() -> None:
    data = example()
    data["seats"]["count"] = 8
    data["piles"]["row"]["size"] = [0, 10]
    data["stub"] = None
    with pytest.raises(LayoutError) as info:
        make_layout(data)
    fields = [p.field for p in info.value.problems]
    assert {"seats.count", "piles.row.size", "stub"} <= set(fields)


def test_the_layout_command_makes_draws_and_explains(tmp_path: Path) -> None:
    runner = CliRunner()
    out, png = tmp_path / "room.yaml", tmp_path / "room.png"
    r = runner.invoke(app, ["layout", "make", "--from", str(EXAMPLE), "--out", str(out), "--draw", str(png)])
    assert r.exit_code == 0, r.output
    assert "not on this table: center, banker, tray, dice" in r.output
    assert load_layout(out).name == "riverside-6ft"
    img = cv2.imread(str(png))
    assert img is not None and img.shape[1] > 600
    r = runner.invoke(app, ["layout", "explain", str(out)])
    assert r.exit_code == 0 and "seat7.front" in r.output and "not on this table:" in r.output
    r = runner.invoke(app, ["layout", "draw", "--out", str(tmp_path / "default.png"), "--px-per-mm", "0.2"])
    assert r.exit_code == 0 and (tmp_path / "default.png").is_file()
    bad = copy.deepcopy(example())
    bad["seats"]["fan"]["spacing_deg"] = "wide"
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    r = runner.invoke(app, ["layout", "make", "--from", str(tmp_path / "bad.yaml"), "--out", str(out)])
    assert r.exit_code == 2 and "seats.fan.spacing_deg: must be a positive number" in r.output


def test_a_layout_file_error_names_the_field(tmp_path: Path) -> None:
    data = layout_data(DEFAULT)
    data["seats"][2]["back_hand"] = {"rect": {"center": [0, 0], "size": [220, -1]}}
    del data["center"]["stub"]
    (tmp_path / "l.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(LayoutError) as info:
        load_layout(tmp_path / "l.yaml")
    fields = {p.field for p in info.value.problems}
    assert {"seats[2].back_hand.rect.size[1]", "center.stub"} <= fields
