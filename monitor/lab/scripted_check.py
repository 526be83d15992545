"""Oracle check of the event extractor on scripted rounds: do the events it sees raise the script's alerts?

A played round (``monitor.render.rounds``) gives the truth, frame by frame, and its true events. The
events that do not come from a camera (the dealer's console: round start with the banker's seat, no
more bets, misdeal, round end; and the dice reader) are replayed as they would arrive; everything
a camera must see is left to the extractor, fed oracle detections. The procedure monitor then judges
the merged stream, and its alerts are compared with the script's ``expect_alerts`` and, alert by
alert, with the media time the true events raise it at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from monitor.alerts.model import Alert
from monitor.calibration import TableCalibration
from monitor.events.outside import outside_events
from monitor.events.schema import EventBase, parse_event
from monitor.lab.timeline_truth import timeline_truth
from monitor.pipeline.chain import TableChain
from monitor.pipeline.extract import EventExtractor, ExtractorSettings
from monitor.pipeline.oracle import OracleFrame, OracleOptions, oracle_frames
from monitor.pipeline.watchers.view import TableLayout
from monitor.rules.profile import PaiGowProfile


@dataclass
class ScriptCheck:
    name: str
    expected: list[str]
    got: list[str]
    true_alerts: list[Alert]
    alerts: list[Alert]
    events: list[EventBase]
    frames: int
    timing: list[tuple[str, float]] = field(default_factory=list)  # (code, seconds late vs the truth)

    @property
    def ok(self) -> bool:
        return Counter(self.expected) == Counter(self.got)

    @property
    def max_delay(self) -> float:
        return max((abs(d) for _, d in self.timing), default=0.0)

    def explain(self) -> str:
        missing = Counter(self.expected) - Counter(self.got)
        extra = Counter(self.got) - Counter(self.expected)
        parts = []
        if missing:
            parts.append(f"missed {sorted(missing.elements())}")
        if extra:
            parts.append(f"false {sorted(extra.elements())}")
        return "; ".join(parts) or "as expected"


def run_oracle(
    rounds: list[Any],
    calibration: TableCalibration,
    frames: Iterator[OracleFrame],
    true_events: list[dict[str, Any]],
    settings: ExtractorSettings | None = None,
    use_bytetrack: bool = False,
    fps: float = 30.0,
    on_frame: Callable[[int], None] | None = None,
    profile: PaiGowProfile | None = None,
    console: bool = True,
) -> tuple[list[EventBase], list[Alert], int]:
    """Run the chain over oracle frames with the outside events merged in by media time; the monitor
    judges by ``profile`` (default: the profile the first round was dealt by). ``console`` False: a
    room without one, the dice reader's rolls the only outside events."""
    from monitor.procedure.monitor import Monitor

    seq = iter(range(1 << 30))

    def number() -> int:  # one counter for vision and outside events
        return next(seq)

    extractor = EventExtractor(calibration.table, settings, next_seq=number,
                               layout=TableLayout.of(calibration.zones, calibration.zone_rules))
    chain = TableChain(calibration, extractor, fps)
    monitor = Monitor(profile=profile if profile is not None else rounds[0].rules_profile())
    outside = sorted((e for e in outside_events(true_events) if console or e.get("source") == "dice_reader"),
                     key=lambda e: e["media_time"])
    k = 0
    events: list[EventBase] = []

    def push(e: EventBase) -> None:
        events.append(e)
        monitor.feed(e)  # type: ignore[arg-type]  # every EventBase here is one of the Event union

    def tell(row: dict[str, Any]) -> None:  # an outside event, after what it confirms first
        for e in extractor.told(parse_event({**row, "seq": 0, "table_id": calibration.table}), number):
            push(e)

    n = 0
    for fr in frames:
        while k < len(outside) and outside[k]["media_time"] <= fr.media_time:
            tell(outside[k])
            k += 1
        for e in chain.step(fr.index, fr.media_time, fr.detections, None if use_bytetrack else fr.tracks):
            push(e)
        n += 1
        if on_frame is not None:
            on_frame(1)
    for rest in outside[k:]:
        tell(rest)
    monitor.finish()
    return events, list(monitor.alerts), n


def check_rounds(
    rounds: list[Any],
    calibration: TableCalibration,
    name: str,
    fps: int = 30,
    stride: int = 1,
    oracle: OracleOptions | None = None,
    settings: ExtractorSettings | None = None,
    use_bytetrack: bool = False,
    on_frame: Callable[[int], None] | None = None,
    profile: PaiGowProfile | None = None,
    console: bool = True,
) -> ScriptCheck:
    """Played rounds -> oracle frames -> events -> alerts, against the scripts' expected alerts. The
    chain's monitor judges by ``profile`` (a table file's; default: the one the rounds were dealt by),
    the truth always by the profile the rounds were dealt by."""
    from monitor.procedure.monitor import Monitor

    true_events = [e for r in rounds for e in r.events]
    truth = Monitor(profile=rounds[0].rules_profile())
    for e in true_events:
        truth.feed_dict(e)
    truth.finish()
    size = calibration.image_size
    frames = oracle_frames(timeline_truth(rounds, fps, size, stride), size, oracle)
    events, alerts, n = run_oracle(rounds, calibration, frames, true_events, settings, use_bytetrack, fps,
                                   on_frame, profile, console)
    expected = [c for r in rounds for c in r.script.expect_alerts]
    check = ScriptCheck(name, expected, [a.code for a in alerts], list(truth.alerts), alerts, events, n)
    by_code: dict[str, list[float]] = {}
    for a in truth.alerts:
        if a.media is not None:
            by_code.setdefault(a.code, []).append(a.media.trigger)
    for a in alerts:
        times = by_code.get(a.code)
        if a.media is not None and times:
            check.timing.append((a.code, a.media.trigger - times.pop(0)))
    return check
