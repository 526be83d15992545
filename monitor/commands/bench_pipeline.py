"""``table-monitor bench-pipeline``: frames per second through the whole live chain at 1080p, and the
latency from the frame where a fault shows to its alert on the WebSocket (docs/benchmarks.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, Backend


def register(app: typer.Typer) -> None:
    @app.command("bench-pipeline")
    def bench_pipeline(
        recording: Annotated[list[Path], typer.Option(
            help="1080p recording(s) with truth (the default one rendered here if missing); with several, "
                 "the latencies of all their alerts are pooled too")] = [  # noqa: B006
            Path("bench-recording-1080p")],
        perception: Annotated[list[str], typer.Option(
            help="perception(s) to measure: oracle, models (perceived where frames changed), models-whole "
                 "(every frame perceived whole)")] = [  # noqa: B006
            "oracle", "models", "models-whole"],
        models: Annotated[Path | None, typer.Option(
            help="models folder for the models perceptions (default: the shipped models, or "
                 "TABLE_MONITOR_MODELS)")] = None,
        throughput_run: Annotated[bool, typer.Option(
            "--throughput/--no-throughput", help="measure the file as fast as the chain takes it")] = True,
        latency_run: Annotated[bool, typer.Option("--latency/--no-latency",
                                                  help="also play it as a live camera for latency")] = True,
        backend: Annotated[Backend, typer.Option(help="the models' runtime (the live default)")] = (
            DEFAULT_BACKEND),
    ) -> None:
        """Throughput (review, as fast as possible) and live latency of the chain, per perception."""
        from monitor.lab.pipeline_bench import BenchResult, ensure_recording, latency, throughput

        for p in perception:
            if p not in ("oracle", "models", "models-whole"):
                typer.echo(f"unknown perception {p!r}: oracle, models or models-whole", err=True)
                raise typer.Exit(2)
        if models is not None and not models.is_dir():
            typer.echo(f"--models {models}: no such folder", err=True)
            raise typer.Exit(2)
        recs = [ensure_recording(r) for r in recording]
        for p in perception:
            pooled = BenchResult(p, 0, 0.0)
            for rec in recs:
                name = rec.name if len(recs) > 1 else ""
                if throughput_run:
                    typer.echo(f"[{p}] {name} throughput (the file as fast as the chain takes it) ...")
                    typer.echo("  " + throughput(rec, p, models, backend.value).line())
                if latency_run:
                    typer.echo(f"[{p}] {name} latency (played as a live camera at its frame rate) ...")
                    r = latency(rec, p, models, backend.value)
                    missed = f"; {r.missed} faults without a pushed alert" if r.missed else ""
                    typer.echo("  " + r.line() + missed)
                    pooled.add(r)
            if latency_run and len(recs) > 1:
                typer.echo(f"[{p}] all {len(recs)} recordings live: " + pooled.line()
                           + (f"; {pooled.missed} faults without a pushed alert" if pooled.missed else ""))
