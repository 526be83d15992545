"""Detections placed on the table and tracked, with synthetic detections made through the default camera."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from monitor.calibration import load_table
from monitor.geometry import Rect, default_layout
from monitor.perception.detections import Detection, Detections, corners_from_array
from monitor.tablestate import place, zone_occupancy
from monitor.tablestate.tracking import ObjectTracker
from tests.support.paths import ROOT, TABLE_FILE

CAL = load_table(TABLE_FILE)
LAYOUT = default_layout()


def card(cx: float, cy: float, kind: str = "card_face_down", angle: float = 0.0, conf: float = 0.9,
         size: tuple[float, float] = (63.0, 88.0), scale: float = 1.0) -> Detection:
    corners_mm = Rect(cx, cy, size[0], size[1], angle).corners()
    return Detection(kind, conf, corners_from_array(CAL.table_to_image(corners_mm) * scale))


def frame(*items: Detection, scale: float = 1.0) -> Detections:
    w, h = CAL.image_size
    return Detections(round(w * scale), round(h * scale), tuple(items))


def test_cards_land_in_their_zones_with_card_size() -> None:
    targets = {"pile3": LAYOUT.zone("pile3"), "seat5.front": LAYOUT.zone("seat5.front"),
               "banker": LAYOUT.zone("banker"), "stub": LAYOUT.zone("stub")}
    dets = [card(*z.shape.center, angle=15.0) for z in targets.values()]
    placed = place(frame(*dets), CAL)
    assert [p.zone for p in placed] == list(targets)
    for p, z in zip(placed, targets.values(), strict=True):
        assert np.allclose(p.center_mm, z.shape.center, atol=0.5)
        assert p.size_mm == pytest.approx((63.0, 88.0), abs=0.5)
        assert p.looks_like_one_card()
    assert place(frame(card(0, 5000)), CAL)[0].zone == "off_table"


def test_a_4k_frame_of_the_same_camera_is_scaled() -> None:
    placed = place(frame(card(-375, -40, scale=2.0), scale=2.0), CAL)
    assert placed[0].zone == "pile1" and placed[0].size_mm == pytest.approx((63, 88), abs=0.5)


def test_occupancy_counts_a_dealt_pile_and_a_spread_is_not_one_card() -> None:
    pile = [card(-125 + i * 0.5, -40 + i * 0.3) for i in range(7)]
    spread = card(0, 390, kind="card_face_up", size=(180, 95))
    placed = place(frame(*pile, spread), CAL)
    occupancy = zone_occupancy(placed)
    assert occupancy["pile3"]["card_face_down"] == 7
    assert occupancy["seat4.back"]["card_face_up"] == 1
    assert not placed[-1].looks_like_one_card()


def test_tracker_keeps_ids_through_motion_and_a_flip() -> None:
    tracker = ObjectTracker(lost_after_s=0.5)
    ids_a, ids_b = set(), set()
    for i in range(12):
        moving = card(-600 + i * 8, 100, kind="card_face_up" if i >= 6 else "card_face_down")
        still = card(375, -40)
        tracked = tracker.update(place(frame(moving, still), CAL), media_time_s=i / 30)
        for t in tracked:
            (ids_a if t.placed.center_mm[0] < 0 else ids_b).add(t.track_id)
    assert len(ids_a) == 1 and len(ids_b) == 1 and ids_a != ids_b


def test_tracker_gives_a_new_id_after_the_object_was_gone() -> None:
    tracker = ObjectTracker(lost_after_s=0.2)
    seen: list[int] = []
    times = [0.0, 1 / 30, 2 / 30, 3 / 30, 2.0, 2 + 1 / 30, 2 + 2 / 30]  # gone for ~2 s in between
    for t in times:
        tracked = tracker.update(place(frame(card(-250, -40)), CAL), media_time_s=t)
        seen += [x.track_id for x in tracked]
    assert len(set(seen)) == 2
    assert tracker.update([], media_time_s=3.0) == []


def test_a_box_scored_below_the_activation_threshold_starts_no_track_unless_the_detector_says() -> None:
    # detector_v8 boxed a pile at a seat 0.37 (the shipped one 0.48): its own track_conf is 0.35
    def tracked(tracker: ObjectTracker) -> int:
        n = 0
        for i in range(6):
            n += len(tracker.update(place(frame(card(-250, -40, conf=0.37)), CAL), media_time_s=i / 15))
        return n

    assert tracked(ObjectTracker(frame_rate=15)) == 0
    assert tracked(ObjectTracker(frame_rate=15, activation_confidence=0.35)) > 0


def test_tracking_does_not_import_torch() -> None:
    # in a fresh interpreter: other tests in the same run may have imported torch themselves
    code = (
        "import sys; from monitor.tablestate.tracking import ObjectTracker; "
        "ObjectTracker().update([], 0.0); import supervision; "
        "print('torch' in sys.modules, 'ultralytics' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_rendered_objects_land_in_their_true_zones() -> None:
    # 192 cards, chips and dice from four frames of `render-round paigow_clean` (default camera), with the
    # zone the renderer knows each one lies in; the full recording agrees at 99.9% (docs/benchmarks.md)
    from monitor.tablestate.truth_check import zone_agreement

    result = zone_agreement(ROOT / "tests" / "fixtures" / "calibration_truth_sample.jsonl", CAL)
    assert sum(result.total.values()) == 192 and set(result.total) == {"card", "chips", "die"}
    assert not result.confusions and result.share() == 1.0


def test_a_hand_seen_for_one_frame_reaches_the_extractor_past_the_tracker() -> None:
    """ByteTrack confirms a track on its second frame; a dealing hand may be over a pile for one."""
    from monitor.pipeline.chain import TableChain
    from monitor.pipeline.extract import EventExtractor
    from monitor.pipeline.watchers.view import TableLayout

    layout = TableLayout.of(CAL.zones)
    chain = TableChain(CAL, EventExtractor("T1", layout=layout), fps=15)
    hand = card(375, -100, kind="hand", size=(80.0, 150.0))
    chain.step(0, 0.0, frame(card(375, -40)))
    chain.step(1, 1 / 15, frame(card(375, -40), hand))
    hands = [o for o in chain.last_seen if o.kind == "hand"]
    assert len(hands) == 1
    assert (hands[0].x, hands[0].y) == (pytest.approx(375, abs=5), pytest.approx(-100, abs=5))
    assert layout.slot_centers[7][0] == pytest.approx(375, abs=30)


def test_zones_asked_together_answer_as_each_polygon_alone() -> None:
    """The zone lookup asks every zone in one pass over their edges (``PolygonSet``): for every point,
    inside or not exactly as each polygon's own ``contains``, and the smallest containing zone wins."""
    from monitor.geometry.shapes import PolygonSet

    rng = np.random.default_rng(3)
    polygons = [poly for _, poly in CAL.ordered_zones]
    vertices = np.array([v for poly in polygons for v in poly.points])
    points = np.concatenate([rng.uniform([-100, -100], [2300, 1400], size=(3000, 2)), vertices])
    together = PolygonSet(polygons).contains(points)
    assert together.shape == (len(points), len(polygons))
    for i, poly in enumerate(polygons):
        assert np.array_equal(together[:, i], poly.contains(points)), CAL.ordered_zones[i][0]
    on_table = CAL.outline.contains(points)
    for point, inside, on, index in zip(points, together, on_table, CAL.zone_index(points), strict=True):
        expected = (len(polygons) + 1 if not on else
                    next((i for i, hit in enumerate(inside) if hit), len(polygons)))
        assert index == expected, point
    assert PolygonSet([]).contains(points[:3]).shape == (3, 0)
