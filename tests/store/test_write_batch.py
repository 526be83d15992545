"""The ingest writer's batched writes keep the one-at-a-time semantics (both backends)."""

from __future__ import annotations

from sqlalchemy import select

from monitor.store import audit
from monitor.store.models import AlertRow, HandHistoryRow, RoundRow, TableRow
from monitor.store.repository import NewAlert, acknowledge_alert, verify_alert_rows
from monitor.store.write_batch import WriteBatch


def _alert(i: int, round_ref: str | None = "r1") -> NewAlert:
    return NewAlert(id=f"alert-{i:04d}-0123456789", table_id="T1", code="stub_not_four", severity="misdeal",
                    message=f"stub has 5 cards ({i})", round_ref=round_ref, rule="seed 000 rule 55",
                    evidence=[{"type": "stub_counted", "n": 5}], payload={"i": i})


def test_two_batches_merge_rounds_dedupe_alerts_and_chain_the_audit(sessions) -> None:
    with sessions() as s, s.begin():
        batch = WriteBatch(s)
        batch.round(table_id="T1", round_ref="r1", game="paigow", phase="betting", media_time=1.0)
        batch.round(table_id="T1", round_ref="r1", game=None, phase="dealt")
        batch.alert(_alert(1))
        batch.alert(_alert(1))  # raised twice in one batch: stored once
        batch.alert(_alert(2, round_ref=None))
        batch.table("T1", game="paigow", state={"phase": "dealt"}, seq=7)
        new = batch.write()
        assert [a.id for a in new] == [_alert(1).id, _alert(2).id]
    with sessions() as s, s.begin():
        acknowledge_alert(s, _alert(1).id, actor="sue", comment="seen")  # ORM append between batches
    with sessions() as s, s.begin():
        batch = WriteBatch(s)
        batch.alert(_alert(1))  # a resend: known, not new
        batch.alert(_alert(3))
        batch.round(table_id="T1", round_ref="r1", game="paigow", phase="round over", media_time=9.0,
                    ended=True)
        batch.hand_history(table_id="T1", round_ref="r1", game="paigow", history={"v": 1})
        batch.table("T1", state={"phase": "round over"}, seq=5)  # an older seq never lowers the mark
        assert [a.id for a in batch.write()] == [_alert(3).id]
    with sessions() as s, s.begin():
        batch = WriteBatch(s)
        # A replay of the round rewrites its history.
        batch.hand_history(table_id="T1", round_ref="r1", game="paigow", history={"v": 2})
        batch.write()
    with sessions() as s:
        rnd = s.get(RoundRow, "T1/r1")
        assert rnd is not None and rnd.phase == "round over" and rnd.game == "paigow"
        assert rnd.media_start == 1.0 and rnd.media_end == 9.0 and rnd.ended_at is not None
        assert rnd.alert_count == 2  # alerts 1 and 3; alert 2 has no round
        table = s.get(TableRow, "T1")
        assert table is not None and table.state == {"phase": "round over"} and table.last_event_seq == 7
        assert table.game == "paigow"
        histories = s.execute(select(HandHistoryRow)).scalars().all()
        assert [h.history for h in histories] == [{"v": 2}]
        assert s.get(AlertRow, _alert(1).id).status == "acknowledged"  # type: ignore[union-attr]
        report = audit.verify_chain(s)
        assert report.ok and report.checked == 4  # raised 1, raised 2, acknowledged 1, raised 3
        assert verify_alert_rows(s) == []

