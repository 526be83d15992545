"""Events, and the alerts and hand histories judged from them, into the store in one transaction.

The one path from table events to the store, used by the API's ingest (a live table, batch after
batch) and by a review (a whole recording at once). For each event the store does not hold yet it
writes the event row, folds the event into its table's state (:mod:`monitor.store.table_state`:
what the dashboard shows) and records the round it opens or closes; alerts and hand histories go
into the same :class:`~monitor.store.write_batch.WriteBatch`, so the events and what they raised
commit together. Writing is idempotent: an event known by its (table, seq) and an alert known by
its id are never stored twice, a round's hand history is rewritten.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy.orm import Session

from monitor.alerts.model import Alert
from monitor.events.schema import Event, RoundEnded, RoundStarted
from monitor.store import repository as repo
from monitor.store import table_state
from monitor.store.alert_records import new_alert
from monitor.store.models import AlertRow
from monitor.store.types import RawJSON, utcnow
from monitor.store.write_batch import WriteBatch

TableState = dict[str, Any]


class EventWriter:
    """One transaction's events, alerts and hand histories; :meth:`write` sends them.

    ``states``: each table's state, folded further by every new event (the ingest keeps its dict
    from one batch to the next; a review starts from empty states). ``fold_known``: fold the events
    the store already holds too, for a writer that rebuilds a state from a whole recording; the
    ingest folds only new events, since a resent event would take the state back in time.
    """

    def __init__(self, session: Session, states: dict[str, TableState] | None = None, *,
                 fold_known: bool = False) -> None:
        self.batch = WriteBatch(session)
        self.states: dict[str, TableState] = {} if states is None else states
        self._session = session
        self._fold_known = fold_known
        self._received_at = utcnow()
        self._looked_up: set[tuple[str, int]] = set()
        self._stored: set[tuple[str, int]] = set()  # in the store, or in this transaction already
        self._touched: set[str] = set()

    def look_up(self, events: Iterable[Event]) -> None:
        """Find which of ``events`` the store holds (a few queries for all): call before :meth:`event`."""
        keys = {(e.table_id, e.seq) for e in events} - self._looked_up
        self._stored |= repo.known_event_keys(self._session, keys)
        self._looked_up |= keys

    def state(self, table_id: str) -> TableState:
        """``table_id``'s state as it will be written; the table is written even with no new event."""
        self._touched.add(table_id)
        return self.states.setdefault(table_id, table_state.empty_state(table_id))

    def event(self, event: Event, profile: dict[str, Any] | None = None) -> bool:
        """Store ``event`` unless known; returns whether it was new. ``profile``: the summary of the
        rule profile judging the table (``rules.table_profile.profile_summary``), kept in the state
        and, by name, on the event's row."""
        key = (event.table_id, event.seq)
        if key not in self._looked_up:
            raise ValueError(f"event {event.type} (table {event.table_id!r}, seq {event.seq}) was not "
                             "looked up: call look_up() with it first")
        new = key not in self._stored
        if new:
            self._stored.add(key)
            self.batch.add_event({
                "table_id": event.table_id, "seq": event.seq, "kind": event.type,
                "source": event.source.value, "media_time": event.media_time,
                "payload": RawJSON(event.model_dump_json()), "received_at": self._received_at,
                "profile": None if profile is None else profile.get("name"),
            })
        if not (new or self._fold_known):
            return False
        state = self.state(event.table_id)
        # the profile judging now (a state stored by an earlier run may name the one before)
        state["profile"] = profile
        table_state.apply(state, event)
        if isinstance(event, RoundStarted) and event.round_id:
            self.batch.round(table_id=event.table_id, round_ref=event.round_id, game=event.game.value,
                             phase=state["phase"], media_time=event.media_time)
        elif isinstance(event, RoundEnded) and state.get("round_id"):
            self.batch.round(table_id=event.table_id, round_ref=state["round_id"], game=state.get("game"),
                             phase=state["phase"], media_time=event.media_time, ended=True)
        return new

    def alert(self, alert: Alert, *, snapshot: str | None = None,
              annotations: Mapping[str, Any] | None = None) -> str:
        """Store ``alert`` unless its id is known; returns the id. ``snapshot`` replaces the alert's own
        picture path; ``annotations`` are added to its stored payload (a review's place in the recording)."""
        row = new_alert(alert)
        if snapshot is not None:
            row.snapshot = snapshot
        if annotations:
            row.payload = {**row.payload, **annotations}
        self.batch.alert(row)
        return row.id

    def history(self, *, table_id: str, round_ref: str, game: str | None, history: dict[str, Any],
                phase: str | None = None, span: tuple[float, float] | None = None) -> None:
        """A round's hand history (the latest wins). ``phase`` and ``span`` (its begin and end on the
        recording) update the round, for a history that says how the round ended."""
        self.batch.hand_history(table_id=table_id, round_ref=round_ref, game=game, history=history)
        if phase is not None or span is not None:
            self.batch.round(table_id=table_id, round_ref=round_ref, game=game, phase=phase, span=span)

    def write(self) -> tuple[list[AlertRow], dict[str, TableState]]:
        """Send everything (the caller commits). Returns the alerts that were new, in the order raised,
        and a copy of each written table's state (the writer's own states change with the next events)."""
        snapshots = {t: copy.deepcopy(self.states[t]) for t in self._touched}
        for table_id, state in snapshots.items():
            self.batch.table(table_id, game=state.get("game"), state=state, seq=state.get("last_seq"))
        return self.batch.write(), snapshots
