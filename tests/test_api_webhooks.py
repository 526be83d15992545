"""Outgoing webhooks: retried with backoff and an idempotency key, Milestone XProtect XML with the
clip's times, a dead target delays nothing else, and the outbox survives a restart."""

from __future__ import annotations

import itertools
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from xml.etree import ElementTree as ET

import pytest
from fastapi.testclient import TestClient
from store_api_support import _free_port, auth, db_url, faulty_round, make_settings, pg_cluster  # noqa: F401

from monitor.api.app import create_app
from monitor.api.settings import WebhookTarget
from monitor.api.webhooks import outbox
from monitor.api.webhooks.payloads import MILESTONE_NS

NS = {"m": MILESTONE_NS}


class Receiver:
    """A real HTTP endpoint that records requests and fails the first ``fail_first`` of them."""

    def __init__(self, fail_first: int = 0) -> None:
        self.fail_first = fail_first
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.failures = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if receiver.failures < receiver.fail_first:
                    receiver.failures += 1
                    self.send_response(503)
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


def _wait(predicate, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outbox, "BACKOFF_BASE_S", 0.05)


def test_milestone_events_retried_until_delivered_and_a_dead_target_delays_nothing(db_url: str) -> None:  # noqa: F811
    vms = Receiver(fail_first=2)
    dead_url = f"http://127.0.0.1:{_free_port()}/nobody-listens"
    targets = [
        WebhookTarget(name="vms", url=vms.url, format="milestone",
                      camera_by_table={"T1": "Table 1 overhead"}),
        WebhookTarget(name="dead", url=dead_url, timeout_s=1.0),
    ]
    app = create_app(make_settings(db_url, webhooks=targets))
    try:
        with TestClient(app) as client:
            ids = _ingest(client)
            assert _wait(lambda: len(vms.requests) == 4), f"delivered {len(vms.requests)} of 4"
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
            # The dead target still owes all four, and keeps them.
            # (the receiver can hold the fourth request a moment before the outbox marks it delivered)
            def pending() -> dict[str, int]:
                return client.get("/api/v1/webhooks", headers=auth("admin")).json()["pending"]

            assert _wait(lambda: pending() == {"dead": 4}), pending()
    finally:
        vms.close()


def test_the_outbox_survives_a_restart(db_url: str) -> None:  # noqa: F811
    db = db_url
    receiver = Receiver(fail_first=10**6)  # down for the whole first run
    target = WebhookTarget(name="hook", url=receiver.url)
    try:
        with TestClient(create_app(make_settings(db, webhooks=[target]))) as client:
            ids = _ingest(client)
            assert _wait(lambda: receiver.failures >= 2)
        assert receiver.requests == []
        receiver.fail_first = 0  # the target comes back; so does the API, as a new process would
        with TestClient(create_app(make_settings(db, webhooks=[target]))):
            assert _wait(lambda: len(receiver.requests) == 4)
        import json

        bodies = [json.loads(body) for _, body in receiver.requests]
        assert sorted(b["alert_id"] for b in bodies) == sorted(ids)
        assert {b["kind"] for b in bodies} == {"table-monitor.alert"}
        assert all(b["bookmark"]["begin"] <= b["bookmark"]["trigger"] <= b["bookmark"]["end"] for b in bodies)
    finally:
        receiver.close()


def test_backoff_grows_and_is_capped() -> None:
    delays = [outbox.backoff(n, rng=lambda: 0.5).total_seconds() for n in range(0, 30)]
    assert delays[0] == pytest.approx(outbox.BACKOFF_BASE_S)
    assert all(b >= a for a, b in itertools.pairwise(delays))
    assert delays[-1] == pytest.approx(outbox.BACKOFF_CAP_S)
