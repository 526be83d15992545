"""``table-monitor bench-pipeline``: frames per second through the whole live chain at 1080p, and the
latency from the frame where a fault shows to its alert on the WebSocket (docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("bench-pipeline")
    def bench_pipeline(
        recording: Annotated[Path, typer.Option(
            help="1080p recording with truth (rendered here if missing)")] = Path("bench-recording-1080p"),
        perception: Annotated[list[str], typer.Option(
            help="perception(s) to measure: oracle, models (perceived where frames changed), models-whole "
                 "(every frame perceived whole)")] = [  # noqa: B006
            "oracle", "models", "models-whole"],
        latency_run: Annotated[bool, typer.Option("--latency/--no-latency",
                                                  help="also play it as a live camera for latency")] = True,
    ) -> None:
        """Throughput (review, as fast as possible) and live latency of the chain, per perception."""
        from monitor.pipeline.bench import ensure_recording, latency, throughput

        for p in perception:
            if p not in ("oracle", "models", "models-whole"):
                typer.echo(f"unknown perception {p!r}: oracle, models or models-whole", err=True)
                raise typer.Exit(2)
        rec = ensure_recording(recording)
        for p in perception:
            typer.echo(f"[{p}] throughput (the file as fast as the chain takes it) ...")
            typer.echo("  " + throughput(rec, p).line())
            if latency_run:
                typer.echo(f"[{p}] latency (played as a live camera at 30 fps) ...")
                r = latency(rec, p)
                missed = f"; {r.missed} faults without a pushed alert" if r.missed else ""
                typer.echo("  " + r.line() + missed)
