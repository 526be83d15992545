"""Perceiving a camera's frames where they changed: the regions, the detector on a region, the
classical finder on a crop, the identity cache across regions, and the incremental perceiver
against whole-frame perception on the shipped models."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.perception.change_regions import ChangeRegions, Region, merge_overlapping
from monitor.perception.classical import felt_colour, find_card_quads, work_scale
from monitor.perception.detector import Detector
from monitor.perception.identity import Identity
from monitor.perception.identity_cache import IdentityCache
from monitor.perception.incremental import IncrementalPerceiver
from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver
from monitor.perception.yolo_post import crop_input
from tests.support.paths import SAMPLE_RECORDING, TABLE_1080P


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    img = cv2.imread(str(TABLE_1080P))
    assert img is not None
    return img


def _felt_patch(frame: np.ndarray, at: tuple[int, int], size: tuple[int, int]) -> np.ndarray:
    """The frame with a white card-sized rectangle painted at ``at`` (x, y top-left)."""
    out = frame.copy()
    x, y = at
    out[y:y + size[1], x:x + size[0]] = (235, 235, 235)
    return out


def test_first_frame_is_perceived_whole_and_an_unchanged_one_not_at_all(frame: np.ndarray) -> None:
    cr = ChangeRegions()
    assert cr.find(frame) is None
    cr.seen(None)
    assert cr.find(frame.copy()) == []


def test_a_change_gives_one_region_whose_core_holds_it_and_box_adds_the_margin(frame: np.ndarray) -> None:
    cr = ChangeRegions()
    cr.find(frame)
    cr.seen(None)
    changed = _felt_patch(frame, (1300, 800), (50, 70))
    regions = cr.find(changed)
    assert regions is not None and len(regions) == 1
    reg = regions[0]
    assert reg.holds(1325, 835)
    assert not reg.holds(900, 500)
    (cx0, cy0, cx1, cy1), = reg.cores
    assert cx0 <= 1300 and cy0 <= 800 and cx1 >= 1350 and cy1 >= 870
    pad = round(cr.margin * frame.shape[1])
    assert reg.box == (max(0, cx0 - pad), max(0, cy0 - pad), min(1920, cx1 + pad), min(1080, cy1 + pad))
    # once seen there, the place is looked at again while it settles, then no more
    cr.seen(regions)
    for _ in range(cr.settle_frames):
        again = cr.find(changed.copy())
        assert again == regions
        cr.seen(again)
    assert cr.find(changed.copy()) == []


def test_change_over_most_of_the_frame_means_the_whole_frame(frame: np.ndarray) -> None:
    cr = ChangeRegions()
    cr.find(frame)
    cr.seen(None)
    assert cr.find(255 - frame) is None
    # and a frame of another size starts afresh
    assert cr.find(cv2.resize(frame, (1280, 720))) is None


def test_overlapping_regions_merge_and_keep_both_cores() -> None:
    a = Region((0, 0, 100, 100), ((40, 40, 60, 60),))
    b = Region((90, 90, 200, 200), ((130, 130, 150, 150),))
    c = Region((500, 500, 600, 600), ((540, 540, 560, 560),))
    merged = merge_overlapping([a, b, c])
    assert len(merged) == 2
    ab = next(r for r in merged if r.box[0] == 0)
    assert ab.box == (0, 0, 200, 200)
    assert ab.holds(50, 50) and ab.holds(140, 140) and not ab.holds(100, 20)


def test_crop_input_keeps_the_scale_and_pads_to_the_stride() -> None:
    crop = np.zeros((300, 500, 3), np.uint8)
    x, lb = crop_input(crop, 0.2667)
    assert x.shape == (1, 3, 96, 160)
    assert x.dtype == np.float32
    assert lb.scale == pytest.approx(0.2667, rel=0.01)
    assert lb.pad_x == lb.pad_y == 0.0


def test_classical_finder_on_a_crop_finds_what_it_finds_there_in_the_whole_frame(frame: np.ndarray) -> None:
    whole = find_card_quads(frame)
    assert whole
    felt, scale = felt_colour(frame), work_scale(frame.shape[1], frame.shape[0])
    target = whole[0].corners.mean(axis=0)
    x0, y0 = int(target[0]) - 150, int(target[1]) - 150
    x0, y0 = max(0, x0), max(0, y0)
    crop = frame[y0:y0 + 300, x0:x0 + 300]
    offset = np.array([x0, y0], dtype=np.float64)
    found = [q.corners + offset for q in find_card_quads(crop, felt=felt, scale=scale)]
    assert any(np.abs(c.mean(axis=0) - target).max() < 3.0 for c in found)


def test_the_shipped_detector_sees_a_region_as_it_sees_the_whole_frame(frame: np.ndarray) -> None:
    det = Detector(DEFAULT_MODELS / "detector.onnx", backend="onnxruntime")
    assert det.takes_any_size, "models/detector.onnx must be exported with dynamic axes"
    whole = det.detect(frame)
    cards = [b for b in whole if b.kind.startswith("card")]
    assert cards
    target = cards[0].corners.mean(axis=0)
    x, y = int(target[0]), int(target[1])
    region = (max(0, x - 200), max(0, y - 160), min(1920, x + 200), min(1080, y + 160))
    part = det.detect(frame, region)
    centres = [b.corners.mean(axis=0) for b in part if b.kind == cards[0].kind]
    assert centres, "the card found in the whole frame is found in its region"
    assert min(float(np.hypot(*(c - target))) for c in centres) < 4.0
    for b in part:  # in frame coordinates, inside the region
        c = b.corners.mean(axis=0)
        assert region[0] - 1 <= c[0] <= region[2] + 1 and region[1] - 1 <= c[1] <= region[3] + 1


def test_identity_cache_keeps_readings_where_the_frame_was_not_looked_at() -> None:
    cache = IdentityCache()
    crop = np.full((100, 70, 3), 200, np.uint8)
    q1 = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float64)
    q2 = q1 + 500
    ident = Identity("As", 0.99, "As")
    _, matched, thumbs = cache.lookup([q1, q2], [crop, crop])
    cache.store([q1, q2], thumbs, [ident, ident], matched)
    # a region around the first card only: the second card's reading stays
    found, matched, thumbs = cache.lookup([q1], [crop])
    cache.store([q1], thumbs, [found[0] or ident], matched, keep=lambda x, y: x > 100)
    again, _, _ = cache.lookup([q2], [crop])
    assert again[0] is not None and again[0].label == "As"
    # without ``keep`` a frame's store forgets the cards it did not see
    cache.store([q1], thumbs, [ident], [None])
    gone, _, _ = cache.lookup([q2], [crop])
    assert gone[0] is None


@pytest.fixture(scope="module")
def perceiver() -> Perceiver:
    return Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", video=True)


def test_incremental_perceiver_reuses_still_frames_and_finds_a_new_card(frame: np.ndarray,
                                                                        perceiver: Perceiver) -> None:
    inc = IncrementalPerceiver(perceiver, refresh_every=10)
    first = inc.perceive(frame)
    assert inc.full == 1 and first.cards
    same = inc.perceive(frame.copy())
    assert inc.reused == 1
    assert same.items == first.items
    # a card appears on empty felt: only its region is perceived, the rest stands
    felt_spot = (1500, 950)
    assert not any(abs(d.center[0] - 1525) < 80 and abs(d.center[1] - 985) < 80 for d in first.items)
    changed = _felt_patch(frame, felt_spot, (52, 72))
    after = inc.perceive(changed)
    assert inc.partial == 1
    # read again while the place settles, then left alone
    for _ in range(inc.regions.settle_frames):
        assert inc.perceive(changed).items == after.items
    assert inc.partial == 1 + inc.regions.settle_frames
    inc.perceive(changed)
    assert inc.reused == 2
    assert "region_share" in after.timings_ms and after.timings_ms["region_share"] < 0.1
    new = [d for d in after.cards if abs(d.center[0] - 1526) < 20 and abs(d.center[1] - 986) < 20]
    assert new, "the new card is found in its region"
    far = [d for d in first.items if abs(d.center[0] - 1526) > 300 or abs(d.center[1] - 986) > 300]
    assert all(d in after.items for d in far), "objects far from the change are kept as they were"
    # ``refresh_every`` frames after the last whole one, the whole frame is perceived again
    for _ in range(10 - 6):
        inc.perceive(changed)
    assert inc.full == 2


def test_incremental_perceiver_rejects_a_bad_refresh(perceiver: Perceiver) -> None:
    with pytest.raises(ValueError, match="refresh_every"):
        IncrementalPerceiver(perceiver, refresh_every=0)


def test_bench_perception_on_a_video_compares_both_ways_and_counts_what_each_found(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app

    video = SAMPLE_RECORDING / "video.mp4"
    out = tmp_path / "bench.json"
    res = CliRunner().invoke(app, ["bench-perception", "--video", str(video), "--frames", "12",
                                   "--backend", "onnxruntime", "--out", str(out)])
    assert res.exit_code == 0, res.output
    import json

    data = json.loads(out.read_text())
    whole, regions = data["runs"]
    assert (whole["mode"], regions["mode"]) == ("whole frames", "changed regions")
    assert whole["frames"] == regions["frames"] == 12
    assert whole["whole"] == 12 and regions["whole"] + regions["regions"] + regions["reused"] == 12
    assert regions["whole"] >= 1  # the first frame is always perceived whole
    assert data["ratio"] > 0


def test_bench_perception_reports_a_video_it_cannot_read(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app

    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all")
    res = CliRunner().invoke(app, ["bench-perception", "--video", str(bad)])
    assert res.exit_code == 2
    assert "broken.mp4" in res.output


def test_an_object_seen_again_where_it_was_and_read_the_same_keeps_its_detection() -> None:
    from monitor.perception.detections import Detection, corners_from_array
    from monitor.perception.incremental import keep_steady

    def chip(x: float, den: int, conf: float = 0.9) -> Detection:
        sq = np.array([[x, 100], [x + 40, 100], [x + 40, 140], [x, 140]], np.float64)
        return Detection("chip", conf, corners_from_array(sq), denomination=den, count=1)

    old = (chip(100, 5), chip(300, 25))
    again = (chip(101.5, 5, 0.8), chip(300, 100), chip(600, 5))
    out = keep_steady(again, old)
    assert out[0] is old[0]  # a pixel off, read the same: the same detection as before
    assert out[1] is again[1]  # read differently: the new reading stands
    assert out[2] is again[2]  # nothing there before
    # two new boxes on one old object: only one of them takes it
    twice = keep_steady((chip(100.5, 5), chip(101, 5)), old)
    assert sum(d is old[0] for d in twice) == 1
    # hands always take the new box
    square = np.array([[0, 0], [50, 0], [50, 50], [0, 50]], float)
    hand_old = Detection("hand", 0.9, corners_from_array(square))
    hand_new = Detection("hand", 0.8, corners_from_array(square + np.array([1.0, 0.0])))
    assert keep_steady((hand_new,), (hand_old,))[0] is hand_new
    # and so do face-up cards (a fan's index corners are cut from the box: the newest box is the truest)
    card = np.array([[0, 0], [45, 0], [45, 63], [0, 63]], float)
    up_old = Detection("card_face_up", 0.9, corners_from_array(card))
    up_new = Detection("card_face_up", 0.8, corners_from_array(card + np.array([2.0, 0.0])))
    assert keep_steady((up_new,), (up_old,))[0] is up_new
    down_old = Detection("card_face_down", 0.9, corners_from_array(card))
    down_new = Detection("card_face_down", 0.8, corners_from_array(card + np.array([2.0, 0.0])))
    assert keep_steady((down_new,), (down_old,))[0] is down_old
