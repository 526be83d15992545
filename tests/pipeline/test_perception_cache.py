"""Recorded perception: replayed on a re-run of the same recording and models, never across them."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from monitor.perception.detections import Detection, Detections
from monitor.pipeline.perception_cache import CachedPerception, fingerprint

IMAGE = np.zeros((4, 4, 3), np.uint8)


class CountingPerception:
    label = "models: fake"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def see(self, index: int, image: np.ndarray) -> tuple[Detections, tuple[str, ...] | None]:
        self.calls.append(index)
        card = Detection("card_face_up", 0.9, ((index, 0.0), (10.0, 0.0), (10.0, 14.0), (0.0, 14.0)),
                         identity="As", identity_confidence=0.97)
        chip = Detection("chip", 0.8, ((20.0, 20.0), (30.0, 20.0), (30.0, 30.0), (20.0, 30.0)),
                         denomination=5, count=3)
        return Detections(1920, 1080, (card, chip), {"detect": 1.5}), None


@pytest.fixture
def video(tmp_path: Path) -> Path:
    v = tmp_path / "round.mp4"
    v.write_bytes(b"not really a video, but a file with a size and a time")
    return v


def test_a_second_run_replays_without_perceiving(tmp_path: Path, video: Path) -> None:
    path = tmp_path / "cache" / "round.jsonl"
    first = CountingPerception()
    cache = CachedPerception(first, path, fingerprint(video, None))
    seen = [cache.see(i, IMAGE)[0] for i in range(5)]
    cache.close()
    assert first.calls == [0, 1, 2, 3, 4]

    second = CountingPerception()
    replay = CachedPerception(second, path, fingerprint(video, None))
    again = [replay.see(i, IMAGE)[0] for i in range(6)]
    replay.close()
    assert second.calls == [5]  # only the frame never perceived
    assert replay.hits == 5
    for a, b in zip(seen, again, strict=False):
        assert [d.to_dict() for d in a.items] == [d.to_dict() for d in b.items]
    assert again[2].items[0].identity == "As" and again[2].items[1].count == 3


def test_another_recording_or_other_models_start_afresh(tmp_path: Path, video: Path) -> None:
    path = tmp_path / "round.jsonl"
    cache = CachedPerception(CountingPerception(), path, fingerprint(video, None))
    cache.see(0, IMAGE)
    cache.close()
    models = tmp_path / "models"
    models.mkdir()
    (models / "detector.onnx").write_bytes(b"weights")
    inner = CountingPerception()
    other = CachedPerception(inner, path, fingerprint(video, models))
    other.see(0, IMAGE)
    other.close()
    assert inner.calls == [0] and other.hits == 0


def test_the_same_models_touched_or_copied_keep_the_cache(tmp_path: Path, video: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / "detector.onnx").write_bytes(b"weights")
    before = fingerprint(video, models)
    os.utime(models / "detector.onnx", ns=(1, 1))  # a fresh checkout: same bytes, another time
    assert fingerprint(video, models) == before
    (models / "detector.onnx").write_bytes(b"weightz")  # retrained: same size, other bytes
    assert fingerprint(video, models) != before


def test_a_detector_threshold_changed_is_another_perception(tmp_path: Path, video: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / "detector.onnx").write_bytes(b"weights")
    (models / "detector.json").write_text('{"class_conf": {"card_face_up": 0.35}}')
    before = fingerprint(video, models)
    (models / "detector.json").write_text('{"class_conf": {"card_face_up": 0.25}}')  # more boxes reported
    assert fingerprint(video, models) != before


def test_a_torn_line_ends_what_is_trusted(tmp_path: Path, video: Path) -> None:
    path = tmp_path / "round.jsonl"
    cache = CachedPerception(CountingPerception(), path, fingerprint(video, None))
    for i in range(4):
        cache.see(i, IMAGE)
    cache.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    # a review killed while writing frame 2: half a line, then frame 3
    path.write_text("\n".join([*lines[:3], lines[3][:25], lines[4]]) + "\n", encoding="utf-8")
    inner = CountingPerception()
    replay = CachedPerception(inner, path, fingerprint(video, None))
    for i in range(4):
        replay.see(i, IMAGE)
    replay.close()
    assert inner.calls == [2, 3]


def test_a_malformed_detections_record_says_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="not a detections record"):
        Detections.from_dict({"width": 10, "height": 10})
    with pytest.raises(ValueError, match="4 finite"):
        Detections.from_dict({"width": 10, "height": 10,
                              "detections": [{"kind": "chip", "confidence": 0.5, "corners": [[0, 0]]}]})


def test_every_member_the_card_ensemble_names_keys_the_cache(tmp_path: Path, video: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    for name in ("cards.onnx", "cards_corner.onnx", "cards_corner_2.onnx"):
        (models / name).write_bytes(b"weights")
    (models / "cards_ensemble.json").write_text(
        '{"members": ["cards.onnx", "cards_corner.onnx", "cards_corner_2.onnx"]}')
    before = fingerprint(video, models)
    assert "cards_corner_2.onnx" in before["models"]
    (models / "cards_corner_2.onnx").write_bytes(b"weightz")  # the third member retrained
    assert fingerprint(video, models) != before
    # a two-member ensemble keys the same files as before there were three (old caches stay good)
    (models / "cards_ensemble.json").write_text('{"members": ["cards.onnx", "cards_corner.onnx"]}')
    keyed = set(fingerprint(video, models)["models"])
    assert keyed == {"cards.onnx", "cards_corner.onnx", "cards_ensemble.json"}
    (models / "cards_ensemble.json").write_text("{not json")  # the reader reports it when it loads
    assert "cards_corner_2.onnx" not in fingerprint(video, models)["models"]
