"""A throwaway PostgreSQL for the store and API tests (the fixtures ``pg_cluster`` and ``db_url`` in
tests/conftest.py start it).

The cluster is created with the Debian binaries (initdb / pg_ctl) in a temporary directory on a free
port, once per test session; every test gets a fresh database in it. Where it cannot be started, the
test that asked for it is skipped.
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


def free_port() -> int:
    """A loopback port nothing listens on now."""
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


def started_cluster() -> Iterator[PgCluster]:
    """A cluster running for as long as the generator is open; skips the asking test where none starts."""
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
    port = free_port()
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
