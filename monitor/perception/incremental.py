"""Perceive what changed: a camera's frames in order, each looked at only where its picture moved.

Most of a card table lies still from one frame to the next; the full pipeline on a 1080p frame costs
hundreds of milliseconds on two cores, a region around a dealer's hand a fraction of that. Each frame
is compared with what perception last saw (:class:`~monitor.perception.change_regions.ChangeRegions`):

- nothing changed: the last frame's objects stand;
- some places changed: those regions are perceived (the detector sees them at the whole frame's
  scale, so nothing looks different to it) and their objects replace the ones touching a change
  (a stack read half hidden under an arm is read again once the arm has gone);
- much changed, the frame size changed, or ``refresh_every`` frames passed: the whole frame is
  perceived (a detector's miss in a still place is not kept for long).
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt

from monitor.perception.change_regions import ChangeRegions
from monitor.perception.classical import felt_colour
from monitor.perception.detections import Detection, Detections
from monitor.perception.imageio import check_frame
from monitor.perception.pipeline import Perceiver

VERSION = 3  # changes what it reports for the same frames: recorded detections of older ones are stale


class IncrementalPerceiver:
    def __init__(self, perceiver: Perceiver, regions: ChangeRegions | None = None,
                 refresh_every: int = 30) -> None:
        if refresh_every < 1:
            raise ValueError(f"refresh_every must be at least 1 frame, got {refresh_every}")
        self.perceiver = perceiver
        self.regions = regions or ChangeRegions()
        self.refresh_every = refresh_every
        self._last: Detections | None = None
        self._felt: npt.NDArray[np.uint8] | None = None
        self._since_full = 0
        # a detector that only takes the whole frame's input size cannot look at a region alone
        det = perceiver.detector
        self.regional = det is None or det.takes_any_size
        self.full = self.partial = self.reused = 0  # frames perceived whole, in regions, not at all

    def perceive(self, frame: npt.NDArray[np.uint8]) -> Detections:
        frame = check_frame(frame)
        t = time.perf_counter()
        found = self.regions.find(frame)
        change_ms = (time.perf_counter() - t) * 1000
        last = self._last
        if (found is None or last is None or not self.regional or self._since_full + 1 >= self.refresh_every
                or (last.width, last.height) != (frame.shape[1], frame.shape[0])):
            out = self.perceiver.perceive(frame)
            if self.perceiver.mode == "full":  # the felt the whole frame was judged by, if it was
                self._felt = self.perceiver.felt if self.perceiver.felt is not None else felt_colour(frame)
            self.regions.seen(None)
            self._since_full = 0
            self.full += 1
            out = _with_change(out, out.items, change_ms)
        elif not found:
            self._since_full += 1
            self.reused += 1
            out = Detections(last.width, last.height, last.items, {"change": change_ms, "total": change_ms})
        else:
            new = self.perceiver.perceive_regions(frame, found, self._felt)
            # what was seen away from the changes stands, unless seen again now (a stack read half
            # hidden in another region, with another box, is the same stack)
            kept = tuple(d for d in last.items if not any(r.touches(d.box) for r in found)
                         and not any(_same_place(d, n) for n in new.items))
            self.regions.seen(found)
            self._since_full += 1
            self.partial += 1
            share = sum(r.area for r in found) / (frame.shape[0] * frame.shape[1])
            out = _with_change(new, kept + new.items, change_ms, region_share=share)
        if last is not None and out.items is not last.items:
            out = Detections(out.width, out.height, keep_steady(out.items, last.items), out.timings_ms)
        self._last = out
        return out


def _with_change(d: Detections, items: tuple[Detection, ...], change_ms: float, **extra: float) -> Detections:
    total = d.timings_ms.get("total", 0.0) + change_ms
    timings = {"change": change_ms, **d.timings_ms, "total": total, **extra}
    return Detections(d.width, d.height, items, timings)


def _group(kind: str) -> str:
    return "card" if kind.startswith("card") else kind


def _inside(p: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def _same_place(a: Detection, b: Detection) -> bool:
    """Two detections of one object: of one kind (a card face up or down) and either's centre in
    the other's box."""
    return _group(a.kind) == _group(b.kind) and (_inside(a.center, b.box) or _inside(b.center, a.box))


FRESH_KINDS = ("hand", "card_face_up")  # always the new box
STEADY_IOU = 0.75  # a box this close to the last frame's, read the same, is the same object not moved


def _iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def keep_steady(items: tuple[Detection, ...], before: tuple[Detection, ...]) -> tuple[Detection, ...]:
    """Objects seen again where they were, read the same, keep last frame's detection exactly.

    A region and the whole frame give the detector different context, so one still stack's box
    shifts by a pixel or two and its score changes when a place is perceived again (and every
    ``refresh_every`` frames, when the whole frame is): a tracker may start a new track for it, and
    a new track in a betting spot is a touch of the spot. Hands always take the new box, and so do
    face-up cards: the fan reader cuts their index corners from the box, and a box kept from a frame
    where the hand was still being spread puts the cuts off the indices (a fanned ten read as two
    tens, the seven beside it lost: data/e2e/paigow_player_foul)."""
    by_kind: dict[str, list[Detection]] = {}
    for b in before:
        by_kind.setdefault(b.kind, []).append(b)
    used: set[int] = set()
    out = []
    for d in items:
        if d.kind not in FRESH_KINDS:
            box = d.box
            same = [b for b in by_kind.get(d.kind, ()) if id(b) not in used and b.identity == d.identity
                    and b.denomination == d.denomination and b.count == d.count
                    and _iou(box, b.box) >= STEADY_IOU]
            if same:
                d = max(same, key=lambda b: _iou(box, b.box))
                used.add(id(d))
        out.append(d)
    return tuple(out)
