"""Putting one table's events back in sequence order, and recognising resends.

Events may arrive out of order (several sources, network retries) or twice (a resend).
A stream that starts at seq 0 is released from its first event; one joined later (first seq
above 0) is released once ``window`` events are held, from the lowest seq seen.
The reorderer releases events strictly by ``seq``: the next expected one at once, later ones
held until the gap is filled. If more than ``window`` events are held, the gap is given up
(the missing events are taken as lost) and the held ones are released in order. An event
whose ``seq`` was already released is either an identical resend (dropped silently), a
conflicting resend (reported), or late (reported; the monitor cannot rewind).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from monitor.events.schema import Event


class Problem(StrEnum):
    CONFLICT = "conflict"
    LATE = "late"


@dataclass(frozen=True, slots=True)
class SequenceProblem:
    kind: Problem
    event: Event
    # For a conflict: the event first released under that seq. For late: None.
    first: Event | None
    last_released: int


class Reorderer:
    """Releases events of one table in ``seq`` order (see module doc)."""

    def __init__(
        self, window: int = 64, memory: int = 4096, on_gap: Callable[[], None] | None = None
    ) -> None:
        if window < 0 or memory < 1:
            raise ValueError(f"window must be >= 0 and memory >= 1, got {window}, {memory}")
        self.window = window
        self.memory = memory
        self.next_seq: int | None = None
        # Heap of (seq, event) held until the gap before them fills; read directly on the hot path.
        self.waiting: list[tuple[int, Event]] = []
        self._held_seqs: dict[int, Event] = {}
        self._released: dict[int, Event] = {}
        self.trim_at = 2 * memory
        self.gaps = 0  # sequence numbers given up as lost
        self._skipped: set[int] = set()
        # Told before events after a gap are released, so a round knows its record has a hole.
        self.on_gap = on_gap

    def push(self, event: Event, out: list[Event], problems: list[SequenceProblem]) -> None:
        """Add one event; append what can be released now to ``out`` and any problem to ``problems``."""
        seq = event.seq
        nxt = self.next_seq
        if nxt is None and seq == 0:
            nxt = self.next_seq = 0
        if seq == nxt and not self.waiting:
            # The common case: in order, nothing held.
            self.release(event)
            out.append(event)
            return
        if nxt is not None and seq < nxt:
            first = self._released.get(seq)
            if first is None:
                problems.append(SequenceProblem(Problem.LATE, event, None, nxt - 1))
            elif first != event:
                problems.append(SequenceProblem(Problem.CONFLICT, event, first, nxt - 1))
            return
        held = self._held_seqs.get(seq)
        if held is not None:
            if held != event:
                problems.append(SequenceProblem(Problem.CONFLICT, event, held, (nxt or 0) - 1))
            return
        heapq.heappush(self.waiting, (seq, event))
        self._held_seqs[seq] = event
        self._drain(out)
        while len(self.waiting) > self.window:
            self._give_up(out)

    def skip(self, seq: int, out: list[Event]) -> None:
        """``seq`` will never come as a valid event (its line was rejected): do not wait for it."""
        nxt = self.next_seq
        if nxt is None or seq < nxt or seq in self._held_seqs:
            return
        self._skipped.add(seq)
        self._drain(out)

    def flush(self, out: list[Event]) -> None:
        """Release everything held, in order, giving up on any gaps (end of a file, or idle stream)."""
        while self.waiting:
            self._give_up(out)

    def _give_up(self, out: list[Event]) -> None:
        """Jump over the missing events to the oldest held one."""
        first = self.waiting[0][0]
        # Joining a stream that did not start at 0: its first held event is where we start, no gap.
        missing = 0
        if self.next_seq is not None:
            missing = first - self.next_seq - sum(1 for s in self._skipped if s < first)
        if missing > 0:
            self.gaps += missing
            if self.on_gap is not None:
                self.on_gap()
        self.next_seq = first
        self._drain(out)

    @property
    def held(self) -> int:
        """How many events are held waiting for a gap to fill."""
        return len(self.waiting)

    @property
    def remembered(self) -> int:
        """How many released events are kept to tell a resend from a conflict (``memory`` to twice that:
        trimmed in one go, not on every release)."""
        return len(self._released)

    def _drain(self, out: list[Event]) -> None:
        held = self.waiting
        skipped = self._skipped
        while True:
            if skipped and self.next_seq in skipped:
                skipped.discard(self.next_seq)
                assert self.next_seq is not None
                self.next_seq += 1
                continue
            if not (held and held[0][0] == self.next_seq):
                break
            _, event = heapq.heappop(held)
            del self._held_seqs[event.seq]
            self.release(event)
            out.append(event)
        if skipped and self.next_seq is not None:
            skipped.difference_update([s for s in skipped if s < self.next_seq])

    def release(self, event: Event) -> None:
        """Mark ``event`` (the next in sequence) as released (``Monitor.feed`` inlines this)."""
        seq = event.seq
        self._released[seq] = event
        self.next_seq = seq + 1
        if len(self._released) > self.trim_at:
            self.trim()

    def trim(self) -> None:
        """Keep the newest ``memory`` released seqs (amortised: one sort per ``memory`` releases)."""
        released = self._released
        keep = sorted(released)[-self.memory :]
        self._released = {s: released[s] for s in keep}
