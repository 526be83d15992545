"""Source health exported to Prometheus at scrape time."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
from prometheus_client import CollectorRegistry, generate_latest

from monitor.sources.backend import SourceSpec
from monitor.sources.backoff import Backoff
from monitor.sources.dice_reader import DiceReader
from monitor.sources.prometheus import SourceCollector
from monitor.sources.state import SourceState
from monitor.sources.status import SourceMetrics
from monitor.sources.video_source import VideoSource


def write_video(path: Path, frames: int) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25.0, (64, 48))
    for i in range(frames):
        writer.write(np.full((48, 64, 3), i * 20, np.uint8))
    writer.release()
    return path


def test_scrape_reports_frames_and_states(tmp_path: Path) -> None:
    video = VideoSource(SourceSpec.parse(str(write_video(tmp_path / "m.avi", frames=5))))
    reader = DiceReader(str(tmp_path / "no-such-port"))  # never started: state not_started
    registry = CollectorRegistry()
    collector = SourceCollector([video])
    registry.register(collector)
    collector.add(reader)
    with video:
        assert len(list(video)) == 5
    text = generate_latest(registry).decode()
    name = str(tmp_path / "m.avi")
    assert f'table_monitor_source_frames_total{{fate="captured",source="{name}"}} 5.0' in text
    assert f'table_monitor_source_frames_total{{fate="consumed",source="{name}"}} 5.0' in text
    assert f'table_monitor_source_state{{kind="camera",source="{name}",state="ended"}} 1.0' in text
    port = str(tmp_path / "no-such-port")
    assert f'table_monitor_source_up{{kind="dice_reader",source="{port}"}} 0.0' in text
    assert f'table_monitor_dice_lines_total{{outcome="readings",source="{port}"}} 0.0' in text


def _wait_state(reader: DiceReader, states: set[SourceState], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while reader.state not in states:
        assert time.monotonic() < deadline, f"dice reader still {reader.state}"
        time.sleep(0.02)


def test_a_cameras_frame_rate_is_its_captured_frames_over_the_last_seconds(tmp_path: Path) -> None:
    video = VideoSource(SourceSpec.parse(str(tmp_path / "none.avi")))
    captured = [0]
    video.metrics = lambda: SourceMetrics(  # type: ignore[method-assign]
        source_id=video.source_id, state=SourceState.RUNNING, captured=captured[0], dropped=2, consumed=0,
        reconnects=1, queued=0)
    now = [100.0]
    collector = SourceCollector([video], clock=lambda: now[0])
    first = collector.health()[0]
    assert first.fps is None and first.kind == "camera" and first.up and first.healthy
    for _ in range(30):  # 30 s at 25 fps, read once a second
        now[0] += 1.0
        captured[0] += 25
        row = collector.health()[0]
        assert row.fps == 25.0
    now[0] += 1.0
    captured[0] += 5  # the camera slows to 5 fps: the 10 s window shows it within ten reads
    slowed = [collector.health()[0].fps]
    for _ in range(10):
        now[0] += 1.0
        captured[0] += 5
        slowed.append(collector.health()[0].fps)
    assert slowed[-1] == 5.0 and slowed[0] is not None and slowed[0] > 5.0
    assert (row.dropped, row.reconnects, row.captured) == (2, 1, 30 * 25)


def test_the_dice_readers_silence_and_faults_in_health_and_metrics(tmp_path: Path) -> None:
    from monitor.sources.dice_simulator import DiceSimulator

    sim = DiceSimulator(link=tmp_path / "dice", heartbeat_s=0.1, seed=1).start()
    reader = DiceReader(sim.device_path, heartbeat_timeout_s=5.0, poll_s=0.02)
    collector = SourceCollector([reader])
    assert reader.metrics().silent_s is None  # nothing heard yet
    assert collector.health()[0].silent_s is None
    try:
        reader.start()
        _wait_state(reader, {SourceState.RUNNING})
        sim.roll((1, 2, 3))
        assert reader.get(timeout=10) is not None
        row = collector.health()[0]
        assert row.kind == "dice_reader" and row.up and row.bad_lines == 0 and row.missing_readings == 0
        assert row.silent_s is not None and row.silent_s >= 0.0
        registry = CollectorRegistry()
        registry.register(collector)
        text = generate_latest(registry).decode()
        assert f'table_monitor_dice_silence_seconds{{source="{sim.device_path}"}}' in text
    finally:
        reader.stop()
        sim.stop()


def test_health_and_metrics_of_the_api_show_its_sources(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from monitor.api.app import create_app
    from tests.support.api import auth, make_settings

    video = VideoSource(SourceSpec.parse(str(write_video(tmp_path / "m.avi", frames=3))))
    with video:
        assert len(list(video)) == 3
    lost = DiceReader(str(tmp_path / "unplugged"),
                      backoff=Backoff(initial_s=0.02, factor=1.0, maximum_s=0.02))
    app = create_app(make_settings(f"sqlite:///{tmp_path / 'h.db'}"))
    with TestClient(app) as client:
        sources = app.state.services.metrics.sources
        sources.add(video)
        body = client.get("/health").json()
        assert body["status"] == "ok"  # a file that ended is done, not unhealthy
        [cam] = body["sources"]
        assert (cam["kind"], cam["state"], cam["up"], cam["captured"]) == ("camera", "ended", False, 3)
        sources.add(lost)
        lost.start()
        try:
            _wait_state(lost, {SourceState.RECONNECTING, SourceState.ERROR})
            response = client.get("/health")
            assert response.status_code == 200  # a lost device degrades the table, not the server
            body = response.json()
            assert body["status"] == "degraded"
            dice = next(s for s in body["sources"] if s["kind"] == "dice_reader")
            assert dice["state"] in ("reconnecting", "error") and dice["up"] is False
            assert dice["silent_s"] is None and dice["bad_lines"] == 0
        finally:
            lost.stop()
        metrics = client.get("/metrics", headers=auth("viewer")).text
        camera, port = tmp_path / "m.avi", tmp_path / "unplugged"
        assert f'table_monitor_source_state{{kind="camera",source="{camera}",state="ended"}} 1.0' in metrics
        assert f'table_monitor_source_up{{kind="dice_reader",source="{port}"}} 0.0' in metrics
