"""``table-monitor check-rendered``: the whole product on rendered rounds, against the scripts' alerts.

Each folder is a ``render-round`` output (video, console log, true alerts, expected codes, and the
table file to read it with, ``table.yaml``; a folder without one is read as the default table). Its video
is reviewed with the chosen perception (the trained models by default: detection, identity, ByteTrack,
extraction, the procedure monitor) and the raised alerts are compared with the truth: faults missed,
false alerts, and each alert's media-time error (issue 8's end-to-end table).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, Backend, Perception


def register(app: typer.Typer) -> None:
    @app.command("check-rendered")
    def check_rendered(
        rounds: Annotated[list[Path], typer.Argument(help="render-round output folders (video.mp4 in each)")],
        out: Annotated[Path, typer.Option(help="where each review and the results (results.json) go")],
        perception: Annotated[Perception, typer.Option(
            help="models (the shipped ONNX models) or oracle")] = Perception.MODELS,
        models: Annotated[Path | None, typer.Option(help="folder with detector.onnx / cards.onnx")] = None,
        stride: Annotated[int, typer.Option(min=1, max=6, help="perceive every n-th frame at most")] = 1,
        threads: Annotated[int, typer.Option(min=1, help="perception threads")] = 2,
        backend: Annotated[Backend, typer.Option(help="the models' inference runtime")] = DEFAULT_BACKEND,
        detections_cache: Annotated[Path | None, typer.Option(
            help="recorded detections (models only): perceive each round once, replay it on later checks "
                 "(tune tracking and extraction in seconds)")] = None,
        whole_frames: Annotated[bool, typer.Option(
            help="perceive every frame whole (default: only where the picture changed since it was last "
                 "perceived, and whole every 30 frames)")] = False,
    ) -> None:
        """Review rendered rounds and compare the alerts raised with the scripts' (resumable)."""
        from rich.console import Console
        from rich.table import Table

        from monitor.commands.demo import TABLE
        from monitor.lab.rendered_check import RenderedCheckError, compare
        from monitor.review.jobs import GateSettings
        from monitor.review.session import ReviewOptions, ReviewSetupError, run_review

        if perception == Perception.AUTO:
            typer.echo("--perception auto: use models or oracle (a rendered round always has its truth)",
                       err=True)
            raise typer.Exit(2)
        results = []
        failed = 0
        for folder in rounds:
            video = folder / "video.mp4"
            if not video.exists():
                typer.echo(f"error: {video} does not exist (render it with render-round)", err=True)
                failed += 1
                continue
            dest = out / folder.name
            # render-round writes the table file its video is read with (its layout, its profile)
            table_file = folder / "table.yaml" if (folder / "table.yaml").exists() else TABLE
            opts = ReviewOptions(videos=[video], table=table_file, out=dest, perception=perception.value,
                                 models=models,
                                 gate=GateSettings(stride=stride), clips=False, threads=threads,
                                 backend=backend.value,
                                 detections_cache=detections_cache, whole_frames=whole_frames)
            try:
                outcome = run_review(opts)
                # a video that failed part-way compares as a short round: its faults would look
                # missed and its false alerts absent, so it counts as an error, not a result
                errors = [f["error"] for f in outcome.session.files if f["error"]]
                if errors:
                    typer.echo(f"error: {folder}: {'; '.join(errors)}", err=True)
                    failed += 1
                    continue
                results.append(compare(folder, dest))
            except (ReviewSetupError, RenderedCheckError, OSError, ValueError, RuntimeError) as e:
                typer.echo(f"error: {folder}: {e}", err=True)
                failed += 1
        table = Table(title=f"{perception.value} perception, every {stride} frame(s) at most")
        for col in ("round", "expected", "raised", "missed", "false", "max |time error| s"):
            table.add_column(col)
        for r in results:
            table.add_row(r.name, ", ".join(r.expected) or "-", ", ".join(r.got) or "-",
                          ", ".join(r.missed) or "-", ", ".join(r.false) or "-", f"{r.max_time_error:.2f}")
        Console(width=200).print(table)
        caught = sum(len(r.expected) - len(r.missed) for r in results)
        expected = sum(len(r.expected) for r in results)
        false = sum(len(r.false) for r in results)
        typer.echo(f"{caught}/{expected} expected alerts raised, {false} false alert(s), "
                   f"{sum(r.ok for r in results)}/{len(results)} rounds exactly right")
        out.mkdir(parents=True, exist_ok=True)
        rows = [r.to_json() for r in results]
        (out / "results.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
        if failed:
            raise typer.Exit(1)
