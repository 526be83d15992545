"""``table-monitor run``: a live table: camera and dice reader in, alerts out, dashboard and API served."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, DEFAULT_PORT, Backend, Perception


def register(app: typer.Typer) -> None:
    @app.command()
    def run(
        table: Annotated[Path, typer.Option(help="table file (calibration/default-table.yaml)", exists=True,
                                            dir_okay=False)],
        camera: Annotated[str, typer.Option(help="USB index (0), rtsp://... or a video file")],
        dice: Annotated[str | None, typer.Option(help="dice reader serial port, e.g. /dev/ttyUSB0")] = None,
        db: Annotated[str, typer.Option(help="database URL", envvar="TABLE_MONITOR_DB_URL")] = (
            "sqlite:///table-monitor.db"),
        snapshot_dir: Annotated[Path, typer.Option(help="where alert snapshots are written")] = Path(
            "snapshots"),
        host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="dashboard / API port")] = DEFAULT_PORT,
        tokens_file: Annotated[Path | None, typer.Option(
            "--tokens-file", help="'name role sha256:HEX' lines (as for serve; tokens also from "
                                  "TABLE_MONITOR_TOKENS)", exists=True, dir_okay=False)] = None,
        # name:role:token on the command line shows in `ps`: kept for old scripts, out of the help
        tokens: Annotated[str | None, typer.Option(envvar="TABLE_MONITOR_TOKENS", hidden=True)] = None,
        perception: Annotated[Perception, typer.Option(
            help="auto (oracle with --truth, else models), models, or oracle (needs --truth)",
        )] = Perception.AUTO,
        truth: Annotated[Path | None, typer.Option(help="a rendered recording's truth (oracle)")] = None,
        models: Annotated[Path | None, typer.Option(
            envvar="TABLE_MONITOR_MODELS", file_okay=False,
            help="folder with detector.onnx / cards.onnx (default: the models shipped in the "
                 "package)")] = None,
        console_log: Annotated[Path | None, typer.Option(
            help="events.jsonl whose console events (round start, no more bets, misdeal, round end) are "
                 "replayed; without it rounds open and close as the table fills and clears")] = None,
        banker_seat: Annotated[int | None, typer.Option(min=1, max=10, help="the Player-Dealer's seat "
                                                        "for rounds opened by vision")] = None,
        review: Annotated[bool, typer.Option(help="a file as fast as possible, not paced")] = False,
        duration: Annotated[float | None, typer.Option(help="stop after this many seconds")] = None,
        whole_frames: Annotated[bool, typer.Option(
            help="perceive every frame whole (default: only where the picture changed since it was last "
                 "perceived, and whole every 30 frames)")] = False,
        perceive_fps: Annotated[float, typer.Option(
            min=0.0, help="a video file: perceive at most this many frames a second (15: what the "
                          "end-to-end proof covers); 0: every frame (cameras: every frame)")] = 0.0,
        server: Annotated[str | None, typer.Option(
            help="a central server (serve) to send every event, alert snapshot and the devices' state to "
                 "as well, e.g. http://monitor:8080; spooled on disk while it is away, resent when it is "
                 "back")] = None,
        token: Annotated[str | None, typer.Option(
            envvar="TABLE_MONITOR_SERVER_TOKEN", help="a sensor token of the --server")] = None,
        spool: Annotated[Path | None, typer.Option(
            help="the --server spool folder (default: spool/<table id>); keep it, and the local "
                 "database, across restarts")] = None,
        backend: Annotated[Backend, typer.Option(
            help="the models' inference runtime (ONNX Runtime measured faster for the live chain, "
                 "`bench pipeline`, docs/benchmarks.md)")] = DEFAULT_BACKEND,
    ) -> None:
        """Watch a table live: events to the procedure monitor, alerts stored and pushed to the dashboard."""
        if models is not None and not models.is_dir():
            typer.echo(f"table-monitor run: --models {models}: no such folder", err=True)
            raise typer.Exit(2)
        if server is not None and not token:
            typer.echo("table-monitor run: --server needs --token (or TABLE_MONITOR_SERVER_TOKEN), a sensor "
                       "token of that server", err=True)
            raise typer.Exit(2)
        if server is not None and not server.startswith(("http://", "https://")):
            typer.echo(f"table-monitor run: --server {server!r}: expected http://HOST:PORT or https://...",
                       err=True)
            raise typer.Exit(2)
        from monitor.calibration import CalibrationError
        from monitor.perception.models_home import models_home
        from monitor.pipeline.perceive import PerceptionError
        from monitor.pipeline.session import SessionOptions, open_session

        opts = SessionOptions(
            table=table, camera=camera, db_url=db, snapshot_dir=snapshot_dir, tokens=tokens or "", host=host,
            tokens_file=tokens_file,
            port=port, dice_port=dice, console_log=console_log, perception=perception.value,
            truth=truth, models=models or models_home(), realtime=not review, banker_seat=banker_seat,
            whole_frames=whole_frames, perceive_fps=perceive_fps or None, backend=backend.value,
            server_url=server, server_token=token, spool_dir=spool,
        )
        try:
            session = open_session(opts)
        except (CalibrationError, PerceptionError, ValueError, OSError, RuntimeError) as e:
            typer.echo(f"table-monitor run: {e}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"table {session.run.table_id}: dashboard and API at {session.server.url}/")
        typer.echo(f"perception: {session.perception_label}")
        from monitor.rules.table_profile import profile_line

        typer.echo(f"profile {profile_line(session.run.calibration.profile)}")
        if session.forwarder is not None:
            typer.echo(f"central server: {server} (spool {session.forwarder.spool.folder})")
        for w in session.warnings:
            typer.echo(f"WARNING: {w}")
        if not tokens and tokens_file is None:
            typer.echo("WARNING: no tokens configured (--tokens-file or TABLE_MONITOR_TOKENS): the API "
                       "refuses every request but /health; make one with `table-monitor token new`")
        start = time.monotonic()
        try:
            while not session.wait(1.0):
                if duration is not None and time.monotonic() - start >= duration:
                    break
        except KeyboardInterrupt:
            pass
        finally:
            session.close()
        typer.echo(f"{session.run.frames_summary()}, "
                   f"{session.sink.sent} events stored, {session.sink.alerts} alerts")
        if session.forwarder is not None:
            st = session.forwarder.stats
            left = session.forwarder.spool.backlog_bytes()
            waiting = len(session.forwarder.snapshots.pending())
            typer.echo(f"central server: {st.sent} events sent ({st.duplicates} already there), "
                       f"{st.alerts} alerts raised there, {st.snapshots} snapshots sent"
                       + (f"; {left} bytes of events still spooled" if left else "")
                       + (f"; {waiting} snapshots still spooled" if waiting else ""))
