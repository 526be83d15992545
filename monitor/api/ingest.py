"""The ingest pipeline: events in, alerts stored and pushed, the sender answered after commit.

Requests put their events on one queue; a single writer takes everything queued (up to
``batch_max`` events' worth of requests), feeds the events to the procedure monitor, writes
events, alerts, audit entries, hand histories and webhook outbox rows in ONE transaction
(a group commit), and only then answers each request and pushes the new alerts live. A
sensor that got its answer therefore knows its events and their alerts survive a crash.

If a commit fails, the monitor's in-memory state has run ahead of the store: it is rebuilt
by replaying the stored events, and the senders get an error so they resend.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from monitor.api.hub import LiveHub
from monitor.api.metrics import Metrics
from monitor.api.schemas import AlertSummary, IngestResult
from monitor.api.settings import WebhookTarget
from monitor.api.webhooks import outbox
from monitor.events.schema import Event, parse_event
from monitor.procedure.feed_contract import FeedOutput, ProcedureFeed
from monitor.rules.table_profile import profile_summary
from monitor.store.event_writer import EventWriter
from monitor.store.models import EventRow, TableRow

log = logging.getLogger("monitor.api.ingest")

# Rounds of each table replayed into the monitor on start-up. A round is judged with what came before
# it: the bank's rotation (Livermore rules 3, 40) remembers who wagered over the last hands (as many as
# the table has seats) and how many hands in a row the banker has held, so the current round alone
# would let a restarted server miss an ineligible banker that the table's own run caught.
REPLAY_ROUNDS = 24


class IngestUnavailable(RuntimeError):
    """The store could not commit; nothing of the request was kept. The sender should retry."""


@dataclass(eq=False)
class _Job:
    events: Sequence[Event]
    received: float
    future: asyncio.Future[IngestResult]
    flush: bool = False


@dataclass
class _Done:
    result: IngestResult
    pushed: list[dict[str, Any]] = field(default_factory=list)


class IngestPipeline:
    def __init__(self, sessions: sessionmaker[Session], feed_factory: Callable[[], ProcedureFeed],
                 hub: LiveHub, metrics: Metrics, targets: Sequence[WebhookTarget], *, batch_max: int = 2000,
                 on_outbox: Callable[[set[str]], None] | None = None) -> None:
        self._sessions = sessions
        self._feed_factory = feed_factory
        self._feed = feed_factory()
        self._hub = hub
        self._metrics = metrics
        self._targets = list(targets)
        self._batch_max = batch_max
        self._on_outbox = on_outbox
        self._queue: asyncio.Queue[_Job] = asyncio.Queue()
        # One thread owns the monitor and the write transaction: the monitor is not thread-safe,
        # and one writer is what SQLite wants anyway.
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="ingest-writer")
        self._states: dict[str, dict[str, Any]] = {}
        self._profiles: dict[str, dict[str, Any]] = {}  # table -> what the dashboard shows of it

    def _profile(self, table_id: str) -> dict[str, Any]:
        """The summary of the profile the feed judges ``table_id`` by."""
        try:
            return self._profiles[table_id]
        except KeyError:
            pass
        out = self._profiles[table_id] = profile_summary(self._feed.profile_for(table_id))
        return out

    # ------------------------------------------------------------------ start-up

    def recover(self) -> int:
        """Load table states and replay each table's last ``REPLAY_ROUNDS`` rounds into a fresh monitor."""
        self._feed = self._feed_factory()
        self._profiles.clear()
        self._feed.warm_up()
        with self._sessions() as session:
            self._states = {row.id: dict(row.state) for row in session.execute(select(TableRow)).scalars()}
            # Where each table's replay starts: the REPLAY_ROUNDS-th last round start (a table with fewer
            # rounds from its first event).
            nth = (select(EventRow.table_id, EventRow.id, func.row_number().over(
                partition_by=EventRow.table_id, order_by=EventRow.id.desc()).label("n"))
                   .where(EventRow.kind == "round_started").subquery())
            starts = dict(session.execute(select(nth.c.table_id, func.min(nth.c.id))
                                          .where(nth.c.n <= REPLAY_ROUNDS).group_by(nth.c.table_id)).all())
            replayed = 0
            stmt = select(EventRow).order_by(EventRow.id).execution_options(yield_per=2000)
            for row in session.execute(stmt).scalars():
                if row.id < starts.get(row.table_id, 0):
                    continue  # before the table's current round: the monitor does not need it
                self._feed.push(parse_event(row.payload))
                replayed += 1
        return replayed

    async def start(self) -> int:
        return await asyncio.get_running_loop().run_in_executor(self._executor, self.recover)

    def close(self) -> None:
        self._executor.shutdown(wait=True)

    # ------------------------------------------------------------------ requests

    async def submit(self, events: Sequence[Event], received: float | None = None) -> IngestResult:
        """Queue ``events`` and wait until they are committed (or the commit failed)."""
        future: asyncio.Future[IngestResult] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Job(events, time.monotonic() if received is None else received, future))
        return await future

    async def run(self, idle_flush_s: float = 5.0) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                first = await asyncio.wait_for(self._queue.get(), timeout=idle_flush_s)
            except TimeoutError:
                # Quiet: stop waiting for sequence numbers that did not come (the monitor holds the
                # events after a gap) so their alerts are not stuck until the next event.
                first = _Job((), time.monotonic(), loop.create_future(), flush=True)
            jobs = [first]
            count = len(jobs[0].events)
            while not first.flush and count < self._batch_max and not self._queue.empty():
                job = self._queue.get_nowait()
                jobs.append(job)
                count += len(job.events)
            started = time.perf_counter()
            try:
                done, snapshots = await loop.run_in_executor(self._executor, self._process, jobs)
            except Exception:
                log.exception("ingest commit failed; rebuilding the monitor from the store")
                await loop.run_in_executor(self._executor, self._recover_quietly)
                for job in jobs:
                    if not job.future.done():
                        job.future.set_exception(IngestUnavailable("the store could not commit; retry"))
                continue
            self._metrics.commit_seconds.observe(time.perf_counter() - started)
            self._metrics.batch_size.observe(count)
            self._after_commit(jobs, done, snapshots)

    def _recover_quietly(self) -> None:
        try:
            self.recover()
        except Exception:
            log.exception("rebuilding the monitor failed")

    def _after_commit(self, jobs: list[_Job], done: list[_Done],
                      snapshots: dict[str, dict[str, Any]]) -> None:
        outbox_targets: set[str] = set()
        # The commit's alerts go out together: one queue entry (and, batched, one write) per client.
        self._hub.publish_many([("alert", summary, summary["table_id"]) for result in done
                                for summary in result.pushed])
        for job, result in zip(jobs, done, strict=True):
            for summary in result.pushed:
                self._metrics.alerts.labels(summary["severity"]).inc()
                self._metrics.event_to_push.observe(time.monotonic() - job.received)
                outbox_targets.update(t.name for t in self._targets if outbox.wants(t, summary["severity"]))
            self._metrics.events.inc(result.result.accepted)
            self._metrics.duplicates.inc(result.result.duplicates)
            self._metrics.rate.add(result.result.accepted)
            if not job.future.done():
                job.future.set_result(result.result)
        for table_id, state in snapshots.items():
            self._hub.table_changed(table_id, state)
        if outbox_targets and self._on_outbox is not None:
            self._on_outbox(outbox_targets)

    # ------------------------------------------------------------------ the writer thread

    def _process(self, jobs: list[_Job]) -> tuple[list[_Done], dict[str, dict[str, Any]]]:
        results: list[_Done] = []
        with self._sessions() as session, session.begin():
            # Everything is gathered in memory and written with a few multi-row statements at the
            # end (EventWriter over a WriteBatch); resent events are found with one query per table.
            writer = EventWriter(session, self._states)
            writer.look_up(e for j in jobs for e in j.events)
            raised: list[tuple[_Done, str]] = []  # which request raised which alert, in order
            for job in jobs:
                done = _Done(IngestResult(accepted=0, duplicates=0, alerts=[]))
                for event in job.events:
                    if writer.event(event, self._profile(event.table_id)):
                        done.result.accepted += 1
                    else:
                        done.result.duplicates += 1
                    # Resends go to the monitor too: it tells an identical resend from a conflicting one.
                    self._collect(writer, self._feed.push(event), done, raised)
                if job.flush:
                    self._collect(writer, self._feed.flush(), done, raised)
                results.append(done)
            # The states are copied per table: one copy serves the store and the live push, while
            # the writer thread keeps folding its own states after this batch.
            new_rows, snapshots = writer.write()
            outbox.enqueue_many(session, new_rows, self._targets)
        by_id = {row.id: row for row in new_rows}
        for done, alert_id in raised:
            row = by_id.pop(alert_id, None)  # None: known already (a resend), or raised twice in the batch
            if row is not None:
                done.result.alerts.append(row.id)
                done.pushed.append(AlertSummary.of(row).model_dump(mode="json"))
        return results, snapshots

    @staticmethod
    def _collect(writer: EventWriter, out: FeedOutput, done: _Done, raised: list[tuple[_Done, str]]) -> None:
        for alert in out.alerts:
            raised.append((done, writer.alert(alert)))
        for history in out.histories:
            writer.history(table_id=history.table_id, round_ref=history.round_id, game=history.game,
                           history=history.data)
