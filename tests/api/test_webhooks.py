"""Outgoing webhooks: retried with backoff and an idempotency key, Milestone XProtect XML with the
clip's times, a dead target delays nothing else, the outbox survives a restart, a permanent refusal
is dead-lettered until an admin retries it, and signatures carry their time."""

from __future__ import annotations

import itertools
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.etree import ElementTree as ET

import pytest
from fastapi.testclient import TestClient

from monitor.api.app import create_app
from monitor.api.settings import WebhookTarget
from monitor.api.webhooks import outbox
from monitor.api.webhooks.payloads import MILESTONE_NS
from tests.support.api import auth, faulty_round, make_settings
from tests.support.paths import DOCS
from tests.support.postgres import free_port
from tests.support.waiting import wait_until

NS = {"m": MILESTONE_NS}


class Receiver:
    """A real HTTP endpoint that records requests and fails the first ``fail_first`` of them."""

    def __init__(self, fail_first: int = 0, refuse_with: int = 503) -> None:
        self.fail_first = fail_first
        self.refuse_with = refuse_with
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.failures = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if receiver.failures < receiver.fail_first:
                    receiver.failures += 1
                    self.send_response(receiver.refuse_with)
                else:
                    receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/events"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def _ingest(client: TestClient) -> list[str]:
    response = client.post("/api/v1/events/batch", headers=auth("sensor"), json=faulty_round("T1"))
    assert response.status_code == 200
    return list(response.json()["alerts"])


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outbox, "BACKOFF_BASE_S", 0.05)


def test_milestone_events_retried_until_delivered_and_a_dead_target_delays_nothing(db_url: str) -> None:
    vms = Receiver(fail_first=2)
    dead_url = f"http://127.0.0.1:{free_port()}/nobody-listens"
    targets = [
        WebhookTarget(name="vms", url=vms.url, format="milestone",
                      camera_by_table={"T1": "Table 1 overhead"}),
        WebhookTarget(name="dead", url=dead_url, timeout_s=1.0),
    ]
    app = create_app(make_settings(db_url, webhooks=targets))
    try:
        with TestClient(app) as client:
            ids = _ingest(client)
            assert wait_until(lambda: len(vms.requests) == 4), f"delivered {len(vms.requests)} of 4"
            assert vms.failures == 2  # two refusals, retried
            keys = sorted(h["idempotency-key"] for h, _ in vms.requests)
            assert keys == sorted(f"{i}:vms" for i in ids)
            headers, body = vms.requests[0]
            assert headers["content-type"].startswith("text/xml")
            root = ET.fromstring(body)
            assert root.tag == f"{{{MILESTONE_NS}}}AnalyticsEvent"
            assert root.findtext("m:EventHeader/m:Source/m:Name", namespaces=NS) == "Table 1 overhead"
            begin, trigger, end = (root.findtext(p, namespaces=NS) for p in
                                   ("m:StartTime", "m:EventHeader/m:Timestamp", "m:EndTime"))
            assert begin is not None and trigger is not None and end is not None and begin <= trigger <= end
            assert root.findtext("m:EventHeader/m:CustomTag", namespaces=NS) in ids
            # The VMS shows the rule by its rulebook's name.
            descriptions = [ET.fromstring(b).findtext("m:Description", namespaces=NS) or "" for _, b in
                            vms.requests]
            stub_rule = "Livermore Casino Pai Gow Poker, rule 55 | stub_not_four"
            assert any(d.startswith(stub_rule) for d in descriptions), descriptions
            # The dead target still owes all four, and keeps them.
            # (the receiver can hold the fourth request a moment before the outbox marks it delivered)
            def pending() -> dict[str, int]:
                return client.get("/api/v1/webhooks", headers=auth("admin")).json()["pending"]

            assert wait_until(lambda: pending() == {"dead": 4}), pending()
    finally:
        vms.close()


def test_the_outbox_survives_a_restart(db_url: str) -> None:
    db = db_url
    receiver = Receiver(fail_first=10**6)  # down for the whole first run
    target = WebhookTarget(name="hook", url=receiver.url)
    try:
        with TestClient(create_app(make_settings(db, webhooks=[target]))) as client:
            ids = _ingest(client)
            assert wait_until(lambda: receiver.failures >= 2)
        assert receiver.requests == []
        receiver.fail_first = 0  # the target comes back; so does the API, as a new process would
        with TestClient(create_app(make_settings(db, webhooks=[target]))):
            assert wait_until(lambda: len(receiver.requests) == 4)
        import json

        bodies = [json.loads(body) for _, body in receiver.requests]
        assert sorted(b["alert_id"] for b in bodies) == sorted(ids)
        assert {b["kind"] for b in bodies} == {"table-monitor.alert"}
        stub = next(b for b in bodies if b["code"] == "stub_not_four")
        assert stub["rule"] == "seed 000 rule 55"
        assert stub["citation"] == "Livermore Casino Pai Gow Poker, rule 55"
        assert all(b["bookmark"]["begin"] <= b["bookmark"]["trigger"] <= b["bookmark"]["end"] for b in bodies)
    finally:
        receiver.close()


def test_backoff_grows_and_is_capped() -> None:
    delays = [outbox.backoff(n, rng=lambda: 0.5).total_seconds() for n in range(0, 30)]
    assert delays[0] == pytest.approx(outbox.BACKOFF_BASE_S)
    assert all(b >= a for a, b in itertools.pairwise(delays))
    assert delays[-1] == pytest.approx(outbox.BACKOFF_CAP_S)


def _outbox(client: TestClient) -> dict[str, dict[str, int]]:
    body = client.get("/api/v1/webhooks", headers=auth("admin")).json()
    return {"pending": body["pending"], "dead": body["dead"]}


def test_a_permanent_refusal_is_dead_lettered_and_sent_again_on_an_admins_retry(db_url: str) -> None:
    receiver = Receiver(fail_first=10**6, refuse_with=404)  # a wrong path: no retry can cure it
    target = WebhookTarget(name="hook", url=receiver.url)
    try:
        with TestClient(create_app(make_settings(db_url, webhooks=[target]))) as client:
            ids = _ingest(client)
            dead_only = {"pending": {}, "dead": {"hook": 4}}
            assert wait_until(lambda: _outbox(client) == dead_only), _outbox(client)
            assert receiver.failures == 4  # one attempt each: nothing left to retry
            dead = client.get("/api/v1/webhooks/dead", headers=auth("admin")).json()
            assert sorted(d["alert_id"] for d in dead) == sorted(ids)
            assert all(d["attempts"] == 1 and d["last_error"] == "HTTP 404 Not Found" for d in dead)
            assert client.get("/api/v1/webhooks/dead", headers=auth("supervisor")).status_code == 403
            # the receiver is fixed; an admin sends one again, then the rest
            receiver.fail_first = 0
            first = dead[-1]["id"]
            one = client.post(f"/api/v1/webhooks/deliveries/{first}/retry", headers=auth("admin"))
            assert one.status_code == 200 and one.json() == {"retried": [first]}
            assert wait_until(lambda: len(receiver.requests) == 1)
            assert receiver.requests[0][0]["idempotency-key"] == f"{dead[-1]['alert_id']}:hook"
            again = client.post(f"/api/v1/webhooks/deliveries/{first}/retry", headers=auth("admin"))
            assert again.status_code == 404  # no longer dead: delivered
            rest = client.post("/api/v1/webhooks/dead/retry", headers=auth("admin"),
                               params={"target": "hook"})
            assert sorted(rest.json()["retried"]) == sorted(d["id"] for d in dead[:-1])
            assert wait_until(lambda: len(receiver.requests) == 4)
            assert wait_until(lambda: _outbox(client) == {"pending": {}, "dead": {}}), _outbox(client)
            # each retry is in the audit log, and the chain still verifies
            report = client.get("/api/v1/audit/verify", headers=auth("admin")).json()
            assert report["ok"] is True and report["alert_problems"] == []
    finally:
        receiver.close()


@pytest.mark.parametrize("code", [408, 429, 503])
def test_a_refusal_a_retry_can_cure_is_retried_until_delivered(db_url: str, code: int) -> None:
    receiver = Receiver(fail_first=2, refuse_with=code)
    target = WebhookTarget(name="hook", url=receiver.url)
    try:
        with TestClient(create_app(make_settings(db_url, webhooks=[target]))) as client:
            _ingest(client)
            assert wait_until(lambda: len(receiver.requests) == 4), f"delivered {len(receiver.requests)} of 4"
            assert receiver.failures == 2
            assert wait_until(lambda: _outbox(client) == {"pending": {}, "dead": {}}), _outbox(client)
    finally:
        receiver.close()


def test_which_answers_are_permanent() -> None:
    assert all(outbox.permanent(c) for c in (400, 401, 403, 404, 405, 410, 413, 422))
    assert not any(outbox.permanent(c) for c in (200, 302, 408, 429, 500, 502, 503, 504))


def test_signed_requests_carry_their_time_and_a_late_replay_fails_the_check(db_url: str) -> None:
    receiver = Receiver()
    target = WebhookTarget(name="hook", url=receiver.url, secret="s3cret-key")
    try:
        with TestClient(create_app(make_settings(db_url, webhooks=[target]))) as client:
            _ingest(client)
            assert wait_until(lambda: len(receiver.requests) == 4)
        for headers, body in receiver.requests:
            header = headers["x-table-monitor-signature"]
            t = int(header.split(",")[0].removeprefix("t="))
            text = body.decode()
            assert outbox.verify_signature("s3cret-key", text, header, now=t + 10)
            assert not outbox.verify_signature("s3cret-key", text, header, now=t + 301)  # replayed late
            assert not outbox.verify_signature("s3cret-key", text, header, now=t - 301)
            assert not outbox.verify_signature("other-key", text, header, now=t)
            assert not outbox.verify_signature("s3cret-key", text + " ", header, now=t)  # body changed
    finally:
        receiver.close()


def test_signature_header_format_and_malformed_headers() -> None:
    body = '{"alert_id": "a"}'
    header = outbox.signature("k", body, timestamp=1_700_000_000)
    t, v1 = header.split(",")
    assert t == "t=1700000000" and v1.startswith("v1=") and len(v1) == 3 + 64
    import hashlib
    import hmac

    assert v1[3:] == hmac.new(b"k", b"1700000000." + body.encode(), hashlib.sha256).hexdigest()
    assert outbox.verify_signature("k", body, header, now=1_700_000_100)
    assert outbox.verify_signature("k", body, f"{header},v1=deadbeef", now=1_700_000_000)  # key rotation
    for bad in ("", "sha256=" + v1[3:], v1, "t=abc," + v1, f"t=1,t=2,{v1}", "t=1700000000", "garbage"):
        assert not outbox.verify_signature("k", body, bad, now=1_700_000_000), bad


def test_the_receivers_check_in_the_docs_accepts_our_signature_and_refuses_a_stale_one() -> None:
    import re

    doc = (DOCS / "webhooks.md").read_text()
    [snippet] = re.findall(r"```python\n(.*?)```", doc, re.DOTALL)
    scope: dict[str, object] = {}
    exec(snippet, scope)  # the documented receiver, as a room's integrator would paste it
    verify = scope["verify"]
    assert callable(verify)
    body = '{"alert_id": "PG-1:r1:stub_not_four"}'
    fresh = outbox.signature("room-key", body)
    assert verify(b"room-key", body.encode(), fresh) is True
    assert verify(b"room-key", body.encode() + b" ", fresh) is False
    stale = outbox.signature("room-key", body, timestamp=int(time.time()) - 3600)
    assert verify(b"room-key", body.encode(), stale) is False


def test_a_retry_of_a_delivery_id_the_store_cannot_hold_is_a_validation_error(sqlite_url: str) -> None:
    with TestClient(create_app(make_settings(sqlite_url))) as client:
        for bad in ("0", "-3", str(2**63), "1548619442160671482440865191821312", "seven"):
            response = client.post(f"/api/v1/webhooks/deliveries/{bad}/retry", headers=auth("admin"))
            assert response.status_code == 422, (bad, response.status_code)
        assert client.post("/api/v1/webhooks/deliveries/12/retry", headers=auth("admin")).status_code == 404
        assert client.post("/api/v1/webhooks/dead/retry", headers=auth("admin")).json() == {"retried": []}
