"""``table-monitor bench-api``: live push under load, and a kill -9 durability check.

1. Load: ``--clients`` WebSocket clients on the dashboard API while ``--rate`` events a second over
   ``--tables`` tables arrive for ``--duration`` seconds, by each ``--path`` in turn (one run each,
   the same load, in this command):

   - ``sensor``: a child ``table-monitor serve`` on loopback; a sensor posts the events in batches
     every 50 ms (at most four requests in flight);
   - ``central``: the same child serve; the events come from each table's forwarder, as
     ``run --server`` sends them (every batch fsynced into the table's spool, then POSTed by the
     forwarder's thread), one forwarder and one feeding thread per table in a child process;
   - ``embedded``: the API and store served in a child process, each table's events handed to it in
     that process, as ``run`` feeds its own page.

   Every round has one fault (a stub of five, Livermore rule 55), so one alert per round. Checks that
   every client received every alert (and, for central and embedded, that the store holds every
   event handed on); latency is from the moment the event left its table (the POST that carried it,
   or its batch handed to the forwarder or the embedded API) to each client's receipt (p50/p95/p99
   over all deliveries). With two paths or more, each is given against the first as a ratio. Clients
   take batched live messages unless ``--no-batch`` (then one WebSocket message per alert).
2. Durability: ``sensor``: a fresh child server takes batches as fast as it can while it is killed
   with SIGKILL; a new process then opens the store and checks that every alert acknowledged to the
   sender is there, and that the audit chain verifies. ``central``: the tables' forwarders feed a
   child serve that is killed with SIGKILL and started again on the same store; once they drained,
   every event they handed on is stored once, every round's fault has its alert, and the chain
   verifies.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class LoadPath(StrEnum):
    SENSOR = "sensor"
    CENTRAL = "central"
    EMBEDDED = "embedded"


def register(app: typer.Typer) -> None:
    @app.command("bench-api")
    def bench_api(
        clients: Annotated[int, typer.Option(min=1, help="WebSocket clients")] = 200,
        rate: Annotated[int, typer.Option(min=1, help="events per second")] = 1000,
        duration: Annotated[float, typer.Option(min=0.1, help="seconds of load")] = 60.0,
        tables: Annotated[int, typer.Option(min=1, help="tables the events spread over")] = 10,
        durability_seconds: Annotated[float, typer.Option(
            min=0.0, help="seconds of writes before kill -9 (0: no durability check)")] = 10.0,
        batch: Annotated[bool, typer.Option(help="clients take batched live messages (?batch=true)")] = True,
        path: Annotated[list[LoadPath] | None, typer.Option(
            "--path", help="how the events reach the server: sensor (posted straight to serve), central "
                           "(each table's run --server forwarder to serve) or embedded (run's own API); "
                           "repeat it to measure several in this command, each against the first")] = None,
        workdir: Annotated[Path | None, typer.Option(help="where the databases go (default: temp)")] = None,
    ) -> None:
        """Benchmark live push (clients x events/s) and check kill -9 durability."""
        import asyncio
        import tempfile

        from monitor.lab.api_bench import central_durability_check, compare, durability_check, load_test

        paths = list(dict.fromkeys(path or [LoadPath.SENSOR]))
        root = workdir or Path(tempfile.mkdtemp(prefix="tm-bench-api-"))
        root.mkdir(parents=True, exist_ok=True)
        ok = True
        loads = []
        for p in paths:
            load = asyncio.run(load_test(root / f"load-{p.value}.db", clients=clients, rate=rate,
                                         duration=duration, tables=tables, batched=batch, path=p.value))
            typer.echo(load.report())
            ok = ok and load.complete
            loads.append(load)
        for other in loads[1:]:
            typer.echo(compare(loads[0], other))
        if durability_seconds > 0 and LoadPath.SENSOR in paths:
            durable = asyncio.run(durability_check(root / "durability.db", seconds=durability_seconds))
            typer.echo(durable.report())
            ok = ok and durable.ok
        if durability_seconds > 0 and LoadPath.CENTRAL in paths:
            central = asyncio.run(central_durability_check(root / "durability-central.db",
                                                           seconds=durability_seconds))
            typer.echo(central.report())
            ok = ok and central.ok
        if not ok:
            raise typer.Exit(1)
