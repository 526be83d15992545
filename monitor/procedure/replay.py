"""Replaying a JSONL event file through the monitor, and printing what it found for a person.

``table-monitor replay events.jsonl`` uses this; so do the tests (same file, same alerts).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from monitor.alerts.model import Alert
from monitor.events.jsonl import read_events
from monitor.procedure.alerting import money
from monitor.procedure.history import HandHistory, PaiGowHistory, PokerHistory
from monitor.procedure.monitor import Monitor
from monitor.rules import profile as profiles
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

PROFILES: dict[str, PaiGowProfile] = {
    p.name: p
    for p in (profiles.LIVERMORE, profiles.LUCKY_CHANCES, profiles.NAPA, profiles.NEVADA_WHEEL,
              getattr(profiles, "S_AND_K", DEFAULT_PROFILE))
}


@dataclass(frozen=True)
class ReplayResult:
    alerts: list[Alert]
    histories: list[HandHistory]
    events: int
    rejected: int


def replay(path: Path | str, profile: PaiGowProfile = DEFAULT_PROFILE, window: int = 64) -> ReplayResult:
    m = Monitor(profile=profile, window=window)
    m.feed_many(read_events(path))
    m.finish()
    return ReplayResult(list(m.alerts), list(m.histories), m.events_in, m.rejected_in)


def _cards(cs: list[str | None] | list[str] | None) -> str:
    if cs is None:
        return "-"
    return " ".join(c or "??" for c in cs) or "-"


def _paigow_text(h: PaiGowHistory) -> list[str]:
    b = h.banker
    out = [
        f"Round {h.round_id} (Pai Gow, table {h.table_id}) media {h.media_begin:.1f}-{h.media_end:.1f} s"
        f"{'' if h.complete else '  [cut short]'}",
        f"  banker: seat {b.seat if b.seat is not None else '?'}"
        + (f", wager {money(b.wager)}" if b.wager else "")
        + (f", cards {_cards(b.cards)}" if b.cards else "")
        + (f", plays {b.plays}" if b.plays else "")
        + (f"  FOUL: {b.foul}" if b.foul else ""),
        f"  deal: {h.deals} deal(s), stub {h.stub if h.stub is not None else '?'}"
        + (f", exposed {', '.join(h.exposed)}" if h.exposed else "")
        + (f", misdeals: {'; '.join(h.misdeals)}" if h.misdeals else ""),
        f"  action pile {h.action_pile or '?'}, dice {h.dice or '?'} -> seat {h.action_seat or '?'}",
    ]
    for s in h.seats:
        if s.dead:
            out.append(f"  seat {s.seat}: no wager, pile {s.pile or '?'}"
                       f" {'collected' if s.collected else 'NOT collected'}")
            continue
        setting = f"{_cards(s.front)} / {_cards(s.back)}" if s.front is not None else "not set"
        money_parts = []
        for w in s.wagers:
            who = "player" if w.bettor is None else w.bettor
            exp = money(w.expected) if w.expected is not None else "?"
            paid = money(w.paid) if w.paid is not None else "-"
            money_parts.append(f"{who} {money(w.amount)} {w.result or '?'} expected {exp} paid {paid}")
        out.append(f"  seat {s.seat}: pile {s.pile or '?'}, {setting}"
                   f"{' (house way)' if s.house_way else ''} -> {s.outcome or '?'}"
                   f"{'  FOUL: ' + s.foul if s.foul else ''}")
        for part in money_parts:
            out.append(f"      {part}")
    if h.settlement_note:
        out.append(f"  note: {h.settlement_note}")
    return out


def _poker_text(h: PokerHistory) -> list[str]:
    out = [
        f"Round {h.round_id} ({h.game.value}, table {h.table_id})"
        f" media {h.media_begin:.1f}-{h.media_end:.1f} s"
        f"{'' if h.complete else '  [cut short]'}",
        f"  button {h.button_seat or '?'}, burns {h.burns}, board {_cards(h.board)}"
        + (f", pot {money(h.pot)}" if h.pot is not None else ""),
    ]
    for s in h.seats:
        state = "folded" if s.folded else f"shows {_cards(s.shown)}" if s.shown else "-"
        exp = f" (rules: {money(s.expected)})" if s.expected is not None else ""
        out.append(f"  seat {s.seat}: hole {_cards(s.hole)}, {state}, awarded {money(s.awarded)}{exp}")
    if h.showdown_note:
        out.append(f"  note: {h.showdown_note}")
    return out


def format_text(result: ReplayResult) -> str:
    """Alerts first (what the floor needs), then each round's hand history."""
    lines = [f"{result.events} events, {result.rejected} rejected line(s), {len(result.alerts)} alert(s)", ""]
    if result.alerts:
        lines.append("ALERTS")
        for a in result.alerts:
            when = f"{a.media.trigger:7.1f}s" if a.media else "      - "
            where = f" round {a.round_id}" if a.round_id else ""
            lines.append(f"  {when} {a.table_id}{where} {a.one_line}")
        lines.append("")
    lines.append("HAND HISTORIES")
    for h in result.histories:
        lines += _paigow_text(h) if isinstance(h, PaiGowHistory) else _poker_text(h)
        if h.alert_codes:
            lines.append(f"  alerts: {', '.join(h.alert_codes)}")
        lines.append("")
    return "\n".join(lines)
