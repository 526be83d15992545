"""Helpers for the procedure monitor tests: clean synthetic rounds, small edits, a monitor run."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from monitor.alerts.model import Alert
from monitor.events.schema import parse_event
from monitor.procedure.monitor import Monitor
from monitor.procedure.synth import Clock, EventDict, PaiGowPlan, paigow_round, resequence
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile


def clean_round(seed: int = 7, profile: PaiGowProfile = DEFAULT_PROFILE, **plan: Any) -> list[EventDict]:
    return paigow_round(random.Random(seed), Clock(), profile, PaiGowPlan(**plan))


def run(events: list[EventDict], profile: PaiGowProfile = DEFAULT_PROFILE, renumber: bool = True) -> Monitor:
    m = Monitor(profile=profile)
    for e in resequence(events) if renumber else events:
        m.feed(parse_event(e))
    m.finish()
    return m


def codes(m: Monitor) -> list[str]:
    return [a.code for a in m.alerts]


def only(m: Monitor, code: str) -> Alert:
    found = [a for a in m.alerts if a.code == code]
    assert len(found) == 1, f"expected one {code}, got {codes(m)}"
    return found[0]


def find(events: list[EventDict], etype: str, pred: Callable[[EventDict], bool] = lambda e: True) -> int:
    for i, e in enumerate(events):
        if e["type"] == etype and pred(e):
            return i
    raise LookupError(f"no {etype} event matching")


def find_all(events: list[EventDict], etype: str) -> list[int]:
    return [i for i, e in enumerate(events) if e["type"] == etype]
