"""The procedure monitor's Python API: events in, alerts and hand histories out.

>>> from monitor.procedure.monitor import Monitor
>>> m = Monitor()
>>> new = m.feed_json('{"type":"stub_counted","table_id":"T1","seq":0,"media_time":1,'
...                   '"wall_time":"2026-01-01T20:00:00Z","source":"file","n":4}')
>>> [a.code for a in new]  # a stub count with no round open is noted, not judged
['event_out_of_phase']
>>> [a.code for a in m.feed_json('{"type":"stub_counted"}', location="typed line")]
['event_invalid']

Events may come from any number of tables; each table has its own reorder buffer, round state
machine and alerts. Everything is deterministic: the same input gives the same alerts (same ids)
and the same histories.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from pydantic import ValidationError

from monitor.alerts.model import Alert
from monitor.events.jsonl import RejectedLine, parse_line, reject
from monitor.events.schema import Event, parse_event
from monitor.procedure.alerting import AlertSink
from monitor.procedure.history import HandHistory
from monitor.procedure.paigow_rules import PaiGowRules
from monitor.procedure.reorder import Problem, Reorderer, SequenceProblem
from monitor.procedure.table import TableMonitor
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

UNKNOWN_TABLE = "unknown"


class Monitor:
    """Judges the events of many tables. Feed events; read ``alerts`` and ``histories``."""

    def __init__(
        self,
        profile: PaiGowProfile = DEFAULT_PROFILE,
        profiles: Mapping[str, PaiGowProfile] | None = None,
        window: int = 64,
        memory: int = 4096,
        on_alert: Callable[[Alert], None] | None = None,
        on_history: Callable[[HandHistory], None] | None = None,
    ) -> None:
        self.profile = profile
        self.profiles = dict(profiles or {})
        self.window = window
        # Released events kept per table to tell a resend (dropped) from a conflict; older ones are late.
        self.memory = memory
        self.alerts: list[Alert] = []
        self.histories: list[HandHistory] = []
        self.tables: dict[str, TableMonitor] = {}
        self._reorder: dict[str, Reorderer] = {}
        self._lanes: dict[str, tuple[TableMonitor, Reorderer]] = {}
        self._rules: dict[str, PaiGowRules] = {}
        self._on_alert = on_alert
        self._on_history = on_history
        self._ready: list[Event] = []
        self._problems: list[SequenceProblem] = []
        self.events_in = 0
        self.rejected_in = 0

    # ---- callbacks -----------------------------------------------------------------------------

    def _emit(self, alert: Alert) -> None:
        self.alerts.append(alert)
        if self._on_alert is not None:
            self._on_alert(alert)

    def _history(self, history: HandHistory) -> None:
        self.histories.append(history)
        if self._on_history is not None:
            self._on_history(history)

    def table(self, table_id: str) -> TableMonitor:
        t = self.tables.get(table_id)
        if t is None:
            rules = self._rules_for(self.profile_for(table_id))
            profile = rules.profile
            sink = AlertSink(table_id, self._emit, rulebook=profile.rulebook, profile=profile.name)
            t = self.tables[table_id] = TableMonitor(table_id, profile, sink, self._history, rules)
            self._reorder[table_id] = Reorderer(self.window, self.memory, on_gap=t.data_gap)
            self._lanes[table_id] = (t, self._reorder[table_id])
        return t

    def profile_for(self, table_id: str) -> PaiGowProfile:
        """The profile that judges ``table_id``: its own from ``profiles``, else the default ``profile``."""
        return self.profiles.get(table_id, self.profile)

    def warm_up(self) -> None:
        """Build the rules' score tables for every profile now, not on the first hand set at a table.

        Call at start-up (``MonitorFeed.warm_up`` does); judging is the same without it.
        """
        for profile in (self.profile, *self.profiles.values()):
            self._rules_for(profile).warm_up()

    def _rules_for(self, profile: PaiGowProfile) -> PaiGowRules:
        rules = self._rules.get(profile.name)
        if rules is None or rules.profile != profile:
            rules = self._rules[profile.name] = PaiGowRules(profile)
        return rules

    # ---- input ---------------------------------------------------------------------------------

    def feed(self, item: Event | RejectedLine) -> list[Alert]:
        """One event (or a rejected input line); returns the alerts it raised."""
        n0 = len(self.alerts)
        if item.__class__ is RejectedLine:  # (a class test: cheaper than isinstance on the hot path)
            return self._rejected(item, n0)
        event: Event = item  # type: ignore[assignment]  # (no cast(): a call on the hot path)
        self.events_in += 1
        lane = self._lanes.get(event.table_id)
        if lane is None:
            self.table(event.table_id)
            lane = self._lanes[event.table_id]
        table, reorderer = lane
        seq = event.seq
        if seq == reorderer.next_seq and not reorderer.waiting:
            # In order with nothing held: the common case, straight through. This is
            # Reorderer.release and TableMonitor.feed inlined (two calls fewer per event).
            released = reorderer._released
            released[seq] = event
            reorderer.next_seq = seq + 1
            if len(released) > reorderer.trim_at:
                reorderer.trim()
            rnd = table.round
            handler = rnd.handlers.get(event.type) if rnd is not None else None
            if handler is not None:
                rnd.last_media = event.media_time  # type: ignore[union-attr]
                handler(rnd, event)
            else:
                table.feed(event)
            return self.alerts[n0:] if len(self.alerts) > n0 else []
        ready, problems = self._ready, self._problems
        reorderer.push(event, ready, problems)
        if problems:
            self._report(table, problems)
        if ready:
            for e in ready:
                table.feed(e)
            ready.clear()
        return self.alerts[n0:]

    def _rejected(self, item: RejectedLine, n0: int) -> list[Alert]:
        self.rejected_in += 1
        rt = self.table(item.table_id or UNKNOWN_TABLE)
        rt.rejected(item)
        if item.table_id is not None and item.seq is not None:
            # Its seq will not come valid: stop waiting for it, and tell the round it has a hole.
            rt.data_gap()
            self._reorder[item.table_id].skip(item.seq, self._ready)
            for event in self._ready:
                rt.feed(event)
            self._ready.clear()
        return self.alerts[n0:]

    def feed_many(self, items: Iterable[Event | RejectedLine]) -> list[Alert]:
        n0 = len(self.alerts)
        for item in items:
            self.feed(item)
        return self.alerts[n0:]

    def feed_json(self, line: str, location: str = "stream") -> list[Alert]:
        """One JSON text; a bad one becomes an ``event_invalid`` alert naming ``location``."""
        item = parse_line(line, location)
        return [] if item is None else self.feed(item)

    def feed_dict(self, data: object, location: str = "stream") -> list[Alert]:
        """One already-decoded JSON object (e.g. from an HTTP body)."""
        try:
            event = parse_event(data)
        except ValidationError as exc:
            import json

            try:
                raw = json.dumps(data, default=str)
            except (TypeError, ValueError):
                raw = repr(data)
            return self.feed(reject(raw, location, exc))
        return self.feed(event)

    def _report(self, table: TableMonitor, problems: list[SequenceProblem]) -> None:
        for p in problems:
            e = p.event
            if p.kind is Problem.CONFLICT:
                assert p.first is not None
                table.sequence_alert(
                    "event_conflict", f"{e.seq}:{e.model_dump_json()}", [p.first, e],
                    {"seq": e.seq, "first": p.first.type, "second": e.type},
                )
            else:
                table.sequence_alert("event_late", f"{e.seq}", [e],
                                     {"type": e.type, "seq": e.seq, "last": p.last_released})
        problems.clear()

    def flush(self) -> list[Alert]:
        """Release every held event (gaps are given up). Call when a stream goes idle."""
        n0 = len(self.alerts)
        for table_id, reorderer in self._reorder.items():
            table = self.tables[table_id]
            reorderer.flush(self._ready)
            for event in self._ready:
                table.feed(event)
            self._ready.clear()
        return self.alerts[n0:]

    def finish(self) -> list[Alert]:
        """End of input: flush, and close every open round as incomplete (its history is kept)."""
        n0 = len(self.alerts)
        self.flush()
        for table in self.tables.values():
            table.finish()
        return self.alerts[n0:]
