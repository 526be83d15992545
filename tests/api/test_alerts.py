"""Alerts through the real API on a real database (SQLite file; PostgreSQL when available)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from monitor.api.app import create_app
from monitor.api.schemas import CitationOut
from tests.support.api import TOKENS, auth, event, faulty_round, make_settings

CODES = {"bet_changed_after_close", "ace_or_joker_exposed", "stub_not_four", "dice_out_of_range"}


@pytest.fixture
def client(db_url: str):
    with TestClient(create_app(make_settings(db_url))) as c:
        yield c


def _ingest(client: TestClient, events: list[dict[str, object]]) -> dict[str, object]:
    response = client.post("/api/v1/events/batch", headers=auth("sensor"), json=events)
    assert response.status_code == 200, response.text
    return response.json()


def _alerts(client: TestClient, **params: object) -> dict[str, object]:
    response = client.get("/api/v1/alerts", headers=auth("viewer"), params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_faulty_round_is_stored_with_its_alerts_history_and_table_state(client: TestClient) -> None:
    result = _ingest(client, faulty_round("T1"))
    assert result["accepted"] == 9 and result["duplicates"] == 0 and len(result["alerts"]) == 4
    page = _alerts(client)
    assert page["total"] == 4 and {a["code"] for a in page["items"]} == CODES
    assert {a["status"] for a in page["items"]} == {"new"}
    stub = next(a for a in page["items"] if a["code"] == "stub_not_four")
    assert stub["rule"] == "seed 000 rule 55" and stub["severity"] == "misdeal"
    assert stub["citation"]["text"] == "Livermore Casino Pai Gow Poker, rule 55"
    assert stub["citation"]["href"] == "/rules/livermore#rule-55"
    assert stub["citation"]["rules"][0]["title"] == "Four cards in the stub"
    assert stub["media"]["trigger"] == 22.0 and stub["bookmark"]["trigger"] is not None
    detail = client.get(f"/api/v1/alerts/{stub['id']}", headers=auth("viewer")).json()
    assert [e["type"] for e in detail["alert"]["evidence"]][-1] == "stub_counted"
    assert "four cards remaining" in detail["alert"]["rule"]["text"]
    assert detail["alert"]["rule"]["cited"] == "Livermore Casino Pai Gow Poker, rule 55"
    assert detail["alert"]["rule"]["book"] == "livermore" and detail["citation"] == stub["citation"]
    assert [a["action"] for a in detail["audit"]] == ["alert.raised"]
    tables = client.get("/api/v1/tables", headers=auth("viewer")).json()
    assert tables[0]["id"] == "T1" and tables[0]["open_alerts"] == 4
    assert tables[0]["state"]["last_dice"] == [3, 9, 2] and tables[0]["state"]["phase"] == "round over"
    assert tables[0]["state"]["seats"]["4"]["bet"] == 20000
    hands = client.get("/api/v1/hands", headers=auth("viewer"), params={"table_id": "T1"}).json()
    assert hands["total"] == 1
    history = hands["items"][0]
    assert history["round_id"] == "T1/R1" and history["history"]["stub"] == 5
    assert set(history["history"]["alert_codes"]) == CODES
    one = client.get("/api/v1/hands/T1/R1", headers=auth("viewer")).json()
    assert one["history"] == history["history"]
    rnd = client.get("/api/v1/rounds/T1/R1", headers=auth("viewer")).json()
    assert rnd["alert_count"] == 4 and rnd["has_history"] and rnd["ended_at"] is not None


def test_a_resend_is_acknowledged_but_never_duplicates(client: TestClient) -> None:
    events = faulty_round("T1")
    _ingest(client, events)
    again = _ingest(client, events)
    assert again == {"accepted": 0, "duplicates": 9, "alerts": []}
    assert _alerts(client)["total"] == 4
    # The same sequence number with different content is not a resend: the monitor says so.
    conflicting = _ingest(client, [{**events[6], "n": 3}])
    assert conflicting["duplicates"] == 1 and len(conflicting["alerts"]) == 1
    assert _alerts(client, severity="data")["items"][0]["code"] == "event_conflict"


def test_filters_and_pagination(client: TestClient) -> None:
    _ingest(client, faulty_round("T1"))
    _ingest(client, faulty_round("T2", round_id="R9"))
    assert _alerts(client)["total"] == 8
    assert _alerts(client, table_id="T2")["total"] == 4
    assert _alerts(client, severity="misdeal")["total"] == 4
    assert _alerts(client, severity=["device", "integrity"])["total"] == 4
    assert _alerts(client, round_id="T2/R9")["total"] == 4
    now = datetime.now(UTC)
    assert _alerts(client, since=(now - timedelta(minutes=5)).isoformat())["total"] == 8
    assert _alerts(client, until=(now - timedelta(minutes=5)).isoformat())["total"] == 0
    first, second = _alerts(client, limit=5), _alerts(client, limit=5, offset=5)
    assert len(first["items"]) == 5 and len(second["items"]) == 3 and first["total"] == 8
    assert not {a["id"] for a in first["items"]} & {a["id"] for a in second["items"]}
    naive = client.get("/api/v1/alerts", headers=auth("viewer"), params={"since": "2026-01-01T00:00:00"})
    assert naive.status_code == 422 and "time zone" in naive.json()["detail"]
    rounds = client.get("/api/v1/rounds", headers=auth("viewer"),
                        params={"table_id": "T2", "since": (now - timedelta(minutes=5)).isoformat()}).json()
    assert rounds["total"] == 1 and rounds["items"][0]["id"] == "T2/R9"
    later = client.get("/api/v1/rounds", headers=auth("viewer"), params={"since": now.isoformat()}).json()
    assert later["total"] == 0
    naive = client.get("/api/v1/rounds", headers=auth("viewer"), params={"until": "2026-01-01T00:00:00"})
    assert naive.status_code == 422 and "time zone" in naive.json()["detail"]


def test_acknowledge_and_resolve_with_who_when_and_comment(client: TestClient) -> None:
    ids = _ingest(client, faulty_round("T1"))["alerts"]
    ack = client.post(f"/api/v1/alerts/{ids[0]}/acknowledge", headers=auth("supervisor"),
                      json={"comment": "floor on the way"})
    assert ack.status_code == 200
    body = ack.json()
    assert body["status"] == "acknowledged" and body["acknowledged_by"] == "supervisor-user"
    assert body["acknowledge_comment"] == "floor on the way" and body["acknowledged_at"]
    again = client.post(f"/api/v1/alerts/{ids[0]}/acknowledge", headers=auth("supervisor"))
    assert again.status_code == 409 and "only a new alert" in again.json()["detail"]
    no_comment = client.post(f"/api/v1/alerts/{ids[0]}/resolve", headers=auth("supervisor"), json={})
    assert no_comment.status_code == 422 and no_comment.json()["detail"][0]["loc"] == ["body", "comment"]
    done = client.post(f"/api/v1/alerts/{ids[0]}/resolve", headers=auth("admin"), json={"comment": "redealt"})
    assert done.status_code == 200
    assert done.json()["status"] == "resolved" and done.json()["resolved_by"] == "admin-user"
    trail = [a["action"] for a in done.json()["audit"]]
    assert trail == ["alert.raised", "alert.acknowledged", "alert.resolved"]
    assert _alerts(client, status="resolved")["total"] == 1
    assert _alerts(client, status=["new", "acknowledged"])["total"] == 3
    missing = client.post("/api/v1/alerts/nope/acknowledge", headers=auth("supervisor"))
    assert missing.status_code == 404
    verify = client.get("/api/v1/audit/verify", headers=auth("admin")).json()
    assert verify["ok"] and verify["checked"] == 6 and verify["alert_problems"] == []


def test_alerts_are_pushed_live_over_the_websocket(client: TestClient) -> None:
    with client.websocket_connect("/api/v1/live/ws") as ws:
        ws.send_json({"type": "auth", "token": TOKENS["viewer"]})
        assert ws.receive_json()["type"] == "hello"
        ids = _ingest(client, faulty_round("T1"))["alerts"]
        pushed, tables = [], []
        while len(pushed) < 4:
            message = ws.receive_json()
            if message["type"] == "alert":
                pushed.append(message["data"]["id"])
            elif message["type"] == "table":
                tables.append(message["data"])
        assert sorted(pushed) == sorted(ids)
        client.post(f"/api/v1/alerts/{ids[0]}/acknowledge", headers=auth("supervisor"))
        while (message := ws.receive_json())["type"] != "alert_update":
            if message["type"] == "table":
                tables.append(message["data"])
        assert message["data"]["id"] == ids[0] and message["data"]["status"] == "acknowledged"
        # Table state is coalesced and pushed by the hub's periodic flusher: it may trail the alerts.
        while not tables:
            if (message := ws.receive_json())["type"] == "table":
                tables.append(message["data"])
        assert tables[-1]["table_id"] == "T1" and tables[-1]["last_dice"] == [3, 9, 2]


def test_invalid_events_say_what_and_where_without_echoing_input(client: TestClient) -> None:
    bad = event(1, "dice_rolled", values="seven")
    response = client.post("/api/v1/events", headers=auth("sensor"), json=bad)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail[0]["loc"] == ["body", "dice_rolled", "values"] and "list" in detail[0]["msg"]
    assert "seven" not in response.text and "input" not in detail[0]
    batch = client.post("/api/v1/events/batch", headers=auth("sensor"),
                        json=[event(0, "round_started"), event(1, "stub_counted", n=-1)])
    assert batch.status_code == 422 and batch.json()["detail"][0]["loc"][:2] == ["body", 1]
    assert _alerts(client)["total"] == 0  # all or nothing
    not_json = client.post("/api/v1/events", headers={**auth("sensor"), "Content-Type": "application/json"},
                           content=b"{nope")
    assert not_json.status_code == 422 and "JSON" in not_json.text
    huge = client.post("/api/v1/events/batch", headers=auth("sensor"),
                       json=[event(0, "round_started"), {**event(1, "bets_closed"), "seq": 2**64}])
    assert huge.status_code == 422 and huge.json()["detail"][0]["loc"] == ["body", 1, "seq"]
    assert "64-bit" in huge.json()["detail"][0]["msg"]


def test_metrics_count_alerts_events_and_latency(client: TestClient) -> None:
    _ingest(client, faulty_round("T1"))
    text = client.get("/metrics", headers=auth("viewer")).text
    assert 'table_monitor_alerts_total{severity="misdeal"} 2.0' in text
    assert "table_monitor_events_ingested_total 9.0" in text
    assert "table_monitor_event_to_push_seconds_count 4.0" in text
    assert "table_monitor_events_per_second" in text


def test_an_alerts_citation_opens_the_products_reference(client: TestClient) -> None:
    _ingest(client, faulty_round("T3"))
    bet = next(a for a in _alerts(client)["items"] if a["code"] == "bet_changed_after_close")
    citation = bet["citation"]
    assert citation["text"] == "Livermore Casino Pai Gow Poker, rule 32"
    assert [r["number"] for r in citation["rules"]] == ["32"]
    rule = client.get("/api/v1/rules/livermore/32", headers=auth("viewer"))
    assert rule.status_code == 200 and rule.json() == citation["rules"][0]
    assert "no more bets" in rule.json()["checks"]
    assert client.get("/api/v1/rules/livermore/48a", headers=auth("viewer")).json()["number"] == "48"
    assert client.get("/api/v1/rules/livermore/99", headers=auth("viewer")).status_code == 404
    assert client.get("/api/v1/rules/atlantis", headers=auth("viewer")).status_code == 404
    books = client.get("/api/v1/rules", headers=auth("viewer")).json()
    assert [b["id"] for b in books][:3] == ["livermore", "napa", "lucky_chances"]
    page = client.get(citation["href"].split("#")[0])  # the reference page is documentation, served open
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'id="rule-32"' in page.text and "Livermore Casino Pai Gow Poker" in page.text
    assert client.get("/rules").status_code == 200 and client.get("/rules/atlantis").status_code == 404


def test_an_alert_stored_with_a_seed_citation_reads_with_its_rulebook() -> None:
    old = CitationOut.parse("seed 001 misdeal 4")
    assert old is not None and old.text == "Napa Valley Casino Pai Gow Poker, misdeal 4"
    assert CitationOut.parse("seed 000 rule 99") is None and CitationOut.parse(None) is None
