"""A live stream into the monitor: other layers push events, subscribers receive alerts and histories.

The live pipeline (table state) and the API push events as models, dicts or JSON text, from
any thread; a lock keeps the monitor single-threaded inside. Subscribers are plain callables
(called on the pushing thread) or asyncio queues (filled on their own loop). A subscriber that
raises is logged and counted, never allowed to stop the monitor.

>>> feed = StreamFeed()
>>> got = []
>>> _ = feed.subscribe_alerts(got.append)
>>> _ = feed.push('{"type": "nonsense"}')
>>> got[0].code
'event_invalid'
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from monitor.alerts.model import Alert
from monitor.events.jsonl import RejectedLine
from monitor.events.schema import EventBase
from monitor.procedure.history import HandHistory
from monitor.procedure.monitor import Monitor

log = logging.getLogger(__name__)
T = TypeVar("T")


class _Fanout(Generic[T]):
    def __init__(self, name: str) -> None:
        self.name = name
        self.callbacks: list[Callable[[T], None]] = []
        self.errors = 0

    def add(self, cb: Callable[[T], None]) -> Callable[[], None]:
        self.callbacks.append(cb)

        def remove() -> None:
            if cb in self.callbacks:
                self.callbacks.remove(cb)

        return remove

    def __call__(self, item: T) -> None:
        for cb in list(self.callbacks):
            try:
                cb(item)
            except Exception:  # a subscriber's bug must not stop the monitor
                self.errors += 1
                log.exception("%s subscriber %r failed", self.name, cb)


def queue_callback(queue: asyncio.Queue[Any], loop: asyncio.AbstractEventLoop) -> Callable[[Any], None]:
    """A subscriber that puts each item on an asyncio queue owned by ``loop`` (drops when full)."""

    def put(item: Any) -> None:
        def _put() -> None:
            try:
                queue.put_nowait(item)
            except asyncio.QueueFull:
                log.warning("alert queue full: dropped %s", getattr(item, "id", item))

        loop.call_soon_threadsafe(_put)

    return put


class StreamFeed:
    """Push events in (thread-safe); subscribe to alerts and hand histories."""

    def __init__(self, monitor: Monitor | None = None, **monitor_options: Any) -> None:
        self.alerts_out: _Fanout[Alert] = _Fanout("alert")
        self.histories_out: _Fanout[HandHistory] = _Fanout("history")
        if monitor is None:
            monitor = Monitor(on_alert=self.alerts_out, on_history=self.histories_out, **monitor_options)
        else:
            monitor._on_alert = self.alerts_out
            monitor._on_history = self.histories_out
        self.monitor = monitor
        self._lock = threading.Lock()
        self._pushed = 0

    def subscribe_alerts(self, callback: Callable[[Alert], None]) -> Callable[[], None]:
        """Call ``callback`` with every new alert; returns a function that unsubscribes."""
        return self.alerts_out.add(callback)

    def subscribe_histories(self, callback: Callable[[HandHistory], None]) -> Callable[[], None]:
        return self.histories_out.add(callback)

    def alert_queue(self, maxsize: int = 1000) -> tuple[asyncio.Queue[Alert], Callable[[], None]]:
        """An asyncio queue on the running loop that receives every new alert (for SSE/WebSocket)."""
        queue: asyncio.Queue[Alert] = asyncio.Queue(maxsize)
        remove = self.subscribe_alerts(queue_callback(queue, asyncio.get_running_loop()))
        return queue, remove

    def push(self, item: EventBase | RejectedLine | dict[str, Any] | str | bytes,
             location: str | None = None) -> list[Alert]:
        """One event as a model, a decoded JSON object or JSON text; returns the alerts it raised."""
        with self._lock:
            self._pushed += 1
            where = location or f"stream item {self._pushed}"
            if isinstance(item, str | bytes):
                text = item.decode("utf-8", errors="replace") if isinstance(item, bytes) else item
                return self.monitor.feed_json(text, where)
            if isinstance(item, dict):
                return self.monitor.feed_dict(item, where)
            return self.monitor.feed(item)  # type: ignore[arg-type]

    def warm_up(self) -> None:
        """Build the rules' tables at start-up rather than on the first event (see ``Monitor.warm_up``)."""
        with self._lock:
            self.monitor.warm_up()

    def flush(self) -> list[Alert]:
        """Release events held for reordering (call when the stream goes quiet)."""
        with self._lock:
            return self.monitor.flush()

    def close(self) -> list[Alert]:
        """End of stream: flush and close open rounds (their histories are published)."""
        with self._lock:
            return self.monitor.finish()
