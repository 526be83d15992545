"""The procedure monitor behind the feed contract: one event in, its alerts and finished hand histories out.

:class:`MonitorFeed` is the one wrapper around :class:`monitor.procedure.monitor.Monitor` the product
uses. The API's ingest pushes into it (``table-monitor serve``, and ``run``'s embedded server, where
:class:`monitor.pipeline.snapshots.SnapshotFeed` wraps it to attach a picture to each alert), and so
does a review (``starts_mid_stream``: a file, or one resumed from a checkpoint, starts at its own
sequence number). Pushes may come from any thread; a lock keeps the monitor single-threaded inside.

>>> from monitor.events.jsonl import parse_line
>>> feed = MonitorFeed()
>>> [a.code for a in feed.push(parse_line('{"type": "nonsense"}', "typed line")).alerts]
['event_invalid']
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from monitor.alerts.model import Alert
from monitor.events.jsonl import RejectedLine
from monitor.events.schema import Event
from monitor.procedure.feed_contract import FeedOutput, HistoryRecord
from monitor.procedure.history import HandHistory
from monitor.procedure.monitor import Monitor
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile


class MonitorFeed:
    """A :class:`~monitor.procedure.feed_contract.ProcedureFeed` over one :class:`Monitor`.

    What it hands out it forgets: the monitor's own lists of alerts and histories are emptied once
    returned (the store keeps them), so a server that runs for weeks does not grow with them.
    """

    def __init__(self, profiles: Mapping[str, PaiGowProfile] | None = None,
                 profile: PaiGowProfile = DEFAULT_PROFILE, *, starts_mid_stream: bool = False) -> None:
        """``profiles``: each table's rule profile (from its table file); other tables get ``profile``.
        ``starts_mid_stream``: the first event is released at once, whatever its sequence number,
        rather than held until the reorder window fills (there is nothing before it to wait for)."""
        self._histories: list[HandHistory] = []
        self.monitor = Monitor(profile=profile, profiles=profiles, on_history=self._histories.append)
        self._lock = threading.Lock()
        self._release_first = starts_mid_stream

    def profile_for(self, table_id: str) -> PaiGowProfile:
        return self.monitor.profile_for(table_id)

    def warm_up(self) -> None:
        """Run one empty round through a throwaway monitor: the rules compile their fast paths
        (numba) on first use, which takes seconds; better at start-up than on the first event.
        Then build this monitor's score tables (``Monitor.warm_up``), else the first hand set at a
        table pays for them."""
        from datetime import UTC, datetime

        from monitor.events.schema import RoundEnded, RoundStarted, Source

        with self._lock:
            self.monitor.warm_up()
        now = datetime.now(UTC)
        scratch = Monitor()
        scratch.feed(RoundStarted(table_id="warm-up", seq=0, media_time=0, wall_time=now, source=Source.FILE,
                                  round_id="warm-up", banker_seat=1))
        scratch.feed(RoundEnded(table_id="warm-up", seq=1, media_time=0, wall_time=now, source=Source.FILE))

    def push(self, event: Event | RejectedLine) -> FeedOutput:
        """One event (or a rejected input line): the alerts it raised, the histories it finished."""
        with self._lock:
            alerts = self.monitor.feed(event)
            if self._release_first:
                self._release_first = False
                alerts = [*alerts, *self.monitor.flush()]
            return self._output(alerts)

    def flush(self) -> FeedOutput:
        """Release events held for a missing sequence number (call when the stream goes quiet)."""
        with self._lock:
            return self._output(self.monitor.flush())

    def close(self) -> FeedOutput:
        """End of the stream: held events are released and every open round is closed as incomplete
        (its history is handed out, marked so)."""
        with self._lock:
            return self._output(self.monitor.finish())

    def _output(self, alerts: list[Alert]) -> FeedOutput:
        out = FeedOutput(alerts=list(alerts))
        if self._histories:
            out.histories = [
                HistoryRecord(table_id=h.table_id, round_id=h.round_id, game=getattr(h.game, "value", h.game),
                              data=h.model_dump(mode="json"))
                for h in self._histories
            ]
            self._histories.clear()
        if out.alerts or out.histories:  # nothing else grows the lists _trim empties
            self._trim()
        return out

    def _trim(self) -> None:
        # The monitor keeps every alert and history it produced (fine for a replay, a leak for a
        # server); once handed out they are not needed here (an alert's id stays known to its
        # table's sink, so it is still raised only once).
        self.monitor.alerts.clear()
        self.monitor.histories.clear()
        for table in self.monitor.tables.values():
            table.histories.clear()
            table.sink.alerts.clear()
