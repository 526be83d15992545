"""The audit chain: every alert change is chained, tampering is found and named (both backends)."""

from __future__ import annotations

import itertools
import json

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from monitor.store import audit
from monitor.store.models import AuditEntryRow
from monitor.store.repository import (
    NewAlert,
    TransitionError,
    acknowledge_alert,
    record_alert,
    resolve_alert,
    verify_alert_rows,
)


def _alert(i: int) -> NewAlert:
    return NewAlert(id=f"alert-{i:04d}-0123456789", table_id="T1", code="stub_not_four", severity="misdeal",
                    message=f"stub has 5 cards (round {i})", round_ref=f"r{i}", rule="seed 000 rule 55",
                    evidence=[{"type": "stub_counted", "n": 5}], payload={"i": i})


def _fill(sessions) -> None:
    with sessions.begin() as s:
        for i in range(3):
            assert record_alert(s, _alert(i)) is not None
    with sessions.begin() as s:
        acknowledge_alert(s, _alert(0).id, actor="sue", comment="floor called")
        resolve_alert(s, _alert(0).id, actor="sue", comment="redealt")
        resolve_alert(s, _alert(1).id, actor="bob", comment="camera glare, no fault")


def test_every_alert_and_change_is_chained(sessions) -> None:
    _fill(sessions)
    with sessions() as s:
        report = audit.verify_chain(s)
        entries = s.query(AuditEntryRow).order_by(AuditEntryRow.seq).all()
        assert verify_alert_rows(s) == []
    assert report.ok and report.checked == 6
    assert [e.action for e in entries] == ["alert.raised"] * 3 + ["alert.acknowledged", "alert.resolved",
                                                                   "alert.resolved"]
    assert entries[0].prev_hash == audit.GENESIS_HASH
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(entries))
    assert json.loads(entries[4].data)["resolve_comment"] == "redealt"
    assert report.head_hash == entries[-1].hash


def test_a_resend_never_duplicates_and_life_cycle_is_enforced(sessions) -> None:
    _fill(sessions)
    with sessions.begin() as s:
        assert record_alert(s, _alert(0)) is None
    with pytest.raises(TransitionError, match="already resolved"), sessions.begin() as s:
        resolve_alert(s, _alert(0).id, actor="x", comment="again")
    with pytest.raises(TransitionError, match="only a new alert"), sessions.begin() as s:
        acknowledge_alert(s, _alert(1).id, actor="x", comment=None)
    with sessions() as s:
        assert audit.verify_chain(s).checked == 6


def test_the_database_refuses_to_change_the_log(sessions) -> None:
    _fill(sessions)
    with pytest.raises(DBAPIError, match="append-only"), sessions.begin() as s:
        s.execute(text("UPDATE audit_log SET actor = 'mallory' WHERE seq = 2"))
    with pytest.raises(DBAPIError, match="append-only"), sessions.begin() as s:
        s.execute(text("DELETE FROM audit_log WHERE seq = 2"))


def _drop_guards(s, dialect: str) -> None:
    if dialect == "postgresql":
        s.execute(text("ALTER TABLE audit_log DISABLE TRIGGER USER"))
    else:
        s.execute(text("DROP TRIGGER audit_log_no_update"))
        s.execute(text("DROP TRIGGER audit_log_no_delete"))


@pytest.mark.parametrize(
    ("tamper", "broken", "reason"),
    [
        ("UPDATE audit_log SET data = replace(data, 'redealt', 'no fault') WHERE seq = 5", 5, "hash"),
        ("UPDATE audit_log SET actor = 'mallory' WHERE seq = 4", 4, "hash"),
        ("DELETE FROM audit_log WHERE seq = 3", 3, "missing"),
        ("UPDATE audit_log SET prev_hash = hash WHERE seq = 2", 2, "prev_hash"),
    ],
)
def test_tampering_is_found_and_the_first_broken_entry_named(sessions, tamper: str, broken: int,
                                                             reason: str) -> None:
    _fill(sessions)
    with sessions.begin() as s:
        _drop_guards(s, s.get_bind().dialect.name)
        s.execute(text(tamper))
    with sessions() as s:
        report = audit.verify_chain(s)
    assert not report.ok
    assert report.broken_seq == broken
    assert reason in (report.reason or "")


def test_editing_an_alert_row_behind_the_logs_back_is_found(sessions) -> None:
    _fill(sessions)
    with sessions.begin() as s:
        s.execute(text("UPDATE alerts SET status = 'resolved', resolved_by = 'mallory' "
                       "WHERE id = :i"), {"i": _alert(2).id})
    with sessions() as s:
        assert audit.verify_chain(s).ok  # the chain itself is intact ...
        problems = verify_alert_rows(s)  # ... but the row no longer matches it
    assert len(problems) == 1 and _alert(2).id in problems[0] and "status" in problems[0]


def test_canonical_json_is_order_independent_and_compact() -> None:
    assert audit.canonical_json({"b": 1, "a": [1.5, "é"]}) == '{"a":[1.5,"é"],"b":1}'
    with pytest.raises(ValueError):
        audit.canonical_json({"x": float("nan")})
