"""Live push: fan a message out to every connected WebSocket / SSE client.

Each client has its own bounded queue, so one slow client never holds back the others: when
its queue is full it is disconnected (and told why) rather than silently skipped, so a client
either receives every alert or knows it must resynchronise over REST.
Table states change with nearly every event, so they are coalesced per table and pushed at
most every ``table_push_interval_s``; alerts are pushed at once.

A message is encoded once (JSON, and the SSE form on first use) however many clients get it.
Messages published together (a commit's alerts) are one queue entry per client, and senders
write everything waiting in one go (see :func:`batch_text`), so under load the cost per client
grows with the number of commits, not the number of alerts. A client's queue bound counts
these entries.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("monitor.api.hub")

CLOSE = object()  # sentinel: the hub dropped this client


class Message:
    """One pushed message, encoded once for every client: ``{"type": kind, "data": data}``."""

    __slots__ = ("_sse", "data_json", "kind", "text")

    def __init__(self, kind: str, data: Any) -> None:
        self.kind = kind
        self.data_json = json.dumps(data, separators=(",", ":"))
        self.text = f'{{"type":{json.dumps(kind)},"data":{self.data_json}}}'
        self._sse: bytes | None = None

    @property
    def sse(self) -> bytes:
        """The message as one Server-Sent Event (compact JSON has no newline to escape)."""
        if self._sse is None:
            self._sse = f"event: {self.kind}\r\ndata: {self.data_json}\r\n\r\n".encode()
        return self._sse


class Group:
    """Messages published together (one commit's alerts, one flush's table states): queued once
    per client, and for a batching client written as one text that all clients share."""

    __slots__ = ("_sse", "_text", "messages")

    def __init__(self, messages: tuple[Message, ...]) -> None:
        self.messages = messages
        self._text: str | None = None
        self._sse: bytes | None = None

    @property
    def text(self) -> str:
        """The group as one WebSocket message (see :func:`batch_text`), built once."""
        if self._text is None:
            if len(self.messages) == 1:
                self._text = self.messages[0].text
            else:
                self._text = '{"type":"batch","data":[' + ",".join(m.text for m in self.messages) + "]}"
        return self._text

    @property
    def sse(self) -> bytes:
        if self._sse is None:
            self._sse = b"".join(m.sse for m in self.messages)
        return self._sse


def batch_text(groups: list[Group]) -> str:
    """Groups as one WebSocket message: ``{"type": "batch", "data": [message, ...]}`` (a single
    message is sent as itself)."""
    if len(groups) == 1:
        return groups[0].text  # shared by every client that had only this group waiting
    return '{"type":"batch","data":[' + ",".join(m.text for g in groups for m in g.messages) + "]}"


def drain(queue: asyncio.Queue[Any], first: Any, limit: int) -> tuple[list[Group], bool]:
    """``first`` and whatever else is already queued (up to ``limit`` groups); True if CLOSE was
    among them."""
    groups: list[Group] = []
    item = first
    while True:
        if item is CLOSE:
            return groups, True
        groups.append(item)
        if len(groups) >= limit or queue.empty():
            return groups, False
        item = queue.get_nowait()


@dataclass(eq=False)
class Subscriber:
    id: int
    name: str
    queue: asyncio.Queue[Any]
    dropped: bool = False
    tables: frozenset[str] | None = None  # None: every table


@dataclass
class LiveHub:
    queue_size: int = 10_000
    table_push_interval_s: float = 0.25
    on_drop: Callable[[Subscriber], None] | None = None
    _subs: dict[int, Subscriber] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _dirty_tables: dict[str, dict[str, Any]] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None

    @property
    def clients(self) -> int:
        return len(self._subs)

    def subscribe(self, name: str, tables: frozenset[str] | None = None) -> Subscriber:
        sub = Subscriber(next(self._ids), name, asyncio.Queue(self.queue_size), tables=tables)
        self._subs[sub.id] = sub
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subs.pop(sub.id, None)

    def _deliver(self, messages: list[tuple[Message, str | None]]) -> int:
        """Queue ``messages`` (each with its table, if any) for every client that wants them."""
        everything = Group(tuple(m for m, _ in messages))
        delivered = 0
        for sub in list(self._subs.values()):
            group = everything
            if sub.tables is not None:
                wanted = tuple(m for m, table_id in messages if table_id is None or table_id in sub.tables)
                if not wanted:
                    continue
                if len(wanted) < len(messages):
                    group = Group(wanted)
            try:
                sub.queue.put_nowait(group)
                delivered += 1
            except asyncio.QueueFull:
                self._drop(sub)
        return delivered

    def _drop(self, sub: Subscriber) -> None:
        log.warning("live client %s (%s) fell %d messages behind; disconnecting it", sub.id, sub.name,
                    self.queue_size)
        sub.dropped = True
        self.unsubscribe(sub)
        # Make room for the sentinel so the client's sender wakes up and closes the connection.
        while True:
            try:
                sub.queue.get_nowait()
            except asyncio.QueueEmpty:
                break
        sub.queue.put_nowait(CLOSE)
        if self.on_drop is not None:
            self.on_drop(sub)

    def publish(self, kind: str, data: Any, *, table_id: str | None = None) -> int:
        """Push ``{"type": kind, "data": data}`` to every client now; returns how many got it."""
        return self._deliver([(Message(kind, data), table_id)])

    def publish_many(self, items: list[tuple[str, Any, str | None]]) -> int:
        """Publish ``(kind, data, table_id)`` items together (one queue entry per client)."""
        if not items:
            return 0
        return self._deliver([(Message(kind, data), table_id) for kind, data, table_id in items])

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def publish_threadsafe(self, kind: str, data: Any, *, table_id: str | None = None) -> None:
        """``publish`` from a worker thread (sync route handlers run in a thread pool)."""
        loop = self._loop
        if loop is None:
            raise RuntimeError("the hub is not bound to an event loop (call bind_loop at start-up)")
        loop.call_soon_threadsafe(lambda: self.publish(kind, data, table_id=table_id))

    def table_changed(self, table_id: str, state: dict[str, Any]) -> None:
        """Remember the newest state; the flusher pushes it within ``table_push_interval_s``."""
        self._dirty_tables[table_id] = state

    def flush_tables(self) -> int:
        dirty, self._dirty_tables = self._dirty_tables, {}
        self.publish_many([("table", state, table_id) for table_id, state in dirty.items()])
        return len(dirty)

    async def run_flusher(self) -> None:
        while True:
            await asyncio.sleep(self.table_push_interval_s)
            self.flush_tables()

    def close_all(self) -> None:
        for sub in list(self._subs.values()):
            self.unsubscribe(sub)
            with contextlib.suppress(asyncio.QueueFull):
                sub.queue.put_nowait(CLOSE)
