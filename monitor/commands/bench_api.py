"""``table-monitor bench-api``: live push under load, and a kill -9 durability check.

1. Load: a child ``table-monitor serve`` process on loopback; ``--clients`` WebSocket clients;
   a sensor posting ``--rate`` events per second (in batches every 50 ms) over ``--tables`` tables
   for ``--duration`` seconds. Every round has one fault (a stub of five, seed 000 rule 55), so
   one alert per round. Counts every alert acknowledged to the sensor and checks that every
   client received every one; latency is from the POST that carried the fault to each client's
   receipt (p50/p95/p99 over all deliveries), and the POST round trip (commit included). Clients
   take batched live messages unless ``--no-batch`` (then one WebSocket message per alert).
2. Durability: a fresh child server takes batches as fast as it can while it is killed with
   SIGKILL; a new process then opens the store and checks that every alert acknowledged to the
   sender is there, and that the audit chain verifies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("bench-api")
    def bench_api(
        clients: Annotated[int, typer.Option(help="WebSocket clients")] = 200,
        rate: Annotated[int, typer.Option(help="events per second")] = 1000,
        duration: Annotated[float, typer.Option(help="seconds of load")] = 60.0,
        tables: Annotated[int, typer.Option(help="tables the events spread over")] = 10,
        durability_seconds: Annotated[float, typer.Option(help="seconds of writes before kill -9")] = 10.0,
        batch: Annotated[bool, typer.Option(help="clients take batched live messages (?batch=true)")] = True,
        workdir: Annotated[Path | None, typer.Option(help="where the databases go (default: temp)")] = None,
    ) -> None:
        """Benchmark live push (clients x events/s) and check kill -9 durability."""
        import asyncio
        import tempfile

        from monitor.api.bench import durability_check, load_test

        root = workdir or Path(tempfile.mkdtemp(prefix="tm-bench-api-"))
        root.mkdir(parents=True, exist_ok=True)
        load = asyncio.run(load_test(root / "load.db", clients=clients, rate=rate, duration=duration,
                                     tables=tables, batched=batch))
        typer.echo(load.report())
        durable = asyncio.run(durability_check(root / "durability.db", seconds=durability_seconds))
        typer.echo(durable.report())
        if not (load.complete and durable.ok):
            raise typer.Exit(1)
