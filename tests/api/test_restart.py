"""After a restart the API replays each table's last rounds into a fresh monitor, so a fault that
depends on events received before the restart (in this round or the ones before) is still caught."""

from __future__ import annotations

from fastapi.testclient import TestClient

from monitor.api.app import create_app
from tests.support.api import auth, faulty_round, make_settings


def test_a_round_in_progress_is_still_judged_after_a_restart(db_url: str) -> None:
    db = db_url
    events = faulty_round("T1")
    with TestClient(create_app(make_settings(db))) as client:
        first = client.post("/api/v1/events/batch", headers=auth("sensor"), json=events[:4])  # to bets_closed
        assert first.json() == {"accepted": 4, "duplicates": 0, "alerts": []}
    with TestClient(create_app(make_settings(db))) as client:  # a new process, same store
        # The bet change only breaks rule 32 because "no more bets" came before the restart.
        second = client.post("/api/v1/events", headers=auth("sensor"), json=events[4])
        assert second.status_code == 200 and len(second.json()["alerts"]) == 1
        alert = client.get(f"/api/v1/alerts/{second.json()['alerts'][0]}", headers=auth("viewer")).json()
        assert alert["code"] == "bet_changed_after_close" and alert["rule"] == "seed 000 rule 32"
        assert [e["seq"] for e in alert["alert"]["evidence"]] == [3, 4]
        table = client.get("/api/v1/tables/T1", headers=auth("viewer")).json()
        assert table["state"]["phase"] == "no more bets" and table["state"]["seats"]["4"]["bet"] == 20000


def test_a_fault_that_depends_on_earlier_rounds_is_still_caught_after_a_restart(db_url: str) -> None:
    """Seat 4 banks three hands in a row (seed 000 rule 3a allows two): the server restarted during the
    second hand still knows the first, as the table's own run did."""
    from tests.support.api import event

    def hand(start: int, round_id: str) -> list[dict[str, object]]:
        return [event(start, "round_started", "T1", round_id=round_id, banker_seat=4),
                event(start + 1, "bet_placed", "T1", seat=4, amount=2500),
                event(start + 2, "bet_placed", "T1", seat=2, amount=2500),
                event(start + 3, "bets_closed", "T1"), event(start + 4, "round_ended", "T1")]

    events = hand(0, "R1") + hand(5, "R2") + hand(10, "R3")
    with TestClient(create_app(make_settings(db_url))) as client:
        assert client.post("/api/v1/events/batch", headers=auth("sensor"), json=events[:8]).status_code == 200
    with TestClient(create_app(make_settings(db_url))) as client:  # during the second hand
        answer = client.post("/api/v1/events/batch", headers=auth("sensor"), json=events[8:]).json()
        assert len(answer["alerts"]) == 1
        alert = client.get(f"/api/v1/alerts/{answer['alerts'][0]}", headers=auth("viewer")).json()
        assert alert["code"] == "banker_not_eligible" and alert["round_id"] == "T1/R3"
        assert "2 consecutive hands" in alert["message"]
