"""Shared fixtures of the store and API tests: real SQLite files and a throwaway PostgreSQL.

The PostgreSQL cluster is created with the Debian binaries (initdb / pg_ctl) in a temporary
directory on a free port, once per test session; every test gets a fresh database in it.
Tests using ``db_url`` run against both backends; PostgreSQL is skipped when absent.
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_BIN_DIRS = [Path("/usr/lib/postgresql/15/bin"), *sorted(Path("/usr/lib/postgresql").glob("*/bin"))]


def _pg_bin(name: str) -> str | None:
    for d in PG_BIN_DIRS:
        if (d / name).exists():
            return str(d / name)
    return shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    def __init__(self, root: Path, port: int) -> None:
        self.root = root
        self.port = port
        self._ids = itertools.count(1)

    def admin_url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def new_database(self) -> str:
        import psycopg

        name = f"tm_{os.getpid()}_{next(self._ids)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg not installed")
    root = Path(tempfile.mkdtemp(prefix="tm-pg-"))
    data = root / "data"
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    run_as: list[str] = []
    if os.geteuid() == 0:  # postgres refuses to run as root: use the 'postgres' system user
        no_user = subprocess.run(["id", "postgres"], capture_output=True).returncode != 0
        if shutil.which("runuser") is None or no_user:
            pytest.skip("running as root and no 'postgres' user to run the server")
        shutil.chown(root, "postgres")
        run_as = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    try:
        subprocess.run([*run_as, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True, env=env)
        subprocess.run([*run_as, pg_ctl, "-D", str(data), "-l", str(root / "log"), "-w", "-t", "60",
                        "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
                       check=True, capture_output=True, env=env)
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"could not start a PostgreSQL cluster: {exc.stderr.decode(errors='replace')[-300:]}")
    try:
        yield PgCluster(root, port)
    finally:
        subprocess.run([*run_as, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True,
                       env=env)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: a SQLite file, or a new database in the throwaway cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    return cluster.new_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.db'}"


# ---------------------------------------------------------------- the API under test

TOKENS = {
    "admin": "admin-token-" + "a" * 24,
    "supervisor": "super-token-" + "s" * 24,
    "viewer": "viewer-token-" + "v" * 24,
    "sensor": "sensor-token-" + "n" * 24,
}
WRONG_TOKEN = "not-a-known-token-" + "x" * 20


def auth(role: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[role]}"}


def make_settings(db: str, **overrides: object):  # -> Settings
    from pydantic import SecretStr

    from monitor.api.settings import Settings

    tokens = ",".join(f"{role}-user:{role}:{token}" for role, token in TOKENS.items())
    values: dict[str, object] = {"db_url": db, "tokens": SecretStr(tokens), "table_push_interval_s": 0.05,
                                 **overrides}
    return Settings(**values)  # type: ignore[arg-type]


def event(seq: int, type_: str, table: str = "T1", **fields: object) -> dict[str, object]:
    from datetime import UTC, datetime

    return {"type": type_, "table_id": table, "seq": seq, "media_time": 10 + seq * 2.0,
            "wall_time": datetime.now(UTC).isoformat(), "source": "vision", **fields}


def faulty_round(table: str = "T1", start: int = 0, round_id: str = "R1") -> list[dict[str, object]]:
    """A Pai Gow round with four faults: a bet changed after no more bets (seed 000 rule 32), an ace
    exposed on the deal (48a), a stub of five (55), and an impossible dice reading (8)."""
    s = start
    return [
        event(s, "round_started", table, round_id=round_id, banker_seat=1),
        event(s + 1, "bet_placed", table, seat=2, amount=2500),
        event(s + 2, "bet_placed", table, seat=4, amount=10000),
        event(s + 3, "bets_closed", table),
        event(s + 4, "bet_changed", table, seat=4, before=10000, after=20000),
        event(s + 5, "card_exposed", table, card="As", zone="pile:3"),
        event(s + 6, "stub_counted", table, n=5),
        event(s + 7, "dice_rolled", table, values=[3, 9, 2]),
        event(s + 8, "round_ended", table),
    ]


class ServerThread:
    """A real uvicorn server on a free loopback port, in a thread."""

    def __init__(self, app: object, port: int | None = None) -> None:
        import threading

        import uvicorn

        self.port = port or _free_port()  # a port of its own, or the one a stopped server had
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning",  # type: ignore[arg-type]
                                access_log=False, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ServerThread:
        import time

        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the API server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
