"""The one writer of events into the store, as the API's ingest and a review use it (both backends)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from monitor.events.schema import Event, parse_event
from monitor.store.event_writer import EventWriter
from monitor.store.models import AlertRow, EventRow, HandHistoryRow, RoundRow, TableRow
from monitor.store.repository import known_event_keys
from tests.support.procedure import clean_round, find, run

PROFILE = {"name": "livermore", "line": "livermore: the default"}


def _round(round_ref: str = "r1", **edits: Any) -> list[dict[str, Any]]:
    events = clean_round()
    events[0] = {**events[0], "round_id": round_ref}
    for etype, fields in edits.items():
        i = find(events, etype)
        events[i] = {**events[i], **fields}
    return events


def _write(sessions, events: list[Event], states: dict[str, Any] | None = None,
           fold_known: bool = False) -> tuple[list[bool], dict[str, Any]]:
    with sessions() as s, s.begin():
        writer = EventWriter(s, states, fold_known=fold_known)
        writer.look_up(events)
        new = [writer.event(e, PROFILE) for e in events]
        _, snapshots = writer.write()
    return new, snapshots


def test_new_events_are_stored_folded_and_open_and_close_their_round(sessions) -> None:
    events = [parse_event(e) for e in _round()]
    states: dict[str, Any] = {}
    new, snapshots = _write(sessions, events, states)
    assert all(new)
    assert snapshots["T1"]["phase"] == "round over" and snapshots["T1"]["profile"] == PROFILE
    assert snapshots["T1"] is not states["T1"]  # a copy: the writer's own state goes on changing
    with sessions() as s:
        assert s.execute(select(func.count()).select_from(EventRow)).scalar_one() == len(events)
        assert set(s.execute(select(EventRow.profile)).scalars()) == {"livermore"}
        rnd = s.get(RoundRow, "T1/r1")
        assert rnd is not None and rnd.phase == "round over" and rnd.game == "paigow"
        assert rnd.media_start == events[0].media_time and rnd.media_end == events[-1].media_time
        table = s.get(TableRow, "T1")
        assert table is not None and table.last_event_seq == events[-1].seq
        assert table.state["round_id"] == "r1"


def test_a_resend_is_known_and_never_takes_the_state_back(sessions) -> None:
    events = [parse_event(e) for e in _round()]
    states: dict[str, Any] = {}
    _write(sessions, events, states)
    new, snapshots = _write(sessions, events[:3], states)  # the first events sent again
    assert new == [False, False, False] and snapshots == {}  # nothing folded: the table is not rewritten
    assert states["T1"]["last_seq"] == events[-1].seq
    with sessions() as s:
        assert s.execute(select(func.count()).select_from(EventRow)).scalar_one() == len(events)


def test_fold_known_rebuilds_the_state_from_a_whole_recording(sessions) -> None:
    events = [parse_event(e) for e in _round()]
    half = len(events) // 2
    _write(sessions, events[:half], fold_known=True)
    new, snapshots = _write(sessions, events, fold_known=True)  # a resumed review writes all again
    assert new == [False] * half + [True] * (len(events) - half)
    rebuilt = snapshots["T1"]
    _, fresh = _write(sessions, [parse_event({**e, "table_id": "T2"}) for e in _round()], fold_known=True)
    assert {k: v for k, v in rebuilt.items() if k != "table_id"} == {
        k: v for k, v in fresh["T2"].items() if k != "table_id"}


def test_alerts_and_histories_with_a_reviews_annotations(sessions) -> None:
    raw = _round(stub_counted={"n": 5})
    monitor = run(raw, renumber=False)
    (alert,) = [a for a in monitor.alerts if a.code == "stub_not_four"]
    events = [parse_event(e) for e in raw]
    for attempt in range(2):  # written twice: the alert is stored once, the history rewritten
        with sessions() as s, s.begin():
            writer = EventWriter(s)
            writer.look_up(events)
            for e in events:
                writer.event(e, PROFILE)
            stored_as = writer.alert(alert, snapshot="a.jpg", annotations={"review": {"file": "x.mp4"}})
            assert stored_as == alert.id
            writer.history(table_id="T1", round_ref="r1", game="paigow", history={"attempt": attempt},
                           phase="cut short", span=(1.5, 99.0))
            new_alerts, _ = writer.write()
        assert [a.id for a in new_alerts] == ([alert.id] if attempt == 0 else [])
    with sessions() as s:
        row = s.get(AlertRow, alert.id)
        assert row is not None and row.snapshot == "a.jpg" and row.payload["review"] == {"file": "x.mp4"}
        assert row.payload["code"] == "stub_not_four"
        rnd = s.get(RoundRow, "T1/r1")
        assert rnd is not None and rnd.phase == "cut short" and rnd.alert_count == 1
        assert (rnd.media_start, rnd.media_end) == (1.5, 99.0) and rnd.ended_at is not None
        assert [h.history for h in s.execute(select(HandHistoryRow)).scalars()] == [{"attempt": 1}]


def test_an_event_not_looked_up_is_refused_by_name(sessions) -> None:
    event = parse_event(_round()[0])
    with sessions() as s, s.begin():
        writer = EventWriter(s)
        with pytest.raises(ValueError, match=r"round_started \(table 'T1', seq 0\) was not looked up"):
            writer.event(event)


def test_known_event_keys_over_more_keys_than_one_query_takes(sessions) -> None:
    events = [parse_event({**_round()[1], "seq": i}) for i in range(1200)]
    _write(sessions, events[::2])
    with sessions() as s:
        keys = {(e.table_id, e.seq) for e in events}
        assert known_event_keys(s, keys) == {(e.table_id, e.seq) for e in events[::2]}
