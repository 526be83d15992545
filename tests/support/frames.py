"""Frames made for tests: a synthetic table to find cards on, a file-like source of frames."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import cv2
import numpy as np

from monitor.sources.frame import Frame


def card_quad(cx: float, cy: float, w: float, h: float, angle: float) -> np.ndarray:
    """A w x h card centred at (cx, cy), turned by ``angle`` radians."""
    c, s = np.cos(angle), np.sin(angle)
    base = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return base @ np.array([[c, s], [-s, c]]) + [cx, cy]


def synthetic_table(seed: int = 0) -> tuple[np.ndarray, list[np.ndarray]]:
    """Green textured felt with white rounded cards (a dark glyph each), one chip and a printed line."""
    rng = np.random.default_rng(seed)
    h, w = 720, 1280
    frame = np.full((h, w, 3), (35, 105, 30), np.uint8)
    frame = cv2.add(frame, rng.integers(0, 18, (h, w, 3), dtype=np.uint8))
    cv2.line(frame, (0, 600), (w, 620), (200, 200, 200), 2, cv2.LINE_AA)
    truths = []
    for k in range(8):
        q = card_quad(120 + 150 * k, 200 + 40 * (k % 3), 50, 70, rng.uniform(0, np.pi))
        hi = np.zeros((h * 4, w * 4), np.uint8)  # draw at 4x and shrink: anti-aliased edges, rounded corners
        cv2.fillPoly(hi, [np.round(q * 4).astype(np.int32)], 255)
        hi = cv2.dilate(cv2.erode(hi, np.ones((13, 13), np.uint8)), np.ones((13, 13), np.uint8))
        alpha = cv2.resize(hi, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255
        frame = (frame * (1 - alpha) + np.array([235, 238, 240]) * alpha).astype(np.uint8)
        c = q.mean(axis=0).astype(int)
        cv2.putText(frame, "A", (c[0] - 8, c[1] + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2)
        truths.append(q)
    cv2.circle(frame, (640, 480), 22, (40, 40, 190), -1, cv2.LINE_AA)  # a red chip: round, not a card
    return frame, truths


class FileFrames:
    """A file-like camera for the live run: ``n`` black frames, then the end."""

    live = False
    realtime = False

    def __init__(self, n: int = 3) -> None:
        self.frames = [Frame(np.zeros((27, 48, 3), np.uint8), i, i / 30, datetime.now(UTC), "test")
                       for i in range(n)]
        self.state = SimpleNamespace(is_terminal=False)

    def read(self, timeout: float | None = None) -> Frame | None:
        if not self.frames:
            self.state.is_terminal = True
            return None
        return self.frames.pop(0)
