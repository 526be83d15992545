"""Rows of overlapping face-up cards found from a zone's picture, and read along their edges."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.perception.classical import felt_colour
from monitor.perception.errors import ModelFileError
from monitor.perception.spread_rows import (
    CARD_MM,
    band_scans,
    find_scans,
    inside_band,
    rectify_maps,
    row_axes,
)
from tests.support.paths import MODELS, TABLE_FILE

FELT = (40, 120, 30)  # BGR green


def _clockwise(q: np.ndarray) -> bool:
    """TL, TR, BR, BL run clockwise on screen (y down): the card order the fan reader cuts by."""
    a = np.asarray(q, np.float64)
    area = sum(a[i, 0] * a[(i + 1) % 4, 1] - a[(i + 1) % 4, 0] * a[i, 1] for i in range(4))
    return area > 0


def _table(cards_mm: list[tuple[float, float]], angle: float = 0.0, paint: bool = False,
           mirrored: bool = False, back: tuple[int, int, int] | None = None) -> tuple[np.ndarray, object]:
    """A 1000 x 600 px picture of felt at 1 px/mm (origin at the centre; y flipped if ``mirrored``)
    with upright cards (centres in mm) drawn white with black rims, later ones on top; optionally an
    orange line of paint touching the row's top edge; ``back``: the cards lie face down, backs of
    that colour (no pips)."""
    img = np.zeros((600, 1000, 3), np.uint8)
    img[:] = FELT
    s = -1.0 if mirrored else 1.0

    def to_image(mm: np.ndarray) -> np.ndarray:
        p = np.asarray(mm, np.float64).reshape(-1, 2)
        return np.column_stack([p[:, 0] + 500, s * p[:, 1] + 300])

    a = np.deg2rad(angle)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    for x, y in cards_mm:
        c = np.array([x, y])
        signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
        q = [c + sx * u * CARD_MM[0] / 2 + sy * v * CARD_MM[1] / 2 for sx, sy in signs]
        pts = np.round(to_image(np.array(q))).astype(np.int32)
        cv2.fillConvexPoly(img, pts, back or (245, 245, 245))
        # a face's edge shows as a dark line on the card beneath; a back's edge as a shade of it
        rim = (60, 60, 60) if back is None else tuple(max(0, v - 25) for v in back)
        cv2.polylines(img, [pts], True, rim, 1)
        if back is None:
            cv2.circle(img, tuple(int(t) for t in to_image(c)[0]), 9, (30, 30, 200), -1)  # a pip
    if paint:
        y = -CARD_MM[1] / 2 - 2
        p = np.round(to_image(np.array([[-40.0, y], [20.0, y]]))).astype(np.int32)
        cv2.line(img, tuple(p[0]), tuple(p[1]), (0, 140, 255), 3)
    return img, to_image


def _scans(img: np.ndarray, to_image, boxes=()):  # type: ignore[no-untyped-def]
    region = (-450.0, -250.0, 450.0, 250.0)
    maps = rectify_maps(to_image, region)
    return find_scans(img, maps, region, to_image, felt_colour(img), boxes)


def test_the_ways_cards_may_lie_across_a_band() -> None:
    assert row_axes(63 + 6 * 30, 88) == [True]  # seven cards along the first axis
    assert row_axes(88, 63 + 6 * 30) == [False]
    assert row_axes(88, 63) == [False]  # one card, standing along the second axis
    assert row_axes(90, 90) == [True, False]  # two cards barely spread: either way
    assert row_axes(150, 150) == []  # no row of cards is square and that big
    assert row_axes(40, 88) == []  # narrower than a card


def test_a_band_is_scanned_from_its_first_card_and_back_from_its_last_turned() -> None:
    (start, shifts), (end, shifts2) = band_scans(np.array([0.0, 0.0]), np.array([1.0, 0.0]), 63 + 4 * 30, 88)
    assert shifts == shifts2 and shifts[0] == pytest.approx(-0.1)
    assert shifts[-1] == pytest.approx(4 * 30 / 63 + 0.1, abs=0.05)
    assert np.allclose(start[0], [-(63 + 120) / 2, -44]) and np.allclose(start[1] - start[0], [63, 0])
    assert np.allclose(end[0], [(63 + 120) / 2, 44]) and np.allclose(end[1] - end[0], [-63, 0])


@pytest.mark.parametrize("mirrored", [False, True])
def test_a_row_of_five_cards_gives_its_two_edge_scans_in_card_order(mirrored: bool) -> None:
    xs = [-60.0 + 30 * k for k in range(5)]
    img, to_image = _table([(x, 0.0) for x in xs], mirrored=mirrored)
    scans = _scans(img, to_image)
    assert len(scans) == 2
    for s in scans:
        assert _clockwise(s.card)
        assert np.linalg.norm(s.card[1] - s.card[0]) == pytest.approx(CARD_MM[0], abs=3)  # top edge: a width
    first_tl = to_image(np.array([[xs[0] - 31.5, -44.0 * (-1 if mirrored else 1)]]))[0]
    tls = [s.card[0] for s in scans]
    assert min(np.linalg.norm(t - first_tl) for t in tls) < 3.0  # the first card's corner, to ~2 mm
    assert max(max(s.shifts) for s in scans) == pytest.approx(120 / 63 + 0.1, abs=0.08)
    assert inside_band(to_image(np.array([[0.0, 0.0]]))[0], scans)
    assert not inside_band(to_image(np.array([[0.0, 150.0]]))[0], scans)


def test_paint_touching_the_row_does_not_move_its_edge() -> None:
    xs = [-60.0 + 30 * k for k in range(5)]
    clean, to_image = _table([(x, 0.0) for x in xs])
    painted, _ = _table([(x, 0.0) for x in xs], paint=True)
    a, b = _scans(clean, to_image), _scans(painted, to_image)
    assert len(a) == len(b) == 2
    for p, q in zip(a, b, strict=True):
        assert np.abs(p.card - q.card).max() < 2.5


@pytest.mark.parametrize("back", [(236, 238, 240), (160, 60, 20)], ids=["pale", "blue"])
def test_a_row_of_backs_is_not_read(back: tuple[int, int, int]) -> None:
    """A hand set face down: no index to read (the held-out deck's pale back passed for faces)."""
    img, to_image = _table([(-60.0 + 30 * k, 0.0) for k in range(5)], back=back)
    assert _scans(img, to_image) == []


def test_a_turned_row_is_found_along_its_own_axis() -> None:
    a = 30.0
    u = np.array([np.cos(np.deg2rad(a)), np.sin(np.deg2rad(a))])
    img, to_image = _table([tuple(u * (30 * k - 60)) for k in range(5)], angle=a)
    scans = _scans(img, to_image)
    assert len(scans) == 2
    top = scans[0].card[1] - scans[0].card[0]
    cos = abs(np.dot(top, u)) / np.linalg.norm(top)
    assert cos > 0.99  # the scan runs along the row


def test_a_pair_spread_clearly_lies_across_its_side_nearer_a_card_length() -> None:
    img, to_image = _table([(-20.0, 0.0), (20.0, 0.0)])  # 103 x 88 mm: may lie either way
    assert row_axes(103, 88) == [True, False]
    scans = _scans(img, to_image)
    assert len(scans) == 2 and all(abs(s.card[1] - s.card[0])[0] > 60 for s in scans)


def test_a_nearly_square_pair_takes_its_way_from_the_boxes_on_it_or_is_left() -> None:
    img, to_image = _table([(-12.0, 0.0), (12.0, 0.0)])  # 87 x 88 mm: either way
    assert _scans(img, to_image) == []
    upright = to_image(np.array([[-43.5, -44.0], [19.5, -44.0], [19.5, 44.0], [-43.5, 44.0]]))
    scans = _scans(img, to_image, [upright])
    assert len(scans) == 2
    assert all(np.linalg.norm(s.card[1] - s.card[0]) == pytest.approx(63, abs=3) for s in scans)
    assert all(abs(s.card[1] - s.card[0])[0] > 60 for s in scans)  # along x: cards upright, spread in x
    sideways = to_image(np.array([[-44.0, -31.5], [44.0, -31.5], [44.0, 31.5], [-44.0, 31.5]]))
    assert _scans(img, to_image, [upright, sideways]) == []  # boxes that disagree say nothing


def test_the_reader_file_names_how_rows_are_read(tmp_path: Path) -> None:
    from monitor.perception.fan_reader import FanReader

    for f in ("fan_index.onnx", "fan_index.json"):
        (tmp_path / f).symlink_to(MODELS / f)
    cfg = json.loads((MODELS / "fan_reader.json").read_text())
    cfg.pop("box_member", None)
    cfg.pop("box_thresholds", None)
    (tmp_path / "fan_reader.json").write_text(json.dumps(cfg | {"spread_rows": "first"}))
    assert FanReader(tmp_path / "fan_reader.json").spread_rows == "first"
    (tmp_path / "fan_reader.json").write_text(json.dumps(cfg | {"spread_rows": "sometimes"}))
    with pytest.raises(ModelFileError, match="spread_rows must be one of off, add, first, not 'sometimes'"):
        FanReader(tmp_path / "fan_reader.json")
    (tmp_path / "fan_reader.json").write_text(json.dumps(cfg | {"spread_zones": ["banker", "pile"]}))
    with pytest.raises(ModelFileError, match=r"spread_zones may name banker, front, back, not \['pile'\]"):
        FanReader(tmp_path / "fan_reader.json")
    (tmp_path / "fan_reader.json").write_text(json.dumps(cfg | {"row_agree": 1.5}))
    with pytest.raises(ModelFileError, match=r"row_agree must lie in \[0, 1\)"):
        FanReader(tmp_path / "fan_reader.json")


@pytest.mark.slow
def test_the_shipped_reader_reads_a_rendered_banker_row_card_for_card() -> None:
    """Seven cards set in the banker's place (project-drawn deck, default table at 1080p): read along
    the row's edges, every card is found once and nothing is misread."""
    from monitor.calibration.table_file import load_table
    from monitor.lab.fan_check import rank_of
    from monitor.perception.fan_reader import load_fan_reader
    from monitor.perception.pipeline import Perceiver
    from monitor.pipeline.hand_zones import ZoneReader, fan_cards
    from monitor.render.camera import default_camera
    from monitor.render.renderer import Renderer
    from monitor.render.scene import CardObj, Scene

    scene = Scene(table_style="green")
    back, front = ["4h", "9h", "8s", "As", "4c"], ["Th", "Tc"]
    for k, c in enumerate(back):
        scene.add(CardObj(c, -150 + 36 * k, -195, face_up=True, z=0.1 * k))
    for k, c in enumerate(front):
        scene.add(CardObj(c, 110 + 36 * k, -195, face_up=True, z=0.1 * k))
    img = Renderer().render(scene, default_camera(1920, 1080)).image
    cal = load_table(TABLE_FILE)
    boxes = fan_cards(Perceiver.from_models(MODELS, threads=1).perceive(img))
    fan = load_fan_reader(MODELS, threads=1)
    assert fan is not None
    fan.spread_rows = "first"
    cards = ZoneReader(cal, fan).read(img, "banker", boxes)
    truth = back + front
    assert len(cards) == len(truth)  # one read a card: no index read twice, no pip taken for one
    row = sorted(cards, key=lambda c: c.x)
    for c, t in zip(row, truth, strict=True):
        assert c.card in (None, t) and c.rank in (None, rank_of(t))
    assert sum(c.card is not None or c.rank is not None for c in row) >= 6


def test_a_picture_the_row_finder_cannot_take_leaves_the_zone_to_the_boxes(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The live chain goes on: a row finder's error is logged and the zone read from the boxes."""
    import logging

    from monitor.calibration.table_file import load_table
    from monitor.perception.fan_reader import load_fan_reader
    from monitor.pipeline import hand_zones

    fan = load_fan_reader(MODELS, threads=1)
    assert fan is not None and fan.spread_rows != "off" and "banker" in fan.spread_zones  # as shipped

    def broken(*args: object, **kwargs: object) -> list[object]:
        raise cv2.error("remap: maps out of range")

    monkeypatch.setattr(hand_zones, "find_scans", broken)
    cal = load_table(TABLE_FILE)
    zr = hand_zones.ZoneReader(cal, fan)
    img = np.zeros((1080, 1920, 3), np.uint8)
    img[:] = FELT
    with caplog.at_level(logging.WARNING, logger="monitor.pipeline.hand_zones"):
        assert zr.read(img, "banker", []) == []
    assert "rows of banker not looked for in this frame: " in caplog.text
