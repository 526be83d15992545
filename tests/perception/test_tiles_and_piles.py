"""Two steps perception takes on photos (not video): a large frame whose cards the detector saw small is
detected again in overlapping tiles, and each pile's top card is read as a card."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from monitor.perception.detector import Box
from monitor.perception.imageio import load_image
from monitor.perception.labels import CARD_FACE_DOWN, CARD_FACE_UP, HAND, PILE
from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver
from monitor.perception.scoring import load_truth, score_frame
from monitor.perception.tiled_detect import (
    EDGE_PX,
    TILE_BELOW_PX,
    card_length_in_input,
    detect_tiled,
    merge_tiled,
    tile_windows,
)
from tests.support.paths import DATA, TABLE_1080P

PILES = DATA / "piles_delivered_1080p.jpg"


def _box(kind: str, conf: float, x: float, y: float, w: float = 60, h: float = 84) -> Box:
    return Box(kind, conf, np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64))


class BlobDetector:
    """A stand-in detector that really looks at what it is given: every white blob is a face-up card,
    cut where the picture ends, as a network sees a card on a tile's edge. Records what it saw."""

    def __init__(self, input_width: int = 512) -> None:
        self.input_width = input_width
        self.seen: list[tuple[int, int]] = []

    def input_scale(self, w: int, h: int) -> float:
        return self.input_width / w

    def passes(self, box: Box) -> bool:
        return box.confidence >= 0.35

    def partition(self, boxes: list[Box]) -> tuple[list[Box], list[Box]]:
        return [b for b in boxes if self.passes(b)], [b for b in boxes if not self.passes(b)]

    def detect(self, frame: npt.NDArray[np.uint8], floor: float | None = None) -> list[Box]:
        """Grey blobs are cards it is unsure of (scored 0.3: under its threshold, 0.35)."""
        self.seen.append((frame.shape[1], frame.shape[0]))
        mask = (frame[..., 0] > 128).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        boxes = [_box(CARD_FACE_UP, 0.9 if frame[..., 0][labels == i].mean() > 200 else 0.3,
                      float(x), float(y), float(w - 1), float(h - 1))
                 for i, (x, y, w, h, _a) in enumerate(stats[1:n], start=1)]
        return [b for b in boxes if self.passes(b) or (floor is not None and b.confidence >= floor)]


def _cards_frame(width: int, height: int, card: tuple[int, int],
                 at: list[tuple[int, int]]) -> npt.NDArray[np.uint8]:
    img = np.zeros((height, width, 3), np.uint8)
    for x, y in at:
        img[y:y + card[1], x:x + card[0]] = 255
    return img


def test_tiles_overlap_by_more_than_a_card_and_cover_the_frame() -> None:
    wins = tile_windows(3840, 2160)
    assert len(wins) == 4
    cover = np.zeros((2160, 3840), bool)
    for x0, y0, x1, y1 in wins:
        cover[y0:y1, x0:x1] = True
        assert 0.55 < (x1 - x0) / 3840 < 0.6 and 0.55 < (y1 - y0) / 2160 < 0.6
    assert cover.all()
    # the seams' overlap holds a whole card at 4K (a card ~150-230 px long there)
    assert wins[0][2] - wins[1][0] >= 240 and wins[0][3] - wins[2][1] >= 240


def test_each_card_of_a_large_frame_is_found_once_whole_wherever_the_seams_fall() -> None:
    """Cards lying across both seams and at the frame's edges: each found once, with its whole outline
    in frame pixels; the parts a tile's edge cut off are dropped for the tile that holds it whole."""
    at = [(100, 100), (1880, 200), (900, 1030), (1890, 1040), (3710, 1990), (2600, 1500)]
    card = (120, 168)  # 16 x 22 px in a 512-wide input: cards seen small, so the frame is tiled
    frame = _cards_frame(3840, 2160, card, at)
    det = BlobDetector()
    boxes = detect_tiled(det, frame)  # type: ignore[arg-type]
    assert len(det.seen) == 5  # the whole frame, then four tiles
    assert len(boxes) == len(at)
    for x, y in at:
        hits = [b for b in boxes if abs(b.corners[0, 0] - x) <= 1 and abs(b.corners[0, 1] - y) <= 1]
        assert len(hits) == 1, (x, y)
        size = np.ptp(hits[0].corners, axis=0)
        assert abs(size[0] - (card[0] - 1)) <= 1 and abs(size[1] - (card[1] - 1)) <= 1


def test_low_boxes_come_with_a_floor_merged_apart_from_those_that_pass() -> None:
    """Grey cards the detector is unsure of, one across a seam: with a floor each comes once, whole, and
    the boxes that pass are those found without it."""
    card = (120, 168)
    frame = _cards_frame(3840, 2160, card, [(100, 100), (1890, 1040)])
    frame[200:368, 1870:1990] = 150  # across the vertical seam
    frame[300:468, 3000:3120] = 150
    det = BlobDetector()
    plain = detect_tiled(det, frame)  # type: ignore[arg-type]
    floored = detect_tiled(det, frame, floor=0.25)  # type: ignore[arg-type]
    passing = [b for b in floored if det.passes(b)]
    assert [b.corners.tolist() for b in passing] == [b.corners.tolist() for b in plain]
    low = [b for b in floored if not det.passes(b)]
    assert sorted(b.corners[0].tolist() for b in low) == [[1870, 200], [3000, 300]]
    assert all(np.ptp(b.corners, axis=0).tolist() == [card[0] - 1, card[1] - 1] for b in low)


def test_small_frames_and_cards_seen_large_are_not_tiled() -> None:
    det = BlobDetector()
    detect_tiled(det, _cards_frame(1920, 1080, (60, 84), [(500, 500)]))  # type: ignore[arg-type]
    big = (int(TILE_BELOW_PX * 3840 / 512) + 40, 400)  # over TILE_BELOW_PX long in the input
    detect_tiled(det, _cards_frame(3840, 2160, big, [(500, 500)]))  # type: ignore[arg-type]
    assert det.seen == [(1920, 1080), (3840, 2160)]
    assert card_length_in_input([], 0.1) is None
    assert card_length_in_input([_box(PILE, 0.9, 0, 0, 300, 300)], 0.1) is None  # only cards count


def test_merged_boxes_keep_the_surest_tile_box_and_what_only_the_whole_frame_saw() -> None:
    whole = [_box(CARD_FACE_DOWN, 0.95, 100, 100),  # the same card as the tiles' face-up boxes
             _box(HAND, 0.6, 0, 0, 800, 500),  # an arm: only the whole frame sees it whole
             _box(CARD_FACE_UP, 0.5, 1000, 1000)]  # seen by no tile
    tiled = [_box(CARD_FACE_UP, 0.7, 102, 101), _box(CARD_FACE_UP, 0.9, 101, 100),
             _box(PILE, 0.8, 100, 100)]  # a pile is not a card: kept beside the card's box
    out = merge_tiled(whole, tiled)
    kinds = sorted((b.kind, b.confidence) for b in out)
    assert kinds == [(CARD_FACE_UP, 0.5), (CARD_FACE_UP, 0.9), (HAND, 0.6), (PILE, 0.8)]
    assert EDGE_PX < 10


@pytest.fixture(scope="module")
def photo() -> Perceiver:
    return Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime")


def test_video_neither_tiles_nor_reads_pile_tops_and_photos_do(photo: Perceiver) -> None:
    video = Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", video=True)
    assert (video.tiles, video.pile_tops, video.snap_edges) == (False, False, False)
    assert (photo.tiles, photo.pile_tops, photo.snap_edges) == (True, True, True)


def test_the_piles_top_cards_are_found_and_read_as_backs(photo: Perceiver) -> None:
    """The committed frame of three delivered piles and the stub: the detector boxes them as piles,
    and only the pile tops make their top cards found (measured: recall 0 -> 1.0, no misread)."""
    frame, truth = load_image(PILES), load_truth(PILES.with_suffix(".json"))
    scores = {}
    try:
        for tops in (False, True):
            photo.pile_tops = tops
            dets = photo.perceive(frame)
            scores[tops] = score_frame(dets, truth).summary()
    finally:
        photo.pile_tops = True
    assert scores[True]["unoccluded_cards"] == 3
    assert scores[False]["recall"] == 0.0 and scores[True]["recall"] == 1.0
    from_piles = [d for d in dets.cards if d.source == "pile"]
    assert from_piles and all(d.kind == CARD_FACE_DOWN for d in from_piles)
    assert any(d.identity == "back" for d in from_piles)
    assert len([d for d in dets.items if d.kind == PILE]) >= 3  # the piles are still reported as piles


def test_a_4k_frame_is_tiled_with_the_shipped_models_and_keeps_its_figures(photo: Perceiver) -> None:
    """The table frame at twice its size (a 4K camera over the same view: cards ~20 px long in the
    detector's input, so tiled): it finds and names at least what the 1080p frame does, misreads none."""
    small = load_image(TABLE_1080P)
    big = cv2.resize(small, (small.shape[1] * 2, small.shape[0] * 2), interpolation=cv2.INTER_CUBIC)
    truth = load_truth(TABLE_1080P.with_suffix(".json"))
    for o in truth:
        o["polygon"] = (np.asarray(o["polygon"]) * 2).tolist()
    scores = {}
    try:
        for tiles in (False, True):
            photo.tiles = tiles
            scores[tiles] = score_frame(photo.perceive(big), truth).summary()
    finally:
        photo.tiles = True
    assert scores[True]["recall"] >= max(0.95, scores[False]["recall"])
    assert scores[True]["false_identity"] == 0.0
    named = {t: s["identity_top1"] * s["face_up_found"] for t, s in scores.items()}
    assert named[True] >= named[False]


def test_detect_command_turns_the_photo_steps_off_on_request() -> None:
    import json

    from typer.testing import CliRunner

    from monitor.cli import app

    runs = {}
    for extra in ([], ["--no-pile-tops", "--no-tiles"]):
        res = CliRunner().invoke(app, ["detect", str(PILES), "--json", "--backend", "onnxruntime", *extra])
        assert res.exit_code == 0, res.output
        runs[bool(extra)] = json.loads(res.output)[0]["detections"]
    assert any(d.get("source") == "pile" for d in runs[False])
    assert not any(d.get("source") == "pile" for d in runs[True])
