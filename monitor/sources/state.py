"""The life cycle of a source as an explicit state machine.

Allowed transitions are named sets, so a wrong call (reading before start,
starting twice) fails with an error that says which state the source was in.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from enum import StrEnum


class SourceState(StrEnum):
    NOT_STARTED = "not_started"
    CONNECTING = "connecting"
    RUNNING = "running"
    RECONNECTING = "reconnecting"
    ENDED = "ended"
    ERROR = "error"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_STATES


TERMINAL_STATES = frozenset({SourceState.ENDED, SourceState.ERROR})

# state -> states it may move to
TRANSITIONS: dict[SourceState, frozenset[SourceState]] = {
    SourceState.NOT_STARTED: frozenset({SourceState.CONNECTING, SourceState.ENDED}),
    SourceState.CONNECTING: frozenset(
        {SourceState.RUNNING, SourceState.RECONNECTING, SourceState.ENDED, SourceState.ERROR}
    ),
    SourceState.RUNNING: frozenset({SourceState.RECONNECTING, SourceState.ENDED, SourceState.ERROR}),
    SourceState.RECONNECTING: frozenset({SourceState.RUNNING, SourceState.ENDED, SourceState.ERROR}),
    SourceState.ENDED: frozenset(),
    SourceState.ERROR: frozenset(),
}

# public calls -> states in which they are allowed
START_ALLOWED = frozenset({SourceState.NOT_STARTED})
READ_ALLOWED = frozenset(SourceState) - {SourceState.NOT_STARTED}


class SourceStateError(RuntimeError):
    """A call or transition that the source's current state does not allow."""

    def __init__(self, source_id: str, action: str, state: SourceState) -> None:
        super().__init__(f"source {source_id!r}: cannot {action} while {state.value}")
        self.source_id = source_id
        self.action = action
        self.state = state


class StateMachine:
    """Thread-safe holder of a source's state; every change goes through ``move``."""

    def __init__(self, source_id: str, on_change: Callable[[SourceState, SourceState], None]) -> None:
        self._source_id = source_id
        self._state = SourceState.NOT_STARTED
        self._lock = threading.Lock()
        self._on_change = on_change

    @property
    def state(self) -> SourceState:
        return self._state

    def require(self, action: str, allowed: frozenset[SourceState]) -> None:
        if self._state not in allowed:
            raise SourceStateError(self._source_id, action, self._state)

    def move(self, new: SourceState) -> None:
        with self._lock:
            old = self._state
            if new not in TRANSITIONS[old]:
                raise SourceStateError(self._source_id, f"move to {new.value}", old)
            self._state = new
        self._on_change(old, new)

    def try_move(self, new: SourceState) -> bool:
        """Move if allowed; return False instead of raising (used when a stop races a fault)."""
        with self._lock:
            old = self._state
            if new not in TRANSITIONS[old]:
                return False
            self._state = new
        self._on_change(old, new)
        return True
