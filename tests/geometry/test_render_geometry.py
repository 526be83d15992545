"""The table layout in millimetres: numbering directions, zone lookup, loader errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import yaml

from monitor.geometry import FELT, OFF_TABLE, LayoutError, Rect, default_layout, load_layout, parse_layout
from monitor.geometry.shapes import Polygon


def test_default_layout_has_seven_seats_and_piles_numbered_from_dealers_left() -> None:
    lay = default_layout()
    assert len(lay.seats) == 7 and len(lay.piles) == 7
    xs = [p.center[0] for p in lay.piles]
    assert xs == sorted(xs), "piles 1..7 run left to right from the dealer's view (+x)"
    # Seat 1 is at the dealer's left (-x) and the numbering runs clockwise seen from above (+y up):
    # the angle of each seat around the table centre decreases.
    angles = [np.arctan2(s.position[1], s.position[0]) for s in lay.seats]
    assert lay.seats[0].position[0] < 0 < lay.seats[6].position[0]
    assert all(a > b for a, b in itertools.pairwise(angles))
    assert lay.dealer_position[1] < lay.bounds[1] < lay.seats[3].position[1] - 1000
    x0, y0, x1, y1 = lay.bounds
    assert 2300 <= x1 - x0 <= 2500 and 1100 <= y1 - y0 <= 1500


@pytest.mark.parametrize(
    ("name"),
    [
        "pile1",
        "pile4",
        "pile7",
        "stub",
        "dice",
        "tray",
        "banker",
        "seat1.bet",
        "seat3.front",
        "seat7.back",
        "seat5.front",
        "seat2.back",
    ],
)
def test_zone_centres_resolve_to_their_own_zone(name: str) -> None:
    lay = default_layout()
    cx, cy = lay.zone(name).shape.center
    assert lay.zone_at(cx, cy) == name


def test_zone_lookup_edges_and_fallbacks() -> None:
    lay = default_layout()
    assert lay.zone_at(5000, 0) == OFF_TABLE
    assert lay.zone_at(0, 100) == FELT  # between the pile row and seat 4's front hand area
    assert lay.zone_at(0, 700) == "seat4"  # seat 4's wedge behind its betting spot
    # Hand areas never overlap one another, and front areas are nearer the centre than back areas.
    for s in lay.seats:
        assert np.hypot(*s.front_hand.center) < np.hypot(*s.back_hand.center) + 200
        f = s.front_hand
        assert isinstance(f, Rect)
        assert set(lay.zones_at(f.corners() * 0.98 + np.array(f.center) * 0.02)) == {f"seat{s.number}.front"}


def test_vectorized_lookup_matches_scalar() -> None:
    lay = default_layout()
    rng = np.random.default_rng(1)
    pts = rng.uniform([-1300, -700], [1300, 800], size=(400, 2))
    names = lay.zones_at(pts)
    assert names == [lay.zone_at(x, y) for x, y in pts]
    assert len(set(names)) > 20


def test_rotated_rect_and_polygon_contain() -> None:
    r = Rect(100, 50, 40, 20, angle_deg=90)  # now 20 wide in x, 40 tall in y
    assert r.contains(np.array([[100, 68], [108, 50]])).tolist() == [True, True]
    assert r.contains(np.array([[115, 50], [100, 75]])).tolist() == [False, False]
    sq = Polygon(((0, 0), (10, 0), (10, 10), (0, 10)))
    assert sq.area == 100 and sq.center == (5.0, 5.0)
    assert sq.contains(np.array([[5, 5], [11, 5]])).tolist() == [True, False]


def test_loader_errors_name_the_problem(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = default_layout().source
    assert "default" in src
    data = yaml.safe_load(
        (__import__("importlib").resources.files("monitor.geometry") / "data/paigow_table.yaml").read_text()
    )
    bad = dict(data)
    bad["seats"] = data["seats"][:6]
    with pytest.raises(LayoutError, match=r"seats: must number 1..7"):
        parse_layout(bad, "t.yaml")
    bad = dict(data)
    bad["dice"] = {"rect": {"center": [0, 0], "size": [-1, 3]}}
    with pytest.raises(LayoutError, match=r"dice\.rect\.size"):
        parse_layout(bad, "t.yaml")
    bad = dict(data)
    bad["dice"] = {"rect": {"center": [9000, 0], "size": [10, 10]}}
    with pytest.raises(LayoutError, match=r"zone dice centre .* outside the table"):
        parse_layout(bad, "t.yaml")
    p = tmp_path / "x.yaml"
    p.write_text("name: [unclosed")
    with pytest.raises(LayoutError, match="not valid YAML"):
        load_layout(p)
    with pytest.raises(LayoutError, match="cannot read"):
        load_layout(tmp_path / "missing.yaml")


def test_zone_lookup_by_boxes_is_the_exhaustive_lookup() -> None:
    """The box prefilter answers as testing every zone, smallest first, would: dense grid + edges."""
    lay = default_layout()
    x0, y0, x1, y1 = lay.bounds
    gx, gy = np.meshgrid(np.linspace(x0 - 50, x1 + 50, 181), np.linspace(y0 - 50, y1 + 50, 113))
    pts = [np.column_stack([gx.ravel(), gy.ravel()])]
    for z in lay.zones:  # points on and just around every zone's outline, and its centre
        o = z.shape.outline(64)
        pts += [o, o * 0.999 + np.array(z.shape.center) * 0.001, o * 1.001 - np.array(z.shape.center) * 0.001]
        pts.append(np.array([z.shape.center]))
    p = np.concatenate(pts)
    want = np.full(len(p), len(lay.zones), np.int64)
    on = lay.outline.contains(p)
    want[~on] = len(lay.zones) + 1
    todo = on.copy()
    for i, z in enumerate(lay.zones):
        hit = todo & z.shape.contains(p)
        want[hit] = i
        todo &= ~hit
    assert np.array_equal(lay.zone_index(p), want)
    assert lay.zone_index(np.zeros((0, 2))).shape == (0,)
