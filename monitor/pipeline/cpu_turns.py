"""Inference stages of a live chain taking turns on the CPU, in the order the frames need them.

On two cores each stage's inference runs on both (the detector, the fan reader). Run side by side,
the perception of the next frame and the hand reads of this frame's table-state step each took 2-3x
their time alone (a seat read: ~35 ms alone, 75-130 ms beside the detector; thread pools spinning
for cores the other holds), and the alert waiting on the read came ~0.1 s later. So the live chain
hands out turns like tickets at a counter: a frame's perception, then that frame's table-state step,
then the next frame's perception, a read run beside the chain when its step asked for it. Each stage
runs alone at full speed; capture is never held (the camera's own thread, newest frame wins).

A ticket is taken when its place in the order is known (a step's when its frame is queued, so the next
frame's perception comes after it) and given back when its stage has run or will not (a frame dropped
from the queue). A turn not served within ``patience_s`` is taken anyway (logged): a stage that died
holding tickets must not stop the others.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)


class CpuTurns:
    def __init__(self, patience_s: float = 2.0) -> None:
        self.patience_s = patience_s
        self._cv = threading.Condition()
        self._next = 0  # the next ticket handed out
        self._serving = 0  # the ticket whose turn it is
        self._returned: set[int] = set()  # tickets given back before their turn came
        self._closed = False
        self.late = 0  # turns taken out of order after waiting patience_s

    def ticket(self) -> int:
        with self._cv:
            t = self._next
            self._next += 1
            return t

    def done(self, ticket: int | None) -> None:
        """Give ``ticket`` back: its stage ran, or will not (a frame dropped before its step)."""
        if ticket is None:
            return
        with self._cv:
            self._returned.add(ticket)
            while self._serving in self._returned:
                self._returned.discard(self._serving)
                self._serving += 1
            self._cv.notify_all()

    @contextmanager
    def turn(self, ticket: int | None) -> Iterator[None]:
        """Run the block when ``ticket``'s turn comes (None: at once), then give the ticket back."""
        if ticket is None:
            yield
            return
        with self._cv:
            served = self._cv.wait_for(lambda: self._closed or self._serving >= ticket, self.patience_s)
            if not served:
                self.late += 1
                log.warning("cpu turn %d not served after %.1f s (serving %d): taken anyway", ticket,
                            self.patience_s, self._serving)
        try:
            yield
        finally:
            self.done(ticket)

    def close(self) -> None:
        """Every waiting turn goes ahead (the run is stopping)."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
