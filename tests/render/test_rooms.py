"""Rounds on other tables: each shipped layout played and rendered (a tiny round), its table file the
one the renderer's camera gives, and a layout or table file that does not fit refused by name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from monitor.calibration import load_table
from monitor.geometry import default_layout, load_layout
from monitor.lab.variations import LAYOUTS
from monitor.render.camera import default_camera
from monitor.render.rounds.play import play_script
from monitor.render.rounds.room import RoomError, camera_for, check_match, load_room, table_for
from monitor.render.rounds.script import parse_script
from monitor.render.rounds.video import RenderOptions, frames
from tests.support.paths import ROOT

SMALL = ROOT / "calibration" / "layouts" / "small-6ft.yaml"
SMALL_TABLE = ROOT / "calibration" / "layouts" / "small-6ft.table.yaml"
CRESCENT_TABLE = ROOT / "calibration" / "layouts" / "crescent.table.yaml"

TINY = {
    "name": "tiny",
    "seed": 3,
    "actions": [
        {"round_start": {"banker_seat": 4}},
        {"bet": {"seat": 2, "dollars": 25}},
        "no_more_bets",
        {"shuffle": {"seed": 5}},
        {"deal": {"cards": 9, "card_time": 0.1}},
        "round_end",
    ],
}


def _room(name: str):
    lay, tab = LAYOUTS[name]
    return load_room(str(ROOT / lay) if lay else None, str(ROOT / tab) if tab else None)


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_a_tiny_round_plays_and_renders_on_each_layout(name: str) -> None:
    room = _room(name)
    rnd = play_script(parse_script(TINY), "tiny.yaml", layout=room.layout, profile=room.profile)
    dealt = [e for e in rnd.events if e["type"] == "card_dealt"]
    assert [e["pile"] for e in dealt] == [1, 2, 3, 4, 5, 6, 7, 7, 6]  # left-right-left (rule 6)
    # every dealt card rests on its pile slot of this layout
    scene, _ = rnd.timeline.scene_at(dealt[-1]["media_time"] + 0.05)
    cards = [o for o in scene.objects if getattr(o, "pile", None) is None and hasattr(o, "key")]
    zones = [room.layout.zone_at(c.x, c.y) for c in cards]
    assert sum(z.startswith("pile") for z in zones) == 9
    opts = RenderOptions("320x180", 10, light="dim")
    frame = next(frames([rnd], opts, only=[int(dealt[-1]["media_time"] * 10) + 1]))
    assert frame.image.shape == (180, 320, 3)
    piled = [o for o in frame.truth["objects"] if o["kind"] == "card" and o["zone"].startswith("pile")]
    assert len(piled) == 9


def test_each_shipped_table_file_is_its_layout_seen_by_the_renderer_camera() -> None:
    ours, default = camera_for(default_layout()), default_camera()
    assert ours.plane_homography().tolist() == default.plane_homography().tolist()
    for lay, tab in LAYOUTS.values():
        if lay is None:
            continue
        layout, table = load_layout(ROOT / lay), load_table(ROOT / tab)
        check_match(layout, table)
        made = table_for(layout)
        assert np.allclose(made.homography, table.homography, atol=1e-9)
        assert sorted(made.zones) == sorted(table.zones)
    # a smaller table is filmed from lower down: its cards look bigger than on the default table
    small = camera_for(load_layout(SMALL))
    assert small.card_width_px() > default_camera().card_width_px() * 1.15


def test_an_unknown_layout_file_is_named() -> None:
    with pytest.raises(RoomError, match=r"round\.yaml: layout: cannot read table layout .*no-such-layout"):
        load_room("calibration/layouts/no-such-layout.yaml", None, "round.yaml")


def test_a_table_file_of_another_layout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RoomError) as e:
        load_room(str(SMALL), str(CRESCENT_TABLE), "round.yaml")
    msg = str(e.value)
    assert "round.yaml: table file" in msg and "crescent.table.yaml" in msg
    assert "layout: 'crescent' is not the layout 'small-6ft'" in msg
    # a table file for a layout, given without that layout: the default was assumed, and it says so
    with pytest.raises(RoomError, match="no layout given: the default layout was assumed"):
        load_room(None, str(SMALL_TABLE), "round.yaml")


def test_a_table_file_whose_zones_or_camera_differ_is_refused(tmp_path: Path) -> None:
    data = yaml.safe_load(SMALL_TABLE.read_text())
    data["zones"]["pile3"] = [[x + 40, y] for x, y in data["zones"]["pile3"]]
    moved = tmp_path / "moved.yaml"
    moved.write_text(yaml.safe_dump(data))
    with pytest.raises(RoomError, match=r"moved.yaml: zones.pile3 lies up to 40 mm from the layout's"):
        load_room(str(SMALL), str(moved), "round.yaml")
    layout = load_layout(SMALL)
    other = replace(load_table(SMALL_TABLE), homography=np.linalg.inv(default_camera().plane_homography()))
    with pytest.raises(RoomError, match="homography: its camera is not the renderer's camera"):
        check_match(layout, other)
