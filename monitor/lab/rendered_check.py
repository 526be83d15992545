"""End-to-end check on rendered rounds: the alerts a review of the video raised vs the script's truth.

``render-round`` writes a round's video with its true alerts (``alerts.jsonl``) and the script's
expected alert codes (``check.json``); ``review`` runs the whole product on that video (perception,
tracking, extraction, the procedure monitor) and writes the alerts it raised (``alerts.jsonl``).
This module lines the two up: which expected alerts were raised, which raised ones were false, and
how far each raised alert's media time lies from the truth's (issue 8: within one second).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class RenderedCheckError(ValueError):
    """A rendered round or a review folder that cannot be compared; names the file."""


@dataclass
class RenderedCheck:
    name: str
    expected: list[str]
    got: list[str]
    timing: list[tuple[str, float]] = field(default_factory=list)  # (code, raised minus true, seconds)

    @property
    def missed(self) -> list[str]:
        return sorted((Counter(self.expected) - Counter(self.got)).elements())

    @property
    def false(self) -> list[str]:
        return sorted((Counter(self.got) - Counter(self.expected)).elements())

    @property
    def ok(self) -> bool:
        return not self.missed and not self.false

    @property
    def max_time_error(self) -> float:
        return max((abs(d) for _, d in self.timing), default=0.0)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "expected": self.expected, "raised": self.got, "missed": self.missed,
                "false": self.false, "ok": self.ok, "timing": self.timing,
                "max_time_error_s": round(self.max_time_error, 3)}


def _alerts(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        raise RenderedCheckError(f"{path} does not exist")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            str(row["code"])
        except (ValueError, KeyError, TypeError) as e:
            raise RenderedCheckError(f"{path} line {n}: not an alert ({e})") from None
        out.append(row)
    return out


def _trigger(alert: dict[str, Any]) -> float | None:
    media = alert.get("media") or {}
    t = media.get("trigger")
    return float(t) if t is not None else None


def _truth_frames(path: Path) -> int | None:
    """How many frames the render meant to write: its truth has a line per frame (None: no truth)."""
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 4096))
            last = f.read().splitlines()[-1]
        return int(json.loads(last)["frame"]) + 1
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        raise RenderedCheckError(f"{path}: not a render-round truth file ({e})") from None


def _whole_video(rendered: Path, reviewed: Path) -> None:
    """A render cut short (its process killed) can leave a video that plays but ends early: a clean
    round would pass on half a round. Its truth says how many frames there should be."""
    want = _truth_frames(rendered / "truth.jsonl")
    review = reviewed / "review.json"
    if want is None or not review.exists():
        return
    try:
        got = sum(int(f["frames_total"]) for f in json.loads(review.read_text(encoding="utf-8"))["files"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise RenderedCheckError(f"{review}: not a review summary ({e})") from None
    if got < want:
        raise RenderedCheckError(f"{rendered / 'video.mp4'}: {got} frames, its truth has {want}: "
                                 "the render was cut short (render it again)")


def compare(rendered: Path, reviewed: Path, name: str | None = None) -> RenderedCheck:
    """``rendered``: a ``render-round`` folder; ``reviewed``: the ``review --out`` folder of its video."""
    check_path = rendered / "check.json"
    try:
        checks = json.loads(check_path.read_text(encoding="utf-8"))
        expected = [str(c) for entry in checks for c in entry["expected"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise RenderedCheckError(f"{check_path}: not a render-round check ({e})") from None
    _whole_video(rendered, reviewed)
    truth = _alerts(rendered / "alerts.jsonl")
    raised = _alerts(reviewed / "alerts.jsonl")
    result = RenderedCheck(name or rendered.name, expected, [str(a["code"]) for a in raised])
    true_times: dict[str, list[float]] = {}
    for a in truth:
        t = _trigger(a)
        if t is not None:
            true_times.setdefault(str(a["code"]), []).append(t)
    for a in sorted(raised, key=lambda a: _trigger(a) or 0.0):
        t, times = _trigger(a), true_times.get(str(a["code"]))
        if t is not None and times:
            nearest = min(times, key=lambda x: abs(x - t))
            times.remove(nearest)
            result.timing.append((str(a["code"]), round(t - nearest, 3)))
    return result
