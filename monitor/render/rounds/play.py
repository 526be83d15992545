"""Scripts in, timelines and true events out; and the check that the rules raise what a script expects."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from monitor.alerts.model import Alert
from monitor.geometry import TableLayout, default_layout
from monitor.render.rounds.play_base import EventDict, EventLog
from monitor.render.rounds.script import Script, ScriptError
from monitor.render.rounds.timeline import Timeline


@dataclass
class PlayedRound:
    script: Script
    source: str
    timeline: Timeline
    events: list[EventDict]
    start: float
    end: float
    profile: Any = None  # the rule profile it was dealt by (PaiGowProfile; None: the script's own)

    def rules_profile(self) -> Any:
        return self.profile if self.profile is not None else profile_for(self.script, self.source)


def profile_for(script: Script, source: str = "<script>") -> Any:
    from monitor.procedure.replay import PROFILES

    p = PROFILES.get(script.profile)
    if p is None:
        raise ScriptError(
            f"{source}: profile: unknown rule profile {script.profile!r} "
            f"(known: {', '.join(sorted(PROFILES))})"
        )
    return p


def check_looks(script: Script, source: str = "<script>") -> None:
    """The script's card design and table style exist (errors name the field)."""
    from monitor.render.deck import DesignError, load_design
    from monitor.render.table_art import TABLE_STYLES

    try:
        load_design(script.design)
    except DesignError as e:
        raise ScriptError(f"{source}: design: {e}") from None
    if script.table_style not in TABLE_STYLES:
        raise ScriptError(
            f"{source}: table_style: unknown style {script.table_style!r} (known: {', '.join(TABLE_STYLES)})"
        )


def play_script(
    script: Script,
    source: str = "<script>",
    log: EventLog | None = None,
    t0: float = 0.0,
    layout: TableLayout | None = None,
    profile: Any = None,
) -> PlayedRound:
    """Play ``script`` from media time ``t0`` on ``layout`` (default: the built-in one), dealt by
    ``profile`` (a ``PaiGowProfile``, e.g. a table file's; default: the script's ``profile``);
    events go to ``log`` (a new one if None)."""
    from monitor.procedure.paigow_rules import PaiGowRules
    from monitor.render.rounds.holdem_play import HoldemPlayer
    from monitor.render.rounds.paigow_play import PaiGowPlayer

    check_looks(script, source)
    log = log if log is not None else EventLog(script.table_id)
    layout = layout or default_layout()
    n0 = len(log.events)
    player: PaiGowPlayer | HoldemPlayer
    rules_profile = profile if profile is not None else profile_for(script, source)
    if script.game == "paigow":
        player = PaiGowPlayer(script, layout, log, t0, source, PaiGowRules(rules_profile))
    else:
        player = HoldemPlayer(script, layout, log, t0, source)
    tl = player.play()
    return PlayedRound(script, source, tl, log.events[n0:], t0, player.t, profile)


@dataclass
class AlertCheck:
    expected: list[str]
    got: list[str]
    alerts: list[Alert] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return Counter(self.expected) == Counter(self.got)

    def explain(self) -> str:
        missing = Counter(self.expected) - Counter(self.got)
        extra = Counter(self.got) - Counter(self.expected)
        parts = []
        if missing:
            parts.append(f"expected but not raised: {sorted(missing.elements())}")
        if extra:
            parts.append(f"raised but not expected: {sorted(extra.elements())}")
        return "; ".join(parts) or "alerts as expected"


def judge(
    events: list[EventDict], script: Script, source: str = "<script>", profile: Any = None
) -> AlertCheck:
    """Feed the true events to a fresh procedure monitor (judging by ``profile``, default the script's);
    compare its alerts with ``expect_alerts``."""
    from monitor.procedure.monitor import Monitor

    m = Monitor(profile=profile if profile is not None else profile_for(script, source))
    for e in events:
        m.feed_dict(e, location=f"{source} seq {e.get('seq')}")
    m.finish()
    return AlertCheck(list(script.expect_alerts), [a.code for a in m.alerts], list(m.alerts))


def play_many(
    scripts: list[tuple[Script, str]],
    gap: float = 1.0,
    layout: TableLayout | None = None,
    profile: Any = None,
) -> list[PlayedRound]:
    """Several scripts one after another on one clock and one event stream (``gap`` s of empty table
    between rounds), on one ``layout`` dealt by one ``profile`` (as :func:`play_script`). All scripts
    must be for the same table."""
    if not scripts:
        raise ScriptError("no scripts to play")
    tables = {s.table_id for s, _ in scripts}
    if len(tables) > 1:
        raise ScriptError(f"scripts of one recording must share a table_id, got {sorted(tables)}")
    log = EventLog(scripts[0][0].table_id)
    out: list[PlayedRound] = []
    t = 0.0
    for script, source in scripts:
        r = play_script(script, source, log, t, layout, profile)
        out.append(r)
        t = r.end + gap
    return out
