"""The live chain end to end: a rendered clip played as a camera, oracle perception, the dice simulator on
a real pseudo-terminal read by the real reader, the API with a real SQLite store and its WebSocket;
and the faults of devices: a corrupt video and a camera that drops and comes back."""

from __future__ import annotations

import gc
import json
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from monitor.perception.detections import Detections
from monitor.pipeline.session import SessionOptions, open_session
from tests.support.paths import TABLE_FILE

TOKEN = "e2e-viewer-token-0123456789"
SCRIPT = """
name: short_bet_change
description: seat 2 doubles its bet after the dice (seed 000 rule 32)
seed: 3
expect_alerts: [bet_changed_after_close]
actions:
  - round_start: {banker_seat: 4}
  - bet: {seat: 4, dollars: 500}
  - bet: {seat: 2, dollars: 40}
  - no_more_bets
  - roll_dice: {values: [2, 5, 6]}
  - change_bet: {seat: 2, dollars: 80}
  - round_end
"""


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An eight-second round rendered small (the calibration scales detections to its image size)."""
    import yaml

    from monitor.render.rounds.play import play_many
    from monitor.render.rounds.script import parse_script
    from monitor.render.rounds.video import RenderOptions, write_recording

    out = tmp_path_factory.mktemp("clip")
    rounds = play_many([(parse_script(yaml.safe_load(SCRIPT), "short.yaml"), "short.yaml")])
    result = write_recording(rounds, out, RenderOptions(resolution="480x270", effects=False))
    assert result.ok
    return out


def options(tmp: Path, camera: str, clip: Path | None, **kw: object) -> SessionOptions:
    return SessionOptions(
        table=TABLE_FILE, camera=camera, db_url=f"sqlite:///{tmp / 'store.db'}",
        snapshot_dir=tmp / "snapshots", tokens=f"e2e:viewer:{TOKEN}", port=0,
        simulate_dice=clip / "events.jsonl" if clip else None,
        console_log=clip / "events.jsonl" if clip else None,
        truth=clip / "truth.jsonl" if clip else None, **kw,  # type: ignore[arg-type]
    )


def rows(db: Path, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    with sqlite3.connect(db) as con:
        return con.execute(sql).fetchall()


def listen(url: str, got: list[dict], ready: threading.Event, stop: threading.Event) -> None:  # type: ignore[type-arg]
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(url.replace("http://", "ws://") + "/api/v1/live/ws") as ws:
        ws.send(json.dumps({"type": "auth", "token": TOKEN}))
        ready.set()
        while not stop.is_set():
            try:
                got.append(json.loads(ws.recv(timeout=0.2)))
            except TimeoutError:
                continue
            except ConnectionClosed:  # the server shuts down at the end of the run
                return


def test_a_rendered_round_through_the_live_chain_alerts_with_a_snapshot(clip: Path, tmp_path: Path) -> None:
    session = open_session(options(tmp_path, str(clip / "video.mp4"), clip))
    got: list[dict] = []  # type: ignore[type-arg]
    ready, stop = threading.Event(), threading.Event()
    ws = threading.Thread(target=listen, args=(session.server.url, got, ready, stop), daemon=True)
    ws.start()
    try:
        assert ready.wait(10)
        assert session.perception_label.startswith("ORACLE")
        assert session.wait(60), "the clip did not finish playing"
        time.sleep(1.0)
        assert gc.get_freeze_count() > 0  # the warm heap left out of the collector's full passes
        # the run's camera and dice reader in the embedded API's /health and /metrics
        import httpx

        health = httpx.get(f"{session.server.url}/health").json()
        kinds = {s["kind"]: s for s in health["sources"]}
        assert set(kinds) == {"camera", "dice_reader"}
        assert kinds["camera"]["captured"] > 0 and kinds["dice_reader"]["reconnects"] == 0
        metrics = httpx.get(f"{session.server.url}/metrics",
                            headers={"Authorization": f"Bearer {TOKEN}"}).text
        assert 'table_monitor_source_up{kind="dice_reader"' in metrics
    finally:
        session.close()
        stop.set()
        ws.join(5)
    assert gc.get_freeze_count() == 0  # and returned to it when the run stopped
    db = tmp_path / "store.db"
    alerts = rows(db, "SELECT code, snapshot, media_trigger FROM alerts")
    assert [a[0] for a in alerts] == ["bet_changed_after_close"]
    _code, snapshot, trigger = alerts[0]
    assert snapshot and (tmp_path / "snapshots" / snapshot).stat().st_size > 1000
    truth = json.loads((clip / "alerts.jsonl").read_text().splitlines()[0])
    assert abs(trigger - truth["media"]["trigger"]) < 1.0  # within a second of the true moment
    sources = dict(rows(db, "SELECT kind || '/' || source, count(*) FROM events GROUP BY kind, source"))
    assert sources["dice_rolled/dice_reader"] == 1  # through the pty and the real reader
    assert sources["bet_placed/vision"] == 2 and sources["bet_changed/vision"] == 1
    assert sources["round_started/operator"] == 1
    pushed = [m for m in got if m.get("type") == "alert"]
    assert [m["data"]["code"] for m in pushed] == ["bet_changed_after_close"]
    assert pushed[0]["data"]["has_snapshot"] is True
    assert session.run.errors == []


def test_a_file_perceived_at_half_its_frame_rate_still_alerts_and_misses_no_frame(clip: Path,
                                                                                  tmp_path: Path) -> None:
    """``perceive_fps`` 15 on a 30 fps file: every other frame handed out (the rate the end-to-end proof
    covers), the tracker told 15 fps, the coverage watch counting the frames skipped on purpose as
    none missed, and the alert raised as at the full rate."""
    import cv2

    cap = cv2.VideoCapture(str(clip / "video.mp4"))
    fps, frames = cap.get(cv2.CAP_PROP_FPS), int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    cap.release()
    assert fps == 30
    session = open_session(options(tmp_path, str(clip / "video.mp4"), clip, perceive_fps=15.0))
    try:
        assert session.run.chain.fps == 15
        assert session.wait(60), "the clip did not finish playing"
        time.sleep(1.0)
    finally:
        session.close()
    stats = session.run.stats
    # every other frame handed out: each is perceived, or counted skipped where a busy machine lost it
    # (a live source's newest frame wins); the frames left out on purpose are not counted as skipped
    assert abs(stats.frames_perceived + stats.frames_skipped - frames / 2) <= 2
    assert stats.frames_skipped < frames / 8
    db = tmp_path / "store.db"
    assert [a[0] for a in rows(db, "SELECT code FROM alerts")] == ["bet_changed_after_close"]
    assert session.run.errors == []


def test_a_corrupt_video_is_a_device_alert_and_the_run_ends_cleanly(clip: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.mp4"
    data = (clip / "video.mp4").read_bytes()
    broken.write_bytes(data[: len(data) * 2 // 3])  # cut mid-stream: the decoder stops early
    session = open_session(options(tmp_path, str(broken), clip))
    try:
        assert session.wait(60)
        time.sleep(0.5)
    finally:
        session.close()
    db = tmp_path / "store.db"
    lost = rows(db, "SELECT code, message FROM alerts WHERE code = 'device_lost'")
    assert len(lost) == 1 and "camera" in lost[0][1]
    # what was seen before the break went through: frames, and the console's round start
    assert session.run.stats.frames_perceived > 30
    assert rows(db, "SELECT count(*) FROM events WHERE kind = 'round_started'")[0][0] == 1
    assert session.run.errors == []


class DroppingCamera:
    """A live camera that delivers frames, drops out (reads fail, re-opens fail a few times), returns."""

    def __init__(self, before: int, failed_opens: int) -> None:
        self.before = before
        self.failed_opens = failed_opens
        self.opens = 0
        self.served = 0

    def factory(self) -> DroppingCamera.Backend:
        return DroppingCamera.Backend(self)

    class Backend:
        def __init__(self, cam: DroppingCamera) -> None:
            self.cam = cam

        def open(self) -> None:
            from monitor.sources.backend import OpenError

            self.cam.opens += 1
            if 1 < self.cam.opens <= 1 + self.cam.failed_opens:
                raise OpenError("camera unplugged")

        def read(self) -> np.ndarray | None:
            time.sleep(1 / 60)
            if self.cam.opens == 1 and self.cam.served >= self.cam.before:
                return None  # the cable is pulled
            self.cam.served += 1
            return np.full((270, 480, 3), 40, np.uint8)

        def close(self) -> None:
            pass

        @property
        def fps(self) -> float | None:
            return 30.0

        @property
        def frame_count(self) -> int | None:
            return None


class EmptyTable:
    """Perception that sees nothing (the camera test is about the device, not the table)."""

    label = "empty"

    def see(self, index: int, image: np.ndarray) -> tuple[Detections, None]:
        return Detections(image.shape[1], image.shape[0], ()), None


def test_a_camera_that_drops_and_returns_gives_lost_and_recovered_alerts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from monitor.sources.backoff import Backoff
    from monitor.sources.video_source import SourceOptions

    monkeypatch.setattr("monitor.pipeline.session.choose", lambda *a, **k: EmptyTable())
    cam = DroppingCamera(before=20, failed_opens=3)
    opts = options(tmp_path, "0", None, backend_factory=cam.factory,
                   source_options=SourceOptions(backoff=Backoff(0.05, 2.0, 0.2), failures_before_lost=1))
    session = open_session(opts)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and cam.served < 60:
            time.sleep(0.1)
        time.sleep(0.5)
    finally:
        session.close()
    assert cam.served >= 60, "frames did not flow again after the camera came back"
    codes = [r[0] for r in rows(tmp_path / "store.db", "SELECT code FROM alerts ORDER BY raised_at")]
    assert codes == ["device_lost", "device_recovered"]
    assert session.run.stats.frames_in > 40  # frames reached perception again after the return
    shutil.rmtree(tmp_path / "snapshots", ignore_errors=True)


class SlowThenQuickTable(EmptyTable):
    """Perception that takes 50 ms a frame (a starved machine) until ``quick`` is set."""

    label = "slow"

    def __init__(self) -> None:
        self.quick = threading.Event()

    def see(self, index: int, image: np.ndarray) -> tuple[Detections, None]:
        if not self.quick.is_set():
            time.sleep(0.05)
        return super().see(index, image)


def test_a_live_chain_that_cannot_keep_up_is_a_device_alert_until_it_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The camera at 60 frames a second, perception at 20: two frames in three are never seen (a card
    dealt then is never counted). The monitor says so, and says when it sees every frame again."""
    from monitor.pipeline.frame_coverage import FrameCoverage

    table = SlowThenQuickTable()
    monkeypatch.setattr("monitor.pipeline.session.choose", lambda *a, **k: table)
    monkeypatch.setattr("monitor.pipeline.orchestrator.FrameCoverage",
                        lambda step: FrameCoverage(window_s=0.5, step=step))
    cam = DroppingCamera(before=10**9, failed_opens=0)
    session = open_session(options(tmp_path, "0", None, backend_factory=cam.factory))
    db = tmp_path / "store.db"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not rows(db, "SELECT 1 FROM alerts"):
            time.sleep(0.1)
        table.quick.set()
        while time.monotonic() < deadline and len(rows(db, "SELECT 1 FROM alerts")) < 2:
            time.sleep(0.1)
        summary = session.run.frames_summary()
    finally:
        session.close()
    got = rows(db, "SELECT code, message FROM alerts ORDER BY raised_at")
    assert [code for code, _ in got] == ["device_lost", "device_recovered"]
    assert "camera usb:0 frames lost (" in got[0][1] and "cards can be missed" in got[0][1]
    assert "recovered after" in got[1][1]
    stats = session.run.stats
    assert stats.frames_skipped > stats.frames_perceived / 4  # the slow stretch skipped most frames
    assert f"{stats.frames_skipped} of the camera's frames never went through" in summary
    shutil.rmtree(tmp_path / "snapshots", ignore_errors=True)


def test_a_live_table_sends_every_stored_event_to_a_central_server(clip: Path, tmp_path: Path) -> None:
    """``run --server``: the table judges locally and the central server gets the same events and
    raises the same alerts."""
    import dataclasses

    from monitor.api.app import create_app
    from monitor.api.auth import Role, file_line
    from tests.support.api import TOKENS, ServerThread, make_settings

    central_db = tmp_path / "central.db"
    page_token = "floor-page-token-" + "f" * 20  # the table's own page, from a tokens file as serve takes
    (tmp_path / "tokens.txt").write_text(file_line("floor", Role.VIEWER, page_token) + "\n")
    central_settings = make_settings(f"sqlite:///{central_db}", snapshot_dir=tmp_path / "central-snapshots")
    with ServerThread(create_app(central_settings)) as central:
        opts = options(tmp_path, str(clip / "video.mp4"), clip, server_url=central.url,
                       server_token=TOKENS["sensor"], spool_dir=tmp_path / "spool")
        session = open_session(dataclasses.replace(opts, tokens="", tokens_file=tmp_path / "tokens.txt"))
        try:
            import httpx

            me = httpx.get(f"{session.server.url}/api/v1/me",
                           headers={"Authorization": f"Bearer {page_token}"})
            assert me.status_code == 200 and me.json()["name"] == "floor"
            assert session.wait(60), "the clip did not finish playing"
            time.sleep(1.0)
            metrics = httpx.get(f"{session.server.url}/metrics",
                                headers={"Authorization": f"Bearer {page_token}"}).text
            assert f'table_monitor_forward_connected{{server="{central.url}"}} 1.0' in metrics
            # the table's camera and dice reader on the central server's health and table list
            there = httpx.get(f"{central.url}/health").json()["sources"]
            assert {(s["table_id"], s["kind"]) for s in there} == {("table-1", "camera"),
                                                                    ("table-1", "dice_reader")}
        finally:
            session.close()  # the local store flushed, then the spool sent
        assert session.forwarder is not None and session.forwarder.spool.backlog_bytes() == 0
        assert httpx.get(f"{central.url}/health").json()["sources"] == []  # the table stopped
        # each alert's snapshot, from the box's folder to the central server's
        for alert_id, snapshot in rows(tmp_path / "store.db", "SELECT id, snapshot FROM alerts"):
            assert snapshot
            picture = httpx.get(f"{central.url}/api/v1/alerts/{alert_id}/snapshot",
                                headers={"Authorization": f"Bearer {TOKENS['viewer']}"})
            assert picture.content == (tmp_path / "snapshots" / snapshot).read_bytes()
        assert session.forwarder.stats.snapshots >= 1
    local = rows(tmp_path / "store.db", "SELECT table_id, seq, kind FROM events ORDER BY table_id, seq")
    there = rows(central_db, "SELECT table_id, seq, kind FROM events ORDER BY table_id, seq")
    assert local and there == local
    assert rows(central_db, "SELECT id, code FROM alerts ORDER BY id") == rows(
        tmp_path / "store.db", "SELECT id, code FROM alerts ORDER BY id")
    assert session.forwarder.stats.sent == len(local) and session.forwarder.stats.duplicates == 0
