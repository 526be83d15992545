"""Tables to a central server: the on-disk spool, and two tables' events through a server that is
stopped and started again mid-stream, every event and alert arriving exactly once (SQLite and
PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from monitor.api.app import create_app
from monitor.events.schema import EventBase, parse_event_json
from monitor.pipeline import forward
from monitor.pipeline.forward import Forwarder, Spool, wait_drained
from tests.support.api import TOKENS, ServerThread, auth, faulty_round, make_settings
from tests.support.paths import TABLE_FILE
from tests.support.waiting import wait_until


def _events(table: str) -> list[EventBase]:
    return [parse_event_json(json.dumps(e)) for e in faulty_round(table)]


# ---------------------------------------------------------------- the spool


def test_the_spool_keeps_batches_in_order_until_acknowledged_across_a_restart(tmp_path: Path) -> None:
    events = _events("T1")
    spool = Spool(tmp_path / "s")
    spool.append(events[:3])
    spool.append(events[3:5])
    spool.append([])  # nothing: no line
    spool.append(events[5:])
    first, end = spool.pending(max_events=4)
    assert [e["seq"] for e in first] == [0, 1, 2]  # whole lines only: the next would pass 4
    spool.ack(end)
    again = Spool(tmp_path / "s")  # a new process on the same folder
    rest, end2 = again.pending(max_events=1000)
    assert [e["seq"] for e in rest] == [e.seq for e in events[3:]]
    again.ack(end2)
    assert again.backlog_bytes() == 0 and again.pending() == ([], end2)
    assert Spool(tmp_path / "s").pending() == ([], end2)


def test_a_line_cut_short_by_a_crash_is_dropped_and_a_damaged_one_skipped(tmp_path: Path) -> None:
    events = _events("T1")
    spool = Spool(tmp_path / "s")
    spool.append(events[:2])
    path = tmp_path / "s" / forward.SPOOL_FILE
    with path.open("ab") as f:
        f.write(b"this is not json\n")
    spool.append(events[2:4])
    with path.open("ab") as f:
        f.write(b'[{"type": "round_sta')  # the process died while writing
    reopened = Spool(tmp_path / "s")
    got, end = reopened.pending()
    assert [e["seq"] for e in got] == [0, 1, 2, 3]
    assert path.read_bytes().endswith(b"\n") and end == path.stat().st_size


def test_batches_are_fsynced_the_offset_only_when_an_emptied_spool_is_cut(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        real(fd)

    monkeypatch.setattr(forward.os, "fsync", fsync)
    events = _events("T1")
    spool = Spool(tmp_path / "s")
    spool.append(events[:2])
    assert synced == [forward.SPOOL_FILE]  # a batch is on disk before put returns
    synced.clear()
    _, end = spool.pending()
    spool.ack(end)
    assert synced == [] and Spool(tmp_path / "s").offset == end  # recorded, not fsynced
    monkeypatch.setattr(forward, "COMPACT_BYTES", 10)
    spool.append(events[2:4])
    synced.clear()
    spool.ack(spool.pending()[1])
    # emptied and cut: the offset's zero is on disk before the spool is truncated
    assert synced[:2] == [forward.OFFSET_FILE + ".tmp", forward.SPOOL_FILE]


def test_an_offset_lost_with_the_power_resends_what_the_server_already_has(tmp_path: Path) -> None:
    events = _events("T1")
    spool = Spool(tmp_path / "s")
    spool.append(events[:3])
    spool.append(events[3:])
    spool.ack(spool.pending()[1])
    (tmp_path / "s" / forward.OFFSET_FILE).write_text("")  # replaced, its data never written
    again, _ = Spool(tmp_path / "s").pending()
    assert [e["seq"] for e in again] == [e.seq for e in events]  # all of it again: the server keeps each once


def test_an_emptied_spool_starts_again_from_zero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forward, "COMPACT_BYTES", 10)
    events = _events("T1")
    spool = Spool(tmp_path / "s")
    spool.append(events[:2])
    _, end = spool.pending()
    spool.ack(end)
    path = tmp_path / "s" / forward.SPOOL_FILE
    assert path.stat().st_size == 0 and spool.offset == 0
    assert (tmp_path / "s" / forward.OFFSET_FILE).read_text() == "0"
    spool.append(events[2:3])
    assert [e["seq"] for e in spool.pending()[0]] == [2]
    # an offset past the end (emptied, then a crash before the offset was reset) means all was sent
    (tmp_path / "s" / forward.OFFSET_FILE).write_text("999999")
    assert [e["seq"] for e in Spool(tmp_path / "s").pending()[0]] == [2]


# ---------------------------------------------------------------- through a central server


def _stored(url: str, table: str) -> tuple[int, list[str]]:
    from monitor.store.db import make_engine
    from monitor.store.models import AlertRow, EventRow

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            events = conn.execute(select(func.count()).select_from(EventRow)
                                  .where(EventRow.table_id == table)).scalar_one()
            alerts = list(conn.execute(select(AlertRow.id).where(AlertRow.table_id == table)).scalars())
    finally:
        engine.dispose()
    return int(events), alerts


def _expected_alerts(tmp_path: Path, events: dict[str, list[EventBase]]) -> dict[str, list[str]]:
    """The alerts one server raises for these events sent once each, with nothing in the way."""
    from fastapi.testclient import TestClient

    url = f"sqlite:///{tmp_path / 'reference.db'}"
    with TestClient(create_app(make_settings(url))) as client:
        for evs in events.values():
            body = [json.loads(e.model_dump_json()) for e in evs]
            assert client.post("/api/v1/events/batch", headers=auth("sensor"), json=body).status_code == 200
    return {table: sorted(_stored(url, table)[1]) for table in events}


def test_two_tables_through_a_server_stopped_and_restarted_arrive_exactly_once(
        db_url: str, tmp_path: Path) -> None:
    events = {"T1": _events("T1"), "T2": _events("T2")}
    expected = _expected_alerts(tmp_path, events)
    assert all(len(ids) >= 2 for ids in expected.values())
    half = {t: len(evs) // 2 for t, evs in events.items()}

    first = ServerThread(create_app(make_settings(db_url)))
    port = first.port
    server = f"http://127.0.0.1:{port}"
    def forwarder(table: str) -> Forwarder:
        return Forwarder(server, TOKENS["sensor"], Spool(tmp_path / f"spool-{table}"), timeout_s=5.0).start()

    forwarders = {t: forwarder(t) for t in events}
    with first:
        for t, evs in events.items():
            for i in range(0, half[t], 2):
                forwarders[t].put(evs[i:min(i + 2, half[t])])
        for f in forwarders.values():
            assert wait_drained(f, 30)
        assert all(f.stats.connected for f in forwarders.values())
    # the server is gone; the tables go on, and their events wait on disk
    for t, evs in events.items():
        for i in range(half[t], len(evs), 3):
            forwarders[t].put(evs[i:i + 3])
    assert wait_until(lambda: all(f.stats.failures >= 1 for f in forwarders.values()))
    assert all(f.spool.backlog_bytes() > 0 and not f.stats.connected for f in forwarders.values())
    # table T1's process dies after sending but before recording it: its whole spool goes again
    forwarders["T1"].close(drain_s=0.0)
    forwarders["T1"].spool.ack(0)
    forwarders["T1"] = forwarder("T1")

    with ServerThread(create_app(make_settings(db_url)), port=port):  # back, on the same store
        for f in forwarders.values():
            assert wait_drained(f, 60), f"{f.spool.backlog_bytes()} bytes still spooled"
        for f in forwarders.values():
            f.close()
    for t, evs in events.items():
        count, alerts = _stored(db_url, t)
        assert count == len(evs)  # nothing lost, nothing twice
        assert sorted(alerts) == expected[t]  # every alert once, the same as sent without a break
    resent = forwarders["T1"].stats
    assert resent.duplicates == half["T1"] and resent.sent == len(events["T1"]) - half["T1"]
    assert forwarders["T2"].stats.duplicates == 0


def test_a_server_that_refuses_the_token_keeps_the_events_spooled(tmp_path: Path) -> None:
    with ServerThread(create_app(make_settings(f"sqlite:///{tmp_path / 'c.db'}"))) as srv:
        f = Forwarder(srv.url, "not-a-token-" + "x" * 20, Spool(tmp_path / "s"), timeout_s=5.0).start()
        f.put(_events("T1")[:3])
        assert wait_until(lambda: f.stats.failures >= 2)
        assert f.stats.sent == 0 and f.spool.backlog_bytes() > 0
        from prometheus_client import CollectorRegistry, generate_latest

        from monitor.pipeline.forward import ForwarderCollector

        registry = CollectorRegistry()
        registry.register(ForwarderCollector(f))
        text = generate_latest(registry).decode()
        assert f'table_monitor_forward_connected{{server="{srv.url}"}} 0.0' in text
        backlog = float(f.spool.backlog_bytes())
        assert f'table_monitor_forward_backlog_bytes{{server="{srv.url}"}} {backlog}' in text
        assert f'table_monitor_forward_events_total{{outcome="stored",server="{srv.url}"}} 0.0' in text
        f.close(drain_s=0.0)
    assert [e["seq"] for e in Spool(tmp_path / "s").pending()[0]] == [0, 1, 2]  # for the next start


def test_run_refuses_a_server_without_a_token_or_a_url_it_cannot_use() -> None:
    from monitor.cli import app

    runner = CliRunner()
    base = ["run", "--table", str(TABLE_FILE), "--camera", "0"]
    result = runner.invoke(app, [*base, "--server", "http://monitor:8080"],
                           env={"TABLE_MONITOR_SERVER_TOKEN": ""})
    assert result.exit_code == 2 and "--server needs --token" in result.output
    result = runner.invoke(app, [*base, "--server", "monitor:8080", "--token", "t" * 24])
    assert result.exit_code == 2 and "expected http://HOST:PORT" in result.output


def test_the_forwarder_posts_the_spool_as_sensor_batches(tmp_path: Path) -> None:
    seen: list[tuple[str, list[int]]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append((request.headers["authorization"], [e["seq"] for e in body]))
        return httpx.Response(200, json={"accepted": len(body), "duplicates": 0, "alerts": []})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    f = Forwarder("http://central:8080/", "sensor-token", Spool(tmp_path / "s"), client=client).start()
    f.put(_events("T1")[:2])
    f.put(_events("T1")[2:3])
    assert wait_drained(f, 10)
    f.close()
    assert [seqs for _, seqs in seen] in ([[0, 1], [2]], [[0, 1, 2]])
    assert {auth for auth, _ in seen} == {"Bearer sensor-token"}
    assert f.stats.sent == 3
