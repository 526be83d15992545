"""``table-monitor review``: recordings reviewed hand by hand, faster than real time (issue 9)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, Backend, Perception


def register(app: typer.Typer) -> None:
    @app.command()
    def review(
        videos: Annotated[list[Path], typer.Argument(
            help="recordings of one session, in order (video files, or rendered recording folders)")],
        table: Annotated[Path, typer.Option(help="table file (calibration/default-table.yaml)", exists=True,
                                            dir_okay=False)],
        out: Annotated[Path, typer.Option(help="output folder: report.html, review.json, hands, alerts, "
                                               "snapshots, clips, checkpoints")],
        db: Annotated[str | None, typer.Option(
            help="store the session here too (database URL); --no-store to skip",
            envvar="TABLE_MONITOR_DB_URL")] = None,
        store: Annotated[bool, typer.Option(help="write the session into the store")] = True,
        snapshot_dir: Annotated[Path | None, typer.Option(
            help="the dashboard's snapshot folder: alert snapshots are copied there")] = None,
        name: Annotated[str | None, typer.Option(help="session name (default: the output folder's)")] = None,
        perception: Annotated[Perception, typer.Option(
            help="auto (oracle when a rendered recording's ground truth is beside the video, else models), "
                 "models, or oracle")] = Perception.AUTO,
        models: Annotated[Path | None, typer.Option(
            envvar="TABLE_MONITOR_MODELS", file_okay=False,
            help="folder with detector.onnx / cards.onnx (default: the models shipped in the "
                 "package)")] = None,
        workers: Annotated[int | None, typer.Option(
            min=1, help="fan the files out over a local Dask cluster of N worker processes")] = None,
        scheduler: Annotated[str | None, typer.Option(
            help="a running Dask scheduler (tcp://host:8786): files fan out over its workers")] = None,
        motion_gate: Annotated[bool, typer.Option(help="skip perception where nothing moves")] = True,
        stride: Annotated[int | None, typer.Option(
            min=1, max=6,
            help="perceive every n-th frame at most (2: 15 of 30 fps); default: from --perceive-fps",
        )] = None,
        perceive_fps: Annotated[float, typer.Option(
            min=1.0, help="perceive at least this many frames a second: each file's stride is the largest "
                          "that keeps them (15: the rate the end-to-end proof covers; stride 2 at 30 fps)",
        )] = 15.0,
        clips: Annotated[bool, typer.Option(help="cut a short clip around each alert")] = True,
        restart: Annotated[bool, typer.Option(
            help="discard the checkpoints in --out and start over")] = False,
        threads: Annotated[int, typer.Option(
            min=1, help="perception threads (per worker: shared); one leaves a core to decode and "
                        "run the chain")] = 1,
        backend: Annotated[Backend, typer.Option(
            help="the models' inference runtime (on one thread ONNX Runtime reviews fastest: "
                 "`bench review`, docs/benchmarks.md)")] = DEFAULT_BACKEND,
        detections_cache: Annotated[Path | None, typer.Option(
            help="keep the models' detections in this folder and replay them when the same recording is "
                 "reviewed again with the same models (re-review after a rule change without the models)",
        )] = None,
        whole_frames: Annotated[bool, typer.Option(
            help="perceive every frame whole (default: only where the picture changed since it was last "
                 "perceived, and whole every 30 frames)")] = False,
    ) -> None:
        """Review recordings: hands, alerts with snapshots and clips, an HTML report; resumable."""
        from monitor.calibration import CalibrationError
        from monitor.review.jobs import GateSettings
        from monitor.review.session import ReviewOptions, ReviewSetupError, run_review
        from monitor.store.db import DEFAULT_DB_URL, redacted

        if models is not None and not models.is_dir():
            typer.echo(f"table-monitor review: --models {models}: no such folder", err=True)
            raise typer.Exit(2)
        db_url = (db or DEFAULT_DB_URL) if store else None
        opts = ReviewOptions(videos=videos, table=table, out=out, perception=perception.value, models=models,
                             name=name, db_url=db_url, snapshot_dir=snapshot_dir, workers=workers,
                             scheduler=scheduler,
                             gate=GateSettings(enabled=motion_gate, stride=stride, perceive_fps=perceive_fps),
                             clips=clips, restart=restart, threads=threads, backend=backend.value,
                             detections_cache=detections_cache,
                             whole_frames=whole_frames)
        try:
            outcome = run_review(opts)
        except KeyboardInterrupt:
            typer.echo(f"\ninterrupted: run the same command again to resume (checkpoints in {out}/files)",
                       err=True)
            raise typer.Exit(130) from None
        except (ReviewSetupError, CalibrationError, RuntimeError, OSError, ValueError) as e:
            typer.echo(f"table-monitor review: {e}", err=True)
            raise typer.Exit(2) from None
        s = outcome.session.summary
        typer.echo(f"perception: {'; '.join(s['perception']) or '-'}")
        for f in outcome.session.files:
            for w in f["warnings"]:
                typer.echo(f"WARNING: {f['video']}: {w}")
        speed = f" ({s['speed']:.1f}x real time)" if s["speed"] else ""
        this_run = s["media_this_run_s"]
        resumed = f" ({this_run:.0f} s this run)" if this_run < s["media_s"] - 0.5 else ""
        typer.echo(f"{s['files']} recording(s), {s['media_s']:.0f} s of video{resumed} in {s['wall_s']:.1f} s"
                   f"{speed}: {s['hands']} hands ({s['hands_complete']} complete), {s['alerts']} alerts")
        for a in outcome.session.alerts:
            at = f"{a['media']['trigger']:8.2f}s" if a.get("media") else "        -"
            typer.echo(f"  ALERT {Path(a['file']).name} {at} [{a['severity']}] {a['code']}: {a['message']}")
        for f in outcome.session.files:
            if f["error"]:
                typer.echo(f"ERROR: {f['error']}", err=True)
        typer.echo(f"report: {out / 'report.html'}")
        if outcome.stored is not None and db_url is not None:
            st = outcome.stored
            typer.echo(f"store: {redacted(db_url)} table {outcome.session.table_id} (+{st['events']} events, "
                       f"+{st['alerts']} alerts, {st['hands']} hands)")
        if s["files_with_errors"]:
            raise typer.Exit(1)
