"""After a restart the API replays each table's current round into a fresh monitor, so a fault
that depends on events received before the restart is still caught."""

from __future__ import annotations

from fastapi.testclient import TestClient
from store_api_support import auth, db_url, faulty_round, make_settings, pg_cluster  # noqa: F401

from monitor.api.app import create_app


def test_a_round_in_progress_is_still_judged_after_a_restart(db_url: str) -> None:  # noqa: F811
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
