"""``table-monitor bench-review``: review speed relative to real time at 1080p 30 fps, and 1 -> 2 workers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, Backend


def register(app: typer.Typer) -> None:
    @app.command("bench-review")
    def bench_review(
        recording: Annotated[Path, typer.Option(
            help="1080p recording folder (rendered once if missing: bench-pipeline's)")] = Path(
            "bench-recording-1080p"),
        models_seconds: Annotated[float, typer.Option(help="seconds reviewed with the models")] = 10.0,
        files: Annotated[int, typer.Option(min=2, help="recordings in the scaling session")] = 2,
        scale_seconds: Annotated[float, typer.Option(
            help="length of each recording in the scaling run")] = 30.0,
        parts: Annotated[str, typer.Option(
            help="comma-separated: live,oracle,stride2,clips,nogate,scale (oracle perception); models-whole "
                 "(the peer: every frame whole), models, models-strideN (N = 2, 3, ...), models-default "
                 "(review's defaults: 15 fps perceived, clips), scale-models (the shipped models, frames "
                 "perceived where they changed)")] = (
            "live,oracle,stride2,clips,models-whole,models,models-stride2,models-default,scale"),
        threads: Annotated[int, typer.Option(
            min=1, help="perception threads of the model runs (review's default: 1)")] = 1,
        backend: Annotated[Backend, typer.Option(
            help="the model runs' inference runtime (review's default)")] = DEFAULT_BACKEND,
    ) -> None:
        """Measure review: x real time (1 process, oracle and models), Dask scaling from 1 to 2 workers."""
        import os

        from rich.console import Console
        from rich.table import Table

        from monitor.lab.pipeline_bench import ensure_recording
        from monitor.lab.review_bench import run_bench

        ensure_recording(recording)
        chosen = tuple(p.strip() for p in parts.split(",") if p.strip())
        lines = run_bench(recording, models_seconds, files, scale_seconds, chosen, threads, backend.value)
        table = Table(title=f"review of {recording} (1080p, 30 fps); load before: "
                            f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        for col in ("run", "files", "media s", "wall s", "x real time", "CPU s / media s", "frames out",
                    "perceived", "hands", "alerts", "perception"):
            table.add_column(col)
        for x in lines:
            table.add_row(x.name, str(x.files), f"{x.media_s:.1f}", f"{x.wall_s:.1f}", f"{x.speed:.2f}",
                          f"{x.cpu_per_media_s:.3f}", str(x.frames),
                          f"{x.kept} ({x.kept / max(x.frames, 1):.0%})", str(x.hands), str(x.alerts),
                          x.perception[:60])
        Console(width=200).print(table)
        for x in lines:
            if x.found:
                typer.echo(f"{x.name}: {', '.join(x.found)}")
        dask = {x.name.split(",")[1].strip(): x for x in lines if x.name.startswith("Dask")}
        if len(dask) == 2:
            one, two = dask["1 worker(s)"], dask["2 worker(s)"]
            typer.echo(f"scaling 1 -> 2 workers: {two.speed / one.speed:.2f}x "
                       f"({one.speed:.2f} -> {two.speed:.2f} x real time)")
        typer.echo(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
