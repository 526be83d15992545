"""Server-Sent Events over a real socket; request limits, CORS and security headers."""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from monitor.api.app import create_app
from monitor.api.hub import LiveHub, batch_text, drain
from monitor.lab.api_bench import alerts_in
from tests.support.api import TOKENS, ServerThread, auth, faulty_round, make_settings


def test_alerts_arrive_over_server_sent_events(db_url: str) -> None:
    with ServerThread(create_app(make_settings(db_url))) as server:
        received: list[tuple[str, dict[str, object]]] = []
        connected = threading.Event()

        def listen() -> None:
            url = f"{server.url}/api/v1/live/sse"
            with httpx.stream("GET", url, headers=auth("viewer"), timeout=60) as r:
                assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
                kind = ""
                for line in r.iter_lines():
                    if line.startswith("event:"):
                        kind = line.split(":", 1)[1].strip()
                    elif line.startswith("data:"):
                        received.append((kind, json.loads(line.split(":", 1)[1])))
                        if kind == "hello":
                            connected.set()
                        if sum(k == "alert" for k, _ in received) == 4:
                            return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        assert connected.wait(30)
        response = httpx.post(f"{server.url}/api/v1/events/batch", headers=auth("sensor"),
                              json=faulty_round("T1"), timeout=60)
        listener.join(30)
        alerts = [data for kind, data in received if kind == "alert"]
        assert sorted(a["id"] for a in alerts) == sorted(response.json()["alerts"])
        assert received[0] == ("hello", {"name": "viewer-user", "role": "viewer"})


@pytest.fixture
def client(tmp_path: Path):
    settings = make_settings(f"sqlite:///{tmp_path / 'limits.db'}", max_body_bytes=4096)
    with TestClient(create_app(settings)) as c:
        yield c


def test_a_body_over_the_limit_is_refused_before_it_is_read(client: TestClient) -> None:
    big = faulty_round("T1") * 10
    response = client.post("/api/v1/events/batch", headers=auth("sensor"), json=big)
    assert response.status_code == 413 and "4096 bytes" in response.json()["detail"]


def test_cors_is_off_unless_configured_and_security_headers_are_set(client: TestClient) -> None:
    response = client.get("/api/v1/alerts", headers={**auth("viewer"), "Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in response.headers
    page = client.get("/")
    assert page.status_code == 200 and "Table Monitor" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


def test_cors_when_configured(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'cors.db'}", cors_origins=["https://soc.example"])
    with TestClient(create_app(settings)) as c:
        response = c.options("/api/v1/alerts", headers={"Origin": "https://soc.example",
                                                        "Access-Control-Request-Method": "GET",
                                                        "Access-Control-Request-Headers": "authorization"})
        assert response.headers["access-control-allow-origin"] == "https://soc.example"


def test_a_batching_websocket_client_gets_one_commits_alerts_in_one_message(client: TestClient) -> None:
    with client.websocket_connect("/api/v1/live/ws?batch=true") as ws:
        ws.send_json({"type": "auth", "token": TOKENS["viewer"]})
        assert ws.receive_json()["type"] == "hello"
        response = client.post("/api/v1/events/batch", headers=auth("sensor"), json=faulty_round("T1"))
        ids = response.json()["alerts"]
        assert len(ids) == 4
        while (message := json.loads(raw := ws.receive_text()))["type"] == "table":
            pass
        # The four alerts were committed together, so the client's sender found them all waiting.
        assert message["type"] == "batch"
        assert [m["data"]["id"] for m in message["data"] if m["type"] == "alert"] == ids
        # bench-api's clients find alerts without parsing the whole message.
        # (a table's status may share the batch: alerts_in finds the alerts among the other messages)
        assert alerts_in(raw) == [(m["data"]["id"], m["data"]["round_id"]) for m in message["data"]
                                  if m["type"] == "alert"]


def test_hub_messages_are_encoded_once_and_drained_together() -> None:
    hub = LiveHub(queue_size=8)
    sub, only_t2 = hub.subscribe("x"), hub.subscribe("y", tables=frozenset({"T2"}))
    hub.publish("alert", {"id": "a1", "note": "line\nbreak"})
    hub.publish_many([("table", {"table_id": "T1"}, "T1"), ("table", {"table_id": "T2"}, "T2")])
    groups, closed = drain(sub.queue, sub.queue.get_nowait(), limit=10)
    assert not closed and [[m.kind for m in g.messages] for g in groups] == [["alert"], ["table", "table"]]
    assert json.loads(batch_text(groups)) == {"type": "batch", "data": [
        {"type": "alert", "data": {"id": "a1", "note": "line\nbreak"}},
        {"type": "table", "data": {"table_id": "T1"}}, {"type": "table", "data": {"table_id": "T2"}}]}
    assert batch_text(groups[:1]) == groups[0].messages[0].text == '{"type":"alert","data":{"id":"a1",' \
        '"note":"line\\nbreak"}}'
    # One SSE event per message, its JSON on one line even when the data holds a newline.
    assert groups[1].sse.count(b"event: table\r\n") == 2
    assert groups[0].sse == b'event: alert\r\ndata: {"id":"a1","note":"line\\nbreak"}\r\n\r\n'
    # A client that asked for some tables gets only theirs (and messages of no table).
    filtered, _ = drain(only_t2.queue, only_t2.queue.get_nowait(), limit=10)
    assert [json.loads(m.data_json) for g in filtered for m in g.messages] == [
        {"id": "a1", "note": "line\nbreak"}, {"table_id": "T2"}]


def test_a_client_that_falls_behind_is_told_and_dropped() -> None:
    hub = LiveHub(queue_size=16)
    slow, fast = hub.subscribe("slow"), hub.subscribe("fast")
    for i in range(16):
        hub.publish("alert", {"id": i})
    while not fast.queue.empty():  # the fast client keeps up; the slow one does not
        fast.queue.get_nowait()
    hub.publish("alert", {"id": 16})
    assert slow.dropped and hub.clients == 1
    groups, closed = drain(slow.queue, slow.queue.get_nowait(), limit=100)
    assert closed and groups == []
    assert fast.queue.get_nowait().messages[0].data_json == '{"id":16}'


def _silent_client(port: int) -> socket.socket:
    """A WebSocket client that authenticates and then never reads (a raw socket, small buffer)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET /api/v1/live/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
    sock.sendall(request.encode())
    assert sock.recv(4096).startswith(b"HTTP/1.1 101")
    payload = json.dumps({"type": "auth", "token": TOKENS["viewer"]}).encode()
    mask = os.urandom(4)  # client frames are masked (RFC 6455 5.3)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
    return sock


def test_a_client_that_stops_reading_is_dropped_over_a_real_socket(tmp_path: Path) -> None:
    from websockets.sync.client import connect

    app = create_app(make_settings(f"sqlite:///{tmp_path / 'slow.db'}", live_queue_size=16))
    hub = app.state.services.hub
    with ServerThread(app) as server, _silent_client(server.port) as silent, \
            connect(server.url.replace("http://", "ws://") + "/api/v1/live/ws", max_size=None) as fast:
        fast.send(json.dumps({"type": "auth", "token": TOKENS["viewer"]}))
        assert json.loads(fast.recv(timeout=10))["type"] == "hello"
        deadline = time.monotonic() + 10
        while hub.clients < 2:  # the silent client's auth is processed
            assert time.monotonic() < deadline
            time.sleep(0.01)
        blob, got = "x" * 256_000, 0
        for i in range(400):  # up to ~100 MB: far beyond what the kernel buffers for the silent client
            hub.publish_threadsafe("alert", {"id": i, "blob": blob})
            while got <= i:  # the fast client reads every message as it comes, never held up
                got += json.loads(fast.recv(timeout=30))["type"] == "alert"
            if hub.clients != 2:
                break
        assert hub.clients == 1 and got == i + 1 and silent.fileno() >= 0
