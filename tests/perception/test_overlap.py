"""A frame's classical finder and chips run on a second thread beside the detector and the card reader
(``Perceiver.overlap``): the same detections as one thread after the other, errors raised as before."""

from __future__ import annotations

import numpy as np
import pytest

from monitor.perception.imageio import load_image
from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver
from tests.support.paths import TABLE_1080P


def _items(p: Perceiver, frame: np.ndarray) -> list[tuple[object, ...]]:
    return [(d.kind, d.identity, d.identity_confidence, d.denomination, d.corners)
            for d in p.perceive(frame).items]


def test_beside_and_in_turn_perceive_the_same() -> None:
    frame = load_image(TABLE_1080P)
    both = Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1, overlap=True)
    one = Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1, overlap=False)
    assert both.overlap and not one.overlap
    first = _items(both, frame)
    assert first == _items(one, frame)
    kinds = [str(k) for k, *_ in first]
    assert kinds.count("chip") > 0 and sum(k.startswith("card") for k in kinds) > 10
    dets = both.perceive(frame)
    # the frame's time is its own (wall) time, no less than any one stage's
    assert dets.timings_ms["total"] >= max(v for k, v in dets.timings_ms.items() if k != "total")


def test_video_perceives_in_turn_since_its_chain_keeps_both_cores_busy() -> None:
    assert not Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1, video=True).overlap


def test_an_error_beside_is_raised_by_the_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    import monitor.perception.pipeline as pipeline

    def broken(frame: np.ndarray) -> list[object]:
        raise RuntimeError("finder broke")

    monkeypatch.setattr(pipeline, "find_card_quads", broken)
    p = Perceiver(None, None, classical="full", overlap=True)
    with pytest.raises(RuntimeError, match="finder broke"):
        p.perceive(np.zeros((120, 160, 3), np.uint8))
    # the second thread is still there for the next frame
    monkeypatch.undo()
    assert p.perceive(np.zeros((120, 160, 3), np.uint8)).items == ()
