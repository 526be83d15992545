"""The motion gate keeps moving spans (and a card flip), skips still ones, and never goes blind for long."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import cv2
import numpy as np

from monitor.sources.frame import Frame
from monitor.sources.motion import MotionGate, gated

FPS = 10.0
W, H = 640, 360  # a 1080p table view at a third: a card is about 15 x 21 pixels
NOISE = [np.random.default_rng(s).normal(0, 3, (H, W, 3)).astype(np.int16) for s in range(4)]


def table(rng: np.random.Generator, card_at: tuple[int, int] | None = None, up: bool = False) -> np.ndarray:
    img = np.full((H, W, 3), (40, 105, 25), np.uint8)
    cv2.rectangle(img, (100, 100), (540, 260), (90, 200, 235), 1)  # printed lines on the felt
    if card_at is not None:
        x, y = card_at
        colour = (235, 235, 235) if up else (40, 40, 160)  # a red back: as bright as the green felt
        cv2.rectangle(img, (x, y), (x + 15, y + 21), colour, -1)
    noise = NOISE[int(rng.integers(len(NOISE)))]  # sensor noise must not count as motion
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def frames() -> list[Frame]:
    rng = np.random.default_rng(1)
    out = []
    for i in range(120):
        if i < 40:
            image = table(rng)  # 4 s still, empty
        elif i < 60:
            image = table(rng, card_at=(100 + (i - 40) * 12, 150))  # 2 s: a card slides across
        elif i < 90:
            image = table(rng, card_at=(340, 150))  # 3 s still
        else:
            image = table(rng, card_at=(340, 150), up=i >= 100)  # flipped face up at frame 100
        out.append(Frame(image, i, i / FPS, datetime.now(UTC), "test"))
    return out


def test_gate_keeps_motion_and_skips_still_spans() -> None:
    gate = MotionGate(settle_s=0.3, keepalive_s=1.0)
    kept = [f.index for f in gated(frames(), gate)]
    assert kept[0] == 0
    assert set(range(40, 60)) <= set(kept)  # every frame of the slide
    assert 100 in kept  # the flip
    still = [i for i in kept if 1 <= i < 40]
    assert still == [10, 20, 30]  # only keepalives (every 1 s) while nothing moves
    assert all(b - a <= 10 for a, b in itertools.pairwise(kept))  # never blind longer than keepalive
    assert gate.kept == len(kept) and gate.kept + gate.skipped == 120
    assert gate.skipped > 60


def test_noise_alone_is_not_motion() -> None:
    rng = np.random.default_rng(2)
    gate = MotionGate()
    gate.keep(Frame(table(rng), 0, 0.0, datetime.now(UTC), "t"))
    assert gate.changed_share(table(rng)) < gate.min_changed
