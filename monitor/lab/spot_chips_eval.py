"""How well the betting spots' chips are found (monitor.perception.spot_chips), against rendered truth.

A truth stack counts where its whole top is in view (``visible_share`` 0.97 or more: not under an arm
or a card); a found chip matches the nearest unmatched truth stack within 12 pixels of its centre.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.imageio import as_image
from monitor.perception.spot_chips import SpotChipFinder

MATCH_PX = 12.0
VISIBLE = 0.97


@dataclass
class SpotChipScore:
    stacks: int = 0  # truth stacks in view
    found: int = 0  # chips found
    matched: int = 0
    right: int = 0  # matched with the right denomination
    confusions: dict[str, int] = field(default_factory=dict)  # "truth->read" -> count

    @property
    def recall(self) -> float:
        return self.matched / self.stacks if self.stacks else float("nan")

    @property
    def precision(self) -> float:
        return self.matched / self.found if self.found else float("nan")

    @property
    def denomination_right(self) -> float:
        return self.right / self.matched if self.matched else float("nan")

    def add(self, other: SpotChipScore) -> None:
        self.stacks += other.stacks
        self.found += other.found
        self.matched += other.matched
        self.right += other.right
        for k, v in other.confusions.items():
            self.confusions[k] = self.confusions.get(k, 0) + v


def score_frame(finder: SpotChipFinder, image: npt.NDArray[np.uint8], objects: Sequence[dict[str, Any]]
                ) -> SpotChipScore:
    """One frame: every spot without a hidden stack, its chips found against the truth's."""
    score = SpotChipScore()
    stacks = [o for o in objects if o.get("kind") == "chips" and str(o.get("zone", "")).endswith(".bet")]
    hidden = {o["zone"] for o in stacks if float(o.get("visible_share", 1.0)) < VISIBLE}
    for name in finder.spots:
        if name in hidden:
            continue
        truth = [o for o in stacks if o["zone"] == name]
        got = finder.find(image, name)
        score.stacks += len(truth)
        score.found += len(got)
        used: set[int] = set()
        for o in truth:
            cx, cy = np.asarray(o["polygon"], np.float64).mean(axis=0)
            near = [(math.hypot(g.center[0] - cx, g.center[1] - cy), i)
                    for i, g in enumerate(got) if i not in used]
            if not near or min(near)[0] > MATCH_PX:
                continue
            i = min(near)[1]
            used.add(i)
            score.matched += 1
            read = str(got[i].denomination)
            if read == str(o["identity"]):
                score.right += 1
            else:
                key = f"{o['identity']}->{read}"
                score.confusions[key] = score.confusions.get(key, 0) + 1
    return score


def truth_frames(path: Path) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(frame, objects) of a render-round truth file (``same_as`` rows resolved)."""
    opener = gzip.open if path.suffix == ".gz" else open
    known: dict[int, list[dict[str, Any]]] = {}
    with opener(path, "rt") as f:
        for line in f:
            row = json.loads(line)
            objects = row["objects"] if "objects" in row else known.get(int(row["same_as"]), [])
            known[int(row["frame"])] = objects
            yield int(row["frame"]), objects


def score_round(finder: SpotChipFinder, folder: Path, every: int) -> SpotChipScore:
    """Every ``every``-th frame of a rendered round (video.mp4 and truth.jsonl in ``folder``)."""
    truth = folder / "truth.jsonl"
    if not truth.exists():
        truth = folder / "truth.jsonl.gz"
    cap = cv2.VideoCapture(str(folder / "video.mp4"))
    if not cap.isOpened():
        raise OSError(f"{folder / 'video.mp4'}: cannot be opened")
    total = SpotChipScore()
    try:
        index = -1
        for frame, objects in truth_frames(truth):
            if frame % every:
                continue
            while index < frame:
                ok, image = cap.read()
                index += 1
                if not ok:
                    return total
            total.add(score_frame(finder, as_image(image), objects))
    finally:
        cap.release()
    return total
