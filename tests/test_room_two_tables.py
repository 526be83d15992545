"""A room as it is deployed: two `table-monitor run` processes, each playing its own recording as a live
camera, send to one `table-monitor serve` on PostgreSQL; the server is killed with SIGKILL once the
first alerts are there and started again after each table raised its next alert on its own. Every
event and every alert each table judged locally reaches the server exactly once, with its snapshot,
and the server's dashboard API shows both tables with their cameras.

Perception replays the recordings' truth (oracle), so the test needs no models. Nothing is timed:
every wait polls for a state with a generous deadline.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.paths import TABLE_FILE
from tests.support.postgres import PgCluster, free_port

SENSOR = "room-sensor-token-" + "s" * 24
VIEWER = "room-viewer-token-" + "v" * 24
DEADLINE_S = 240.0  # per wait: generous for two cores shared with other work; passing never waits for it

pytestmark = pytest.mark.postgres


def _changed(name: str, seed: int, banker: int, seat: int, before: int, after: int) -> dict[str, Any]:
    """A short round whose one fault is a bet raised after the dice (seed 000 rule 32)."""
    return {"name": name, "description": f"seat {seat} raises its bet after the dice", "seed": seed,
            "expect_alerts": ["bet_changed_after_close"], "actions": [
                {"round_start": {"banker_seat": banker}}, {"bet": {"seat": banker, "dollars": 500}},
                {"bet": {"seat": seat, "dollars": before}}, "no_more_bets",
                {"roll_dice": {"values": [2, 5, 6]}}, {"change_bet": {"seat": seat, "dollars": after}},
                "round_end"]}


def _third(name: str, seed: int, banker: int, seat: int) -> dict[str, Any]:
    """A round of bets and dice under a banker the rotation does not allow (seed 000 rules 3, 40)."""
    return {"name": name, "description": "bets and the dice", "seed": seed, "expect_alerts": [],
            "actions": [{"round_start": {"banker_seat": banker}}, {"bet": {"seat": banker, "dollars": 500}},
                        {"bet": {"seat": seat, "dollars": 25}}, "no_more_bets",
                        {"roll_dice": {"values": [1, 3, 4]}}, "round_end"]}


# Two recordings of three rounds (about 25 s each): an alert in the first round (at 5.5 s), one in the
# second (14.5 s), the third's at its start (18 s: pg1's banker had no wager on the last hand, pg2's
# too few over the hands of this round of play), so the stream goes on well after the server is
# killed. The third depends on the rounds before it, which the restarted server must know
# (monitor.api.ingest.REPLAY_ROUNDS).
RECORDINGS = {
    "pg1": [_changed("a1", 3, 4, 2, 40, 80), _changed("a2", 5, 4, 2, 50, 150), _third("a3", 7, 5, 1)],
    "pg2": [_changed("b1", 11, 6, 1, 50, 150), _changed("b2", 13, 6, 3, 40, 80), _third("b3", 17, 3, 7)],
}


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each table's recording rendered small (a few seconds each) and its table file (its own id)."""
    from monitor.render.rounds.play import play_many
    from monitor.render.rounds.script import parse_script
    from monitor.render.rounds.video import RenderOptions, write_recording

    root = tmp_path_factory.mktemp("room")
    out: dict[str, Path] = {}
    for table, scripts in RECORDINGS.items():
        folder = root / table
        rounds = play_many([(parse_script(s, f"{s['name']}.yaml"), f"{s['name']}.yaml") for s in scripts])
        assert write_recording(rounds, folder, RenderOptions(resolution="480x270", effects=False)).ok
        text = TABLE_FILE.read_text(encoding="utf-8")
        assert "\ntable: table-1\n" in text
        (folder / "table.yaml").write_text(text.replace("\ntable: table-1\n", f"\ntable: {table}\n"))
        out[table] = folder
    return out


def _command() -> list[str]:
    """`table-monitor` as installed beside this interpreter (as a user starts it), else the module."""
    script = Path(sys.executable).with_name("table-monitor")
    return [str(script)] if script.exists() else [sys.executable, "-m", "monitor.cli"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLE_MONITOR_")}
    return {**env, **extra}


def _poll(what: str, predicate: Callable[[], bool], procs: list[Process],
          timeout: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + timeout
    while not _holds(predicate):
        for p in procs:
            if p.proc is not None and p.proc.poll() is not None and p.must_run:
                raise AssertionError(f"{p.name} exited ({p.proc.returncode}) while waiting for {what}:\n"
                                     f"{p.tail()}")
        if time.monotonic() > deadline:
            logs = "\n".join(f"--- {p.name}\n{p.tail()}" for p in procs)
            raise AssertionError(f"still waiting for {what} after {timeout:.0f} s\n{logs}")
        time.sleep(0.2)


def _holds(predicate: Callable[[], bool]) -> bool:
    try:
        return predicate()
    except httpx.HTTPError:  # the server starting or gone: not yet
        return False


class Process:
    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.args, self.env, self.log = name, args, env, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.must_run = True

    def start(self) -> Process:
        with self.log.open("ab") as f:
            self.proc = subprocess.Popen(self.args, env=self.env, stdout=f, stderr=subprocess.STDOUT)
        return self

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no output)"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Central(Process):
    def __init__(self, db: str, root: Path) -> None:
        self.port = free_port()
        self.snapshots = root / "central-snapshots"
        env = _env(TABLE_MONITOR_TOKENS=f"room:viewer:{VIEWER},boxes:sensor:{SENSOR}")
        super().__init__("serve", [*_command(), "serve", "--db", db, "--port", str(self.port),
                                   "--snapshot-dir", str(self.snapshots)], env, root / "serve.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def up(self) -> bool:
        try:
            return httpx.get(f"{self.url}/health", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def get(self, path: str) -> Any:
        response = httpx.get(self.url + path, headers={"Authorization": f"Bearer {VIEWER}"}, timeout=30)
        response.raise_for_status()
        return response.json() if "json" in response.headers.get("content-type", "") else response.content

    def alerts(self, table: str) -> list[dict[str, Any]]:
        return list(self.get(f"/api/v1/alerts?table_id={table}&limit=500")["items"])

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


class Box(Process):
    """One table's camera box: `table-monitor run` on its recording, its own SQLite store and spool."""

    def __init__(self, table: str, recording: Path, root: Path, server: str) -> None:
        self.table = table
        self.folder = root / table
        self.folder.mkdir()
        self.db = self.folder / "table.db"
        self.spool = self.folder / "spool"
        self.snapshots = self.folder / "snapshots"
        args = [*_command(), "run", "--table", str(recording / "table.yaml"),
                "--camera", str(recording / "video.mp4"), "--truth", str(recording / "truth.jsonl"),
                "--console-log", str(recording / "events.jsonl"), "--perceive-fps", "15",
                "--db", f"sqlite:///{self.db}", "--snapshot-dir", str(self.snapshots), "--port", "0",
                "--server", server, "--spool", str(self.spool)]
        env = _env(TABLE_MONITOR_SERVER_TOKEN=SENSOR, TABLE_MONITOR_TOKENS=f"floor:viewer:{VIEWER}")
        super().__init__(f"run {table}", args, env, root / f"run-{table}.log")

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        if not self.db.exists():
            return []
        try:
            with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=5) as con:
                return con.execute(sql).fetchall()
        except sqlite3.OperationalError:  # not created yet
            return []

    def local_alerts(self) -> int:
        return len(self.rows("SELECT id FROM alerts"))

    def backlog(self) -> int:
        """Bytes of events spooled and not yet acknowledged by the server."""
        try:
            size = (self.spool / "events.jsonl").stat().st_size
            sent = int((self.spool / "sent").read_text().strip() or 0)
        except (FileNotFoundError, ValueError):
            return 0
        return size - sent


@pytest.fixture
def room(pg_cluster: PgCluster, tmp_path: Path) -> Iterator[tuple[Central, dict[str, Box], str]]:
    db = pg_cluster.new_database()
    central = Central(db, tmp_path)
    boxes: dict[str, Box] = {}
    try:
        yield central, boxes, db
    finally:
        for p in [*boxes.values(), central]:
            p.stop()


def test_two_run_processes_through_a_serve_killed_and_restarted_lose_nothing_and_repeat_nothing(
        room: tuple[Central, dict[str, Box], str], recordings: dict[str, Path], tmp_path: Path) -> None:
    # ``room`` first: without PostgreSQL the test is skipped before anything is rendered
    central, boxes, db = room
    central.start()
    procs: list[Process] = [central]
    _poll("the central server to answer", central.up, procs)
    for table, recording in recordings.items():
        boxes[table] = Box(table, recording, tmp_path, central.url).start()
        procs.append(boxes[table])

    # 1. Both tables' first alerts reached the server, and their cameras are on its dashboard.
    _poll("a first alert of each table at the server", lambda: all(central.alerts(t) for t in boxes), procs)

    def cameras_shown() -> bool:
        shown = {t["id"]: t["sources"] for t in central.get("/api/v1/tables")}
        return all(any(s["kind"] == "camera" and s["captured"] for s in shown.get(t, [])) for t in boxes)

    _poll("each table's camera on the server's dashboard", cameras_shown, procs)
    health = central.get("/health")
    assert {s["table_id"] for s in health["sources"]} == set(boxes)

    # 2. The server dies mid-stream; each table goes on judging and spooling, and raises its next alert
    # (unless it raised all its recording has before the kill).
    central.must_run = False
    central.kill()
    from sqlalchemy import create_engine, text

    engine = create_engine(db)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT table_id, id FROM alerts")).all()
    before_kill = {t: {i for table, i in rows if table == t} for t in boxes}
    total = {t: len((recordings[t] / "alerts.jsonl").read_text().splitlines()) for t in boxes}

    def next_alert_spooled(t: str, box: Box) -> bool:
        more = box.local_alerts() > len(before_kill[t]) or box.local_alerts() >= total[t]
        return more and box.backlog() > 0

    _poll("each table's next alert raised while the server is away",
          lambda: all(next_alert_spooled(t, b) for t, b in boxes.items()), procs)
    raised_while_away = {t: {r[0] for r in b.rows("SELECT id FROM alerts")} - before_kill[t]
                         for t, b in boxes.items()}
    assert any(raised_while_away.values())

    # 3. Back on the same store and port; the tables finish their recordings, drain and exit.
    central.must_run = True
    central.start()
    _poll("the central server to answer again", central.up, procs)
    for box in boxes.values():
        box.must_run = False
    _poll("both runs to finish their recordings",
          lambda: all(b.proc is not None and b.proc.poll() is not None for b in boxes.values()), procs)
    for box in boxes.values():
        assert box.proc is not None and box.proc.returncode == 0, box.tail()
        assert box.backlog() == 0, f"{box.name} left events spooled:\n{box.tail()}"
        assert not list((box.spool / "snapshots").iterdir()), f"{box.name} left snapshots:\n{box.tail()}"

    try:
        for table, box in boxes.items():
            local = box.rows("SELECT seq, kind, payload FROM events ORDER BY seq")
            with engine.connect() as conn:
                there = conn.execute(text("SELECT seq, kind, payload FROM events WHERE table_id = :t "
                                          "ORDER BY seq"), {"t": table}).all()
            assert local, f"{box.name} stored no events"
            # every event once, in order, as the table judged it
            assert [(s, k) for s, k, _ in there] == [(s, k) for s, k, _ in local]
            assert [_payload(p) for *_, p in there] == [json.loads(p) for *_, p in local]

            local_alerts = dict(box.rows("SELECT id, code FROM alerts"))
            alerts = central.alerts(table)
            ids = [a["id"] for a in alerts]
            assert len(ids) == len(set(ids)), f"an alert of {table} twice: {ids}"
            assert {a["id"]: a["code"] for a in alerts} == local_alerts  # every alert once, the same
            assert raised_while_away[table] <= set(ids)  # those raised while the server was away too
            assert len(local_alerts) >= 2, local_alerts
            # each alert's snapshot from the box, byte for byte
            for alert_id, snapshot in box.rows("SELECT id, snapshot FROM alerts WHERE snapshot IS NOT NULL"):
                assert central.get(f"/api/v1/alerts/{alert_id}")["has_snapshot"], alert_id
                picture = central.get(f"/api/v1/alerts/{alert_id}/snapshot")
                assert picture == (box.snapshots / snapshot).read_bytes(), alert_id
    finally:
        engine.dispose()
    assert all(b.rows("SELECT snapshot FROM alerts WHERE snapshot IS NOT NULL") for b in boxes.values())
    # the audit chain, with the snapshots attached after the alerts, verifies
    verify = subprocess.run([*_command(), "audit", "verify", "--db", db], env=_env(), capture_output=True,
                            text=True, timeout=300)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # the tables stopped: their devices are off the dashboard rather than shown as silent
    assert central.get("/health")["sources"] == []
    shutil.rmtree(tmp_path / "central-snapshots", ignore_errors=True)


def _payload(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value
