"""The procedure monitor (:class:`monitor.procedure.monitor.Monitor`) behind the feed contract
(:class:`monitor.procedure.feed_contract.ProcedureFeed`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from monitor.alerts.model import Alert
from monitor.events.schema import Event
from monitor.procedure.feed_contract import FeedOutput, HistoryRecord
from monitor.procedure.monitor import Monitor
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile


class StreamFeedAdapter:
    def __init__(self, profiles: Mapping[str, PaiGowProfile] | None = None,
                 profile: PaiGowProfile = DEFAULT_PROFILE) -> None:
        """``profiles``: each table's rule profile (from its table file); other tables get ``profile``."""
        self._histories: list[Any] = []
        self.monitor = Monitor(profile=profile, profiles=profiles, on_history=self._histories.append)

    def profile_for(self, table_id: str) -> PaiGowProfile:
        return self.monitor.profile_for(table_id)

    def warm_up(self) -> None:
        """Run one empty round through a throwaway monitor: the rules compile their fast paths
        (numba) on first use, which takes seconds; better at start-up than on the first event.
        Then build this monitor's score tables (``Monitor.warm_up``), else the first hand set at a
        table pays for them."""
        self.monitor.warm_up()
        from datetime import UTC, datetime

        from monitor.events.schema import RoundEnded, RoundStarted, Source

        now = datetime.now(UTC)
        scratch = Monitor()
        scratch.feed(RoundStarted(table_id="warm-up", seq=0, media_time=0, wall_time=now, source=Source.FILE,
                                  round_id="warm-up", banker_seat=1))
        scratch.feed(RoundEnded(table_id="warm-up", seq=1, media_time=0, wall_time=now, source=Source.FILE))

    def push(self, event: Event) -> FeedOutput:
        return self._output(self.monitor.feed(event))

    def flush(self) -> FeedOutput:
        return self._output(self.monitor.flush())

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
        # server that runs for weeks); once handed to the store they are not needed here.
        self.monitor.alerts.clear()
        self.monitor.histories.clear()
        for table in self.monitor.tables.values():
            table.histories.clear()
            table.sink.alerts.clear()
