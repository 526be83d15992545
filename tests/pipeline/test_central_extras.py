"""What a table's run sends a central server beside its events: each alert's snapshot (attached to the
alert the server raised, once, audited) and its camera and dice reader (in the server's /health,
/metrics and table list, and gone or counted as down when the run stops or falls silent)."""

from __future__ import annotations

from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest

from monitor.api.app import create_app
from monitor.pipeline.forward import Forwarder, ForwarderCollector, Spool, source_rows
from monitor.sources.prometheus import STALE_S, SourceCollector, SourceHealth
from monitor.sources.state import SourceState
from tests.support.api import TOKENS, ServerThread, auth, faulty_round, make_settings
from tests.support.waiting import wait_until

CAMERA = {"source": "usb:0", "kind": "camera", "state": "running", "up": True, "fps": 29.5, "captured": 900,
          "dropped": 3, "reconnects": 1}
DICE = {"source": "/dev/ttyUSB0", "kind": "dice_reader", "state": "reconnecting", "up": False,
        "reconnects": 2, "bad_lines": 4, "missing_readings": 1, "silent_s": 12.5}


def _jpeg(path: Path, shade: int = 90) -> Path:
    ok, data = cv2.imencode(".jpg", np.full((48, 64, 3), shade, np.uint8))
    assert ok
    path.write_bytes(data.tobytes())
    return path


def _raise_alerts(url: str, table: str = "T1") -> list[str]:
    response = httpx.post(f"{url}/api/v1/events/batch", headers=auth("sensor"), json=faulty_round(table),
                          timeout=60)
    assert response.status_code == 200
    return list(response.json()["alerts"])


def test_a_snapshot_reaches_the_alert_the_server_raised_once_and_audited(db_url: str,
                                                                      tmp_path: Path) -> None:
    settings = make_settings(db_url, snapshot_dir=tmp_path / "central")
    with ServerThread(create_app(settings)) as srv:
        alert_id = _raise_alerts(srv.url)[0]
        forwarder = Forwarder(srv.url, TOKENS["sensor"], Spool(tmp_path / "spool"), timeout_s=10).start()
        box_file = _jpeg(tmp_path / f"{alert_id}.jpg")
        forwarder.put_snapshot(alert_id, box_file)
        assert wait_until(lambda: forwarder.stats.snapshots == 1)
        assert forwarder.snapshots.pending() == []  # the spool's copy went
        from prometheus_client import CollectorRegistry, generate_latest

        registry = CollectorRegistry()
        registry.register(ForwarderCollector(forwarder))
        text = generate_latest(registry).decode()
        assert f'table_monitor_forward_snapshots_total{{outcome="sent",server="{srv.url}"}} 1.0' in text
        assert f'table_monitor_forward_snapshot_backlog{{server="{srv.url}"}} 0.0' in text
        forwarder.close()
        viewer = auth("viewer")
        detail = httpx.get(f"{srv.url}/api/v1/alerts/{alert_id}", headers=viewer).json()
        assert detail["has_snapshot"]
        assert [e["action"] for e in detail["audit"]] == ["alert.raised", "alert.snapshot_attached"]
        assert detail["audit"][1]["actor"] == "sensor-user"
        picture = httpx.get(f"{srv.url}/api/v1/alerts/{alert_id}/snapshot", headers=viewer)
        assert picture.status_code == 200 and picture.content == box_file.read_bytes()
        # a resend (the answer lost) keeps the first picture and adds no audit entry
        other = _jpeg(tmp_path / "other.jpg", 200).read_bytes()
        again = httpx.put(f"{srv.url}/api/v1/alerts/{alert_id}/snapshot", content=other,
                          headers={**auth("sensor"), "Content-Type": "image/jpeg"})
        assert again.status_code == 200
        assert again.json() == {"alert_id": alert_id, "attached": False, "snapshot": f"{alert_id}.jpg"}
        assert httpx.get(f"{srv.url}/api/v1/alerts/{alert_id}/snapshot", headers=viewer).content == (
            box_file.read_bytes())
        verify = httpx.get(f"{srv.url}/api/v1/audit/verify", headers=auth("admin")).json()
        assert verify["ok"] and verify["alert_problems"] == []


def test_a_snapshot_whose_alert_is_not_raised_yet_waits_for_it(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    with TestClient(create_app(make_settings(f"sqlite:///{tmp_path / 'ref.db'}"))) as ref:
        ids = ref.post("/api/v1/events/batch", headers=auth("sensor"),
                       json=faulty_round("T1")).json()["alerts"]
    settings = make_settings(f"sqlite:///{tmp_path / 'c.db'}", snapshot_dir=tmp_path / "central")
    with ServerThread(create_app(settings)) as srv:
        forwarder = Forwarder(srv.url, TOKENS["sensor"], Spool(tmp_path / "spool"), timeout_s=10).start()
        forwarder.put_snapshot(ids[0], _jpeg(tmp_path / "box.jpg"))
        assert wait_until(lambda: forwarder.stats.snapshots_early >= 1)  # refused: no such alert there yet
        assert forwarder.stats.snapshots == 0 and len(forwarder.snapshots.pending()) == 1
        assert _raise_alerts(srv.url) == ids  # the same alerts, with the same ids
        assert wait_until(lambda: forwarder.stats.snapshots == 1)
        forwarder.close()
        assert httpx.get(f"{srv.url}/api/v1/alerts/{ids[0]}", headers=auth("viewer")).json()["has_snapshot"]


def test_a_snapshot_the_server_cannot_take_is_refused_with_a_reason(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'c.db'}", snapshot_dir=tmp_path / "central",
                             max_body_bytes=4096)
    jpeg = _jpeg(tmp_path / "a.jpg").read_bytes()
    with ServerThread(create_app(settings)) as srv:
        alert_id = _raise_alerts(srv.url)[0]

        def put(alert: str, body: bytes, kind: str = "image/jpeg", role: str = "sensor") -> httpx.Response:
            return httpx.put(f"{srv.url}/api/v1/alerts/{alert}/snapshot", content=body,
                             headers={**auth(role), "Content-Type": kind})

        missing = put("0123456789abcdef01234567", jpeg)
        assert missing.status_code == 404 and "send it again later" in missing.json()["detail"]
        assert put(alert_id, b"GIF89a not a jpeg").status_code == 415
        wrong = put(alert_id, jpeg, kind="text/plain")
        assert wrong.status_code == 415 and "expected image/jpeg or image/png" in wrong.json()["detail"]
        assert put("../etc", jpeg).status_code in (404, 422)  # never a path outside the folder
        assert put("a.b", jpeg).status_code == 422
        assert put(alert_id, b"\xff\xd8\xff" + b"0" * 5000).status_code == 413
        assert put(alert_id, jpeg, role="viewer").status_code == 403
        central = tmp_path / "central"
        assert not central.exists() or not any(central.iterdir())  # nothing refused was written
    without = make_settings(f"sqlite:///{tmp_path / 'n.db'}")
    with ServerThread(create_app(without)) as srv:
        alert_id = _raise_alerts(srv.url)[0]
        refused = httpx.put(f"{srv.url}/api/v1/alerts/{alert_id}/snapshot", content=jpeg,
                            headers={**auth("sensor"), "Content-Type": "image/jpeg"})
        assert refused.status_code == 409 and "--snapshot-dir" in refused.json()["detail"]
        # the forwarder gives such a snapshot up (it stays on the box) instead of retrying it forever
        forwarder = Forwarder(srv.url, TOKENS["sensor"], Spool(tmp_path / "spool"), timeout_s=10).start()
        forwarder.put_snapshot(alert_id, tmp_path / "a.jpg")
        assert wait_until(lambda: forwarder.stats.snapshots_dropped == 1)
        forwarder.close()
        assert forwarder.snapshots.pending() == [] and (tmp_path / "a.jpg").exists()


def test_a_tables_devices_reach_the_servers_health_metrics_and_table_list(db_url: str,
                                                                          tmp_path: Path) -> None:
    with ServerThread(create_app(make_settings(db_url))) as srv:
        _raise_alerts(srv.url, "T1")
        forwarder = Forwarder(srv.url, TOKENS["sensor"], Spool(tmp_path / "spool"), timeout_s=10,
                              table_id="T1", sources=lambda: [CAMERA, DICE]).start()
        assert wait_until(lambda: forwarder.stats.reports >= 1)
        health = httpx.get(f"{srv.url}/health").json()
        assert health["status"] == "degraded"  # the dice reader is reconnecting
        rows = {r["kind"]: r for r in health["sources"]}
        assert rows["camera"]["table_id"] == "T1" and rows["camera"]["fps"] == 29.5
        assert rows["camera"]["dropped"] == 3 and 0 <= rows["camera"]["age_s"] < STALE_S
        assert rows["dice_reader"]["bad_lines"] == 4 and rows["dice_reader"]["silent_s"] == 12.5
        metrics = httpx.get(f"{srv.url}/metrics", headers=auth("viewer")).text
        assert 'table_monitor_source_up{kind="camera",source="usb:0",table="T1"} 1.0' in metrics
        assert 'table_monitor_source_up{kind="dice_reader",source="/dev/ttyUSB0",table="T1"} 0.0' in metrics
        assert 'table_monitor_source_frames_total{fate="dropped",source="usb:0",table="T1"} 3.0' in metrics
        assert 'table_monitor_source_fps{source="usb:0",table="T1"} 29.5' in metrics
        assert ('table_monitor_dice_lines_total{outcome="bad",source="/dev/ttyUSB0",table="T1"} 4.0'
                in metrics)
        assert 'table_monitor_table_report_age_seconds{table="T1"}' in metrics
        table = httpx.get(f"{srv.url}/api/v1/tables/T1", headers=auth("viewer")).json()
        assert [s["source"] for s in table["sources"]] == ["usb:0", "/dev/ttyUSB0"]
        listed = httpx.get(f"{srv.url}/api/v1/tables", headers=auth("viewer")).json()
        assert [{**s, "age_s": None} for s in listed[0]["sources"]] == [
            {**s, "age_s": None} for s in table["sources"]]
        forwarder.close()  # the run stops: its devices leave the server's page
        assert httpx.get(f"{srv.url}/health").json() == {**health, "status": "ok", "sources": []}


def test_a_table_that_stops_reporting_counts_as_down() -> None:
    now = [100.0]
    collector = SourceCollector(clock=lambda: now[0])
    collector.report("T1", [SourceHealth("usb:0", "camera", SourceState.RUNNING, True, fps=30.0)])
    row = collector.health()[0]
    assert row.table == "T1" and row.age_s == 0.0 and row.healthy
    now[0] += STALE_S + 1
    row = collector.health()[0]
    assert row.stale and not row.healthy
    from prometheus_client import CollectorRegistry, generate_latest

    registry = CollectorRegistry()
    registry.register(collector)
    text = generate_latest(registry).decode()
    assert 'table_monitor_source_up{kind="camera",source="usb:0",table="T1"} 0.0' in text
    assert f'table_monitor_table_report_age_seconds{{table="T1"}} {STALE_S + 1}' in text
    collector.report("T1", [])
    assert collector.health() == []


def test_a_run_reports_its_own_sources_as_the_server_takes_them(tmp_path: Path) -> None:
    from monitor.sources.dice_reader import DiceReader

    collector = SourceCollector()
    collector.add(DiceReader(str(tmp_path / "no-port")), table="T1")  # never started
    rows = source_rows(collector)
    assert rows == [{"source": str(tmp_path / "no-port"), "kind": "dice_reader", "state": "not_started",
                     "up": False, "reconnects": 0, "bad_lines": 0, "missing_readings": 0}]
    with ServerThread(create_app(make_settings(f"sqlite:///{tmp_path / 'c.db'}"))) as srv:
        response = httpx.put(f"{srv.url}/api/v1/tables/T1/sources", headers=auth("sensor"),
                             json={"sources": rows})
        assert response.status_code == 200 and response.json()["sources"][0]["state"] == "not_started"


@pytest.mark.parametrize(("body", "where"), [
    ({"sources": [{**CAMERA, "state": "sleeping"}]}, "state"),
    ({"sources": [{**CAMERA, "kind": "microphone"}]}, "kind"),
    ({"sources": [{**CAMERA, "dropped": -1}]}, "dropped"),
    ({"sources": [CAMERA] * 65}, "sources"),
    ({"camera": CAMERA}, "camera"),
])
def test_a_bad_source_report_is_refused_field_by_field(tmp_path: Path, body: dict[str, object],
                                                       where: str) -> None:
    from fastapi.testclient import TestClient

    with TestClient(create_app(make_settings(f"sqlite:///{tmp_path / 'c.db'}"))) as client:
        response = client.put("/api/v1/tables/T1/sources", headers=auth("sensor"), json=body)
        assert response.status_code == 422
        assert where in str([e["loc"] for e in response.json()["detail"]])
        assert client.put("/api/v1/tables/bad%20id/sources", headers=auth("sensor"),
                          json={"sources": []}).status_code == 422


def test_a_busy_tables_snapshot_goes_between_its_batches(tmp_path: Path) -> None:
    """A table whose spool never empties still sends the snapshots spooled before the batch the server
    just acknowledged, and its devices' state, between batches."""
    import json

    from monitor.events.schema import parse_event_json

    events = [parse_event_json(json.dumps(e)) for e in faulty_round("T1")]
    seen: list[str] = []
    forwarder: Forwarder | None = None

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.url.path.endswith("/events/batch"):
            if len(seen) == 1:
                assert forwarder is not None
                forwarder.put(events[3:])  # the table went on meanwhile
            n = len(json.loads(request.content))
            return httpx.Response(200, json={"accepted": n, "duplicates": 0, "alerts": []})
        return httpx.Response(200, json={})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    forwarder = Forwarder("http://central:8080", "sensor-token", Spool(tmp_path / "s"), client=client,
                          table_id="T1", sources=lambda: [CAMERA])
    forwarder.put(events[:3])
    forwarder.put_snapshot("abc123", _jpeg(tmp_path / "abc123.jpg"))
    forwarder.start()
    assert wait_until(lambda: len(seen) >= 4)
    forwarder.close()
    assert seen[:4] == ["POST /api/v1/events/batch", "PUT /api/v1/alerts/abc123/snapshot",
                        "PUT /api/v1/tables/T1/sources", "POST /api/v1/events/batch"]
    assert forwarder.stats.snapshots == 1 and forwarder.stats.sent == len(events)
