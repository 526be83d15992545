"""The tables of ``bench api --path central|embedded``: a child process that feeds generated rounds the
way ``table-monitor run`` hands its events on.

- ``central``: one forwarder per table, as ``run --server`` has (``monitor.pipeline.forward``: each
  batch appended to the table's on-disk spool and fsynced, then POSTed by the forwarder's own thread
  to the central ``serve`` at ``--server``), fed by one thread per table as each table's run would.
- ``embedded``: the API and store served in this process, as ``run`` serves its own page
  (``monitor.pipeline.server``: ``ApiServer`` and ``ApiSink``), fed by one thread per table.

Talks to the bench on stdin/stdout, one line each way: it prints ``{"ready": URL}`` once it serves (or
has its forwarders), waits for ``go``, feeds for ``--duration`` seconds, waits until everything went
through, prints its figures as one JSON line, and for ``embedded`` serves on until ``stop``. Times are
``time.monotonic()``, one clock for every process of the machine (Linux ``CLOCK_MONOTONIC``).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from monitor.events.schema import EventBase, parse_event
from monitor.lab.api_bench import ROUND_EVENTS, SENSOR, VIEWER, round_events

TICK_S = 0.05  # each table hands on what it has every 50 ms, as the bench's sensor posts


class Table:
    """One table's generated rounds at its share of the rate, on a thread of its own."""

    def __init__(self, name: str, rate: float, put: Callable[[list[EventBase]], None]) -> None:
        self.name = name
        self.rate = rate
        self.put = put
        self.sent_at: dict[str, float] = {}  # round key -> when the batch with its fault was handed on
        self.events = 0
        self.rounds = 0
        self.error: str | None = None
        self._seq = 0
        self._pending: list[dict[str, Any]] = []
        self._key = ""

    def run(self, duration: float) -> None:
        try:
            self._run(duration)
        except Exception as exc:  # reported to the bench, not lost in a thread
            self.error = f"{type(exc).__name__}: {exc}"

    def _run(self, duration: float) -> None:
        begin = time.monotonic()
        budget = 0.0
        ticks = 0
        while time.monotonic() - begin < duration:
            budget += self.rate * TICK_S
            batch: list[EventBase] = []
            faults: list[str] = []
            while budget >= 1:
                if not self._pending:
                    round_id = f"r{self.rounds}"
                    self._pending = round_events(self.name, self._seq, round_id)
                    self._key = f"{self.name}/{round_id}"
                    self._seq += ROUND_EVENTS
                    self.rounds += 1
                raw = self._pending.pop(0)
                batch.append(parse_event(raw))
                if raw["type"] == "stub_counted":
                    faults.append(self._key)
                budget -= 1
            if batch:
                handed = time.monotonic()
                self.put(batch)
                for key in faults:
                    self.sent_at[key] = handed
                self.events += len(batch)
            ticks += 1
            time.sleep(max(0.0, begin + ticks * TICK_S - time.monotonic()))


def _feed(tables: list[Table], duration: float) -> None:
    threads = [threading.Thread(target=t.run, args=(duration,), name=f"table-{t.name}") for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _say(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data) + "\n")
    sys.stdout.flush()


def _wait_for(word: str) -> None:
    for line in sys.stdin:
        if line.strip() == word:
            return
    raise SystemExit(f"the bench went away before {word!r}")


def _figures(tables: list[Table], **more: Any) -> dict[str, Any]:
    return {"sent_at": {k: v for t in tables for k, v in t.sent_at.items()},
            "events": sum(t.events for t in tables), "rounds": sum(t.rounds for t in tables),
            "errors": [t.error for t in tables if t.error], "cpu": time.process_time(), **more}


def central(args: argparse.Namespace) -> None:
    from monitor.pipeline.forward import Forwarder, Spool

    names = [f"{args.prefix}{i:02d}" for i in range(args.tables)]
    forwarders = {n: Forwarder(args.server, SENSOR, Spool(Path(args.spool) / n)).start() for n in names}
    tables = [Table(n, args.rate / args.tables, forwarders[n].put) for n in names]
    _say({"ready": args.server})
    _wait_for("go")
    _feed(tables, args.duration)
    fed = time.monotonic()
    deadline = fed + args.drain
    while any(f.spool.backlog_bytes() for f in forwarders.values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    drained = not any(f.spool.backlog_bytes() for f in forwarders.values())
    for f in forwarders.values():
        f.close(drain_s=0.0)
    stats = [f.stats for f in forwarders.values()]
    _say(_figures(tables, drained=drained, drain_s=time.monotonic() - fed,
                  stored=sum(s.sent for s in stats), duplicates=sum(s.duplicates for s in stats),
                  failures=sum(s.failures for s in stats)))


def embedded(args: argparse.Namespace) -> None:
    from pydantic import SecretStr

    from monitor.api.settings import Settings
    from monitor.pipeline.server import ApiServer, ApiSink

    settings = Settings(db_url=f"sqlite:///{args.db}", port=args.port, live_queue_size=100_000,
                        tokens=SecretStr(f"sensor:sensor:{SENSOR},viewer:viewer:{VIEWER}"))
    server = ApiServer(settings).start()
    sink = ApiSink(server)
    names = [f"{args.prefix}{i:02d}" for i in range(args.tables)]
    tables = [Table(n, args.rate / args.tables, sink.put) for n in names]
    _say({"ready": server.url})
    _wait_for("go")
    _feed(tables, args.duration)
    fed = time.monotonic()
    sink.close(timeout=args.drain)
    _say(_figures(tables, drained=sink.sent == sum(t.events for t in tables) and not sink.dropped,
                  drain_s=time.monotonic() - fed, stored=sink.sent, duplicates=0, failures=sink.failures))
    _wait_for("stop")
    server.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m monitor.lab.api_bench_feed", description=__doc__)
    parser.add_argument("path", choices=["central", "embedded"])
    parser.add_argument("--rate", type=float, required=True, help="events a second over all tables")
    parser.add_argument("--tables", type=int, required=True)
    parser.add_argument("--duration", type=float, required=True)
    parser.add_argument("--drain", type=float, default=120.0, help="seconds to wait for the rest")
    parser.add_argument("--prefix", default="B", help="table ids: PREFIX00, PREFIX01, ...")
    parser.add_argument("--server", help="central: the serve's URL")
    parser.add_argument("--spool", help="central: the folder of the tables' spools")
    parser.add_argument("--db", help="embedded: the SQLite file")
    parser.add_argument("--port", type=int, default=0, help="embedded: the port to serve on")
    args = parser.parse_args(argv)
    if args.rate <= 0 or args.tables < 1 or args.duration <= 0:
        parser.error("--rate and --duration must be positive and --tables at least 1")
    if args.path == "central" and not (args.server and args.spool):
        parser.error("central needs --server and --spool")
    if args.path == "embedded" and not args.db:
        parser.error("embedded needs --db")
    (central if args.path == "central" else embedded)(args)


if __name__ == "__main__":
    main()
