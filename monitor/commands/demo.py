"""``table-monitor demo``: the whole product on the sample recording, with no hardware.

The sample recording (rendered on first use by the rounds' ``sample-recording``) plays as a live
camera; its dice rolls come from the simulated dice reader on a pseudo-terminal; the dealer's
console presses (round start with the banker's seat, no more bets, misdeal, round end) are replayed
from its log; the monitor, the store (SQLite) and the dashboard run at http://127.0.0.1:8080, where
the scripted faults appear as alerts, each with a snapshot, while the video plays.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_PORT, Perception

# the default table, shipped in the package (a link to calibration/default-table.yaml in the source tree)
TABLE = Path(__file__).resolve().parents[1] / "calibration" / "default-table.yaml"


def ensure_recording(folder: Path) -> None:
    """Render the sample recording into ``folder`` if it is not there yet (a few minutes, once)."""
    if (folder / "video.mp4").exists() and (folder / "events.jsonl").exists():
        return
    from rich.progress import Progress

    from monitor.render.rounds.sample import sample_rounds
    from monitor.render.rounds.video import RenderOptions, total_frames, write_recording

    typer.echo(f"the sample recording is not in {folder}: rendering it once (table-monitor sample-recording)")
    rounds = sample_rounds()
    opts = RenderOptions(resolution="720p", fps=30, crf=30)
    # rendered beside, then moved in place: an interrupted render never passes for a whole one
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with Progress() as bar:
        task = bar.add_task("rendering the sample recording", total=total_frames(rounds, opts.fps))
        write_recording(rounds, partial, opts, progress=lambda n: bar.advance(task, n))
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)


def watch_alerts(db_file: Path, seen: set[str]) -> list[str]:
    """One line per alert stored since the last call."""
    import sqlite3

    if not db_file.exists():
        return []
    try:
        with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True, timeout=1) as con:
            rows = con.execute("SELECT id, severity, code, message, media_trigger, snapshot FROM alerts "
                               "ORDER BY raised_at").fetchall()
    except sqlite3.Error:
        return []
    out = []
    for aid, severity, code, message, trigger, snapshot in rows:
        if aid in seen:
            continue
        seen.add(aid)
        at = f"{trigger:7.2f}s" if trigger is not None else "      -"
        pic = " [snapshot]" if snapshot else ""
        out.append(f"  ALERT {at} [{severity}] {code}: {message}{pic}")
    return out


def register(app: typer.Typer) -> None:
    @app.command()
    def demo(
        recording: Annotated[Path | None, typer.Option(
            help="recording folder (default: the one shipped with the package; rendered if missing)")] = None,
        port: Annotated[int, typer.Option(help="dashboard port")] = DEFAULT_PORT,
        host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
        data: Annotated[Path | None, typer.Option(
            help="folder for the store and snapshots (default: a new temporary folder)")] = None,
        perception: Annotated[Perception, typer.Option(
            help="models (the trained models, as the live chain runs them: the default), oracle (the "
                 "recording's ground truth, to show the chain after perception), or auto (oracle when the "
                 "ground truth is there)")] = Perception.MODELS,
        models: Annotated[Path | None, typer.Option(
            envvar="TABLE_MONITOR_MODELS", file_okay=False,
            help="folder with detector.onnx / cards.onnx (default: the models shipped in the "
                 "package)")] = None,
        once: Annotated[bool, typer.Option("--once", help="exit when the recording ends")] = False,
        duration: Annotated[float | None, typer.Option(help="exit after this many seconds")] = None,
        keep_serving: Annotated[bool, typer.Option(
            help="after the video, keep the dashboard up until Ctrl-C")] = True,
        perceive_fps: Annotated[float, typer.Option(
            min=0.0, help="perceive at most this many frames a second (15: what the end-to-end proof "
                          "covers; the 30 fps sample then leaves a 2-core machine room); 0: every frame")
                                ] = 15.0,
    ) -> None:
        """Play the sample recording as a live camera through the whole monitor, with the dashboard."""
        from monitor.api.auth import new_token
        from monitor.perception.models_home import models_home
        from monitor.pipeline.perceive import PerceptionError
        from monitor.pipeline.session import SessionOptions, open_session

        if models is not None and not models.is_dir():
            typer.echo(f"table-monitor demo: --models {models}: no such folder", err=True)
            raise typer.Exit(2)

        if recording is None:
            from monitor.render.rounds.sample import sample_recording_dir

            shipped = sample_recording_dir()
            # the shipped copy starts the demo at once; rendering it again takes minutes
            recording = shipped if (shipped / "video.mp4").exists() else Path("sample-recording")
        ensure_recording(recording)
        folder = data or Path(tempfile.mkdtemp(prefix="table-monitor-demo-"))
        folder.mkdir(parents=True, exist_ok=True)
        token = new_token()
        truth = recording / "truth.jsonl"
        if not truth.exists():
            truth = recording / "truth.jsonl.gz"
        opts = SessionOptions(
            table=TABLE, camera=str(recording / "video.mp4"), db_url=f"sqlite:///{folder / 'store.db'}",
            snapshot_dir=folder / "snapshots", tokens=f"demo:viewer:{token}", host=host, port=port,
            simulate_dice=recording / "events.jsonl", console_log=recording / "events.jsonl",
            perception=perception.value,
            truth=truth if truth.exists() and perception != Perception.MODELS else None,
            perceive_fps=perceive_fps or None, models=models or models_home(),
        )
        try:
            session = open_session(opts)
        except (PerceptionError, ValueError, OSError, RuntimeError) as e:
            typer.echo(f"table-monitor demo: {e}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"dashboard: {session.server.url}/   viewer token: {token}")
        typer.echo(f"perception: {session.perception_label}")
        from monitor.rules.table_profile import profile_line

        typer.echo(f"profile {profile_line(session.run.calibration.profile)}")
        for w in session.warnings:
            typer.echo(f"WARNING: {w}")
        typer.echo(f"camera: {opts.camera} played as a live camera; dice reader: simulator on "
                   f"{session.simulator.device_path if session.simulator else '-'}; store: {folder}")
        seen: set[str] = set()
        start = time.monotonic()
        try:
            while True:
                ended = session.wait(1.0)
                for line in watch_alerts(folder / "store.db", seen):
                    typer.echo(line)
                if duration is not None and time.monotonic() - start >= duration:
                    break
                if ended:
                    typer.echo("the recording ended")
                    if once or not keep_serving:
                        break
                    typer.echo("dashboard still up; Ctrl-C to stop")
                    while True:
                        time.sleep(1.0)
        except KeyboardInterrupt:
            pass
        finally:
            session.close()
        for line in watch_alerts(folder / "store.db", seen):
            typer.echo(line)
        typer.echo(f"{session.run.frames_summary()}, "
                   f"{session.sink.sent} events stored, {len(seen)} alerts; store and snapshots in {folder}")
