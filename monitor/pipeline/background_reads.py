"""Zone reads that run beside the live chain instead of inside its frame step.

The banker's place is read along its rows and its boxes (~70 ms quiet, 250+ ms beside the detector
on two cores): read inside the step, it held every event of that frame back, an exposure found
without it included (data/e2e/paigow_banker_opened_early: 271 ms). Read on this worker, the step goes
on and the read joins a later frame's, as soon as it is done. One read at a time, in order: the chain
asks for a zone's read once per settled picture.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
Key = tuple[str, int, bool]  # (zone, its picture's version, read at the full settle)


class BackgroundReads(Generic[T]):
    def __init__(self, failed: Callable[[], T]) -> None:
        """``failed``: makes what a read that raised gives (logged; the chain goes on without it)."""
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="zone-read")
        self._pending: dict[Key, Future[T]] = {}
        self._failed = failed

    def submit(self, key: Key, read: Callable[[], T]) -> None:
        """Start ``read`` unless a read under ``key`` is already under way."""
        if key not in self._pending:
            self._pending[key] = self._pool.submit(read)

    def pending(self, key: Key) -> bool:
        return key in self._pending

    def done(self, wait: bool = False) -> list[tuple[Key, T]]:
        """The reads finished since last asked, in the order asked for (``wait``: all of them, waiting)."""
        out: list[tuple[Key, T]] = []
        for key, fut in list(self._pending.items()):
            if not wait and not fut.done():
                break  # in order: a later read is not taken before an earlier one
            del self._pending[key]
            try:
                out.append((key, fut.result()))
            except Exception as e:  # a bad picture or a model error: logged, and the chain goes on
                log.warning("background read %s failed: %s: %s", key, type(e).__name__, e)
                out.append((key, self._failed()))
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pending.clear()
