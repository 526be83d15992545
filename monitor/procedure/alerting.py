"""Turning a broken rule into an :class:`Alert`: catalog lookup, stable id, evidence, media range.

One :class:`AlertSink` per table. It drops an alert whose id it has already raised, so a
rule that keeps being broken (or an event stream replayed twice) yields one alert.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from monitor.alerts.catalog import CATALOG, for_rulebook
from monitor.alerts.model import Alert, MediaRange, alert_id
from monitor.events.schema import EventBase, Game

AlertCallback = Callable[[Alert], None]


def money(cents: int) -> str:
    """'$12.50', '-$5' for messages (whole dollars without cents)."""
    sign = "-" if cents < 0 else ""
    d, c = divmod(abs(cents), 100)
    return f"{sign}${d:,}" if c == 0 else f"{sign}${d:,}.{c:02d}"


class AlertSink:
    """Collects the alerts of one table, once each."""

    def __init__(self, table_id: str, on_alert: AlertCallback | None = None, *,
                 rulebook: str | None = None, profile: str | None = None) -> None:
        """``rulebook``: the table's (its profile's ``rulebook``); rules it shares are cited in its name.
        ``profile``: the name of the profile judging the table, written on every alert."""
        self.table_id = table_id
        self.rulebook = rulebook
        self.profile = profile
        self.alerts: list[Alert] = []
        self._ids: set[str] = set()
        self._on_alert = on_alert

    def raise_alert(
        self,
        code: str,
        key: str,
        evidence: Sequence[EventBase],
        *,
        game: Game | None,
        round_id: str | None,
        facts: dict[str, Any] | None = None,
        details: dict[str, Any] | None = None,
        raw_input: str | None = None,
        location: str | None = None,
        media_time: float | None = None,
    ) -> Alert | None:
        """Raise ``code`` about ``key`` (seat, pile, card ... whatever makes this fault distinct).

        The last evidence event is the trigger. Returns the alert, or None if it was already raised.
        """
        aid = alert_id(self.table_id, round_id, code, key)
        if aid in self._ids:
            return None
        entry = CATALOG[code]
        media: MediaRange | None = None
        wall: str | None = None
        if evidence:
            times = [e.media_time for e in evidence]
            trigger = evidence[-1]
            media = MediaRange(begin=min(times), trigger=trigger.media_time, end=max(times))
            wall = trigger.wall_time.isoformat().replace("+00:00", "Z")
        elif media_time is not None:
            media = MediaRange(begin=media_time, trigger=media_time, end=media_time)
        alert = Alert(
            id=aid,
            code=code,
            table_id=self.table_id,
            game=game,
            round_id=round_id,
            rule=for_rulebook(entry.rule, self.rulebook),
            related_rules=[for_rulebook(r, self.rulebook) for r in entry.related],
            severity=entry.severity,
            message=entry.render(**(facts or {})),
            evidence_seqs=sorted({e.seq for e in evidence}),
            evidence=list(evidence),  # type: ignore[arg-type]
            raw_input=raw_input,
            location=location,
            media=media,
            wall_time=wall,
            details=details or {},
            profile=self.profile,
        )
        self._ids.add(aid)
        self.alerts.append(alert)
        if self._on_alert is not None:
            self._on_alert(alert)
        return alert
