"""The bookkeeping shared by the crop-set cutters (``train index-crops``, ``train fan-crops``): a
log of the windows done, so that an interrupted cut (or one started while the windows were still
being rendered) goes on where it stopped, and the crops written by class."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

import cv2
import numpy as np
import numpy.typing as npt


def read_done(log: Path) -> dict[str, dict[str, Any]]:
    """The windows a log says are done, by stem (a line cut by an interruption is skipped: that
    window is redone)."""
    done: dict[str, dict[str, Any]] = {}
    if log.exists():
        for line in log.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            done[row["stem"]] = row
    return done


def open_log(log: Path) -> IO[str]:
    """The log opened to append, a line an interruption cut ended first."""
    f = log.open("a")
    if log.stat().st_size and not log.read_bytes().endswith(b"\n"):
        f.write("\n")
    return f


class CropWriter:
    """Crops written as ``root/<class>/<name>.jpg`` (a classification set's layout)."""

    def __init__(self, root: Path, quality: int = 95) -> None:
        self.root, self.quality = root, quality
        self._made: set[Path] = set()

    def write(self, label: str, name: str, crop: npt.NDArray[np.uint8]) -> None:
        dst = self.root / label
        if dst not in self._made:
            dst.mkdir(parents=True, exist_ok=True)
            self._made.add(dst)
        cv2.imwrite(str(dst / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, self.quality])


def log_window(log: IO[str], done: dict[str, dict[str, Any]], stem: str, tally: dict[str, int],
               kinds: str) -> None:
    """A window's crops all written: its counts per kind logged (the line last, so an interruption
    leaves the window to be redone, never half counted)."""
    done[stem] = row = {"stem": stem, **{k: tally.get(k, 0) for k in kinds}}
    log.write(json.dumps(row) + "\n")
    log.flush()


def split_counts(done: dict[str, dict[str, Any]], stems: list[str], kinds: str) -> dict[str, int]:
    """Windows and crops of each kind over a split's windows (this call's and earlier calls')."""
    kept = [done[s] for s in stems]
    return {"windows": len(kept), **{k: sum(int(r[k]) for r in kept) for k in kinds}}
