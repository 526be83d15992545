"""Backpressure as two small policies, and the bounded buffer that applies them.

Files and live streams differ only in which policies they use by default:
a file waits for the consumer (nothing is lost in review), a live stream drops
the oldest frame so capture never blocks and the consumer sees the newest one.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from enum import StrEnum
from typing import Generic, TypeVar

T = TypeVar("T")


class FillPolicy(StrEnum):
    WAIT = "wait"  # the producer blocks until there is room (files: lose nothing)
    DROP_OLDEST = "drop_oldest"  # the oldest queued item is discarded (live: capture never blocks)


class ConsumePolicy(StrEnum):
    LAZY = "lazy"  # take the oldest queued item (process every frame that was kept)
    EAGER = "eager"  # take the newest item and discard older ones (stay as live as possible)


class BoundedBuffer(Generic[T]):
    """A bounded FIFO between one producer thread and consumers, with drop accounting.

    ``on_drop`` is called (outside the lock) for every item discarded by either policy.
    """

    def __init__(
        self,
        capacity: int,
        fill: FillPolicy,
        consume: ConsumePolicy,
        on_drop: Callable[[T], None] | None = None,
    ) -> None:
        if capacity < 1:
            raise ValueError(f"buffer capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self.fill = fill
        self.consume = consume
        self._items: deque[T] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._on_drop = on_drop

    def __len__(self) -> int:
        with self._cond:
            return len(self._items)

    def put(self, item: T, cancelled: Callable[[], bool] = lambda: False) -> bool:
        """Queue an item; return False if the buffer was closed or ``cancelled`` became true first."""
        dropped: list[T] = []
        with self._cond:
            while len(self._items) >= self.capacity and not self._closed:
                if self.fill is FillPolicy.DROP_OLDEST:
                    dropped.append(self._items.popleft())
                    break
                if cancelled():
                    return False
                self._cond.wait(timeout=0.1)
            if self._closed:
                return False
            self._items.append(item)
            self._cond.notify_all()
        self._report(dropped)
        return True

    def get(self, timeout: float | None = None) -> T | None:
        """The next item per the consume policy, or None on timeout / when closed and empty."""
        dropped: list[T] = []
        with self._cond:
            if not self._cond.wait_for(lambda: self._items or self._closed, timeout=timeout):
                return None
            if not self._items:
                return None
            if self.consume is ConsumePolicy.EAGER:
                while len(self._items) > 1:
                    dropped.append(self._items.popleft())
            item = self._items.popleft()
            self._cond.notify_all()
        self._report(dropped)
        return item

    def close(self) -> None:
        """No more items will come; consumers drain what is queued, then get None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def _report(self, dropped: list[T]) -> None:
        if self._on_drop is not None:
            for item in dropped:
                self._on_drop(item)
