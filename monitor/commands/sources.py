"""``table-monitor probe-source``: watch a camera, stream or video the way the monitor would read it."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("probe-source")
    def probe_source(
        source: Annotated[str, typer.Argument(help="USB camera index, RTSP URL or video file.")],
        seconds: Annotated[float, typer.Option(help="How long to watch (0: until the source ends).")] = 10.0,
        work_ms: Annotated[
            float, typer.Option(help="Pretend each frame takes this long to process (shows drops).")
        ] = 0.0,
        as_live: Annotated[
            bool, typer.Option(help="Play a video file as a live camera: paced, newest frame wins.")
        ] = False,
    ) -> None:
        """Print the source's state changes and faults as they happen, and its counters every second."""
        import time

        from monitor.sources import open_source
        from monitor.sources.status import FrameDropped, SourceStatus
        from monitor.sources.video_source import SourceOptions

        def show(status: SourceStatus) -> None:
            if isinstance(status, FrameDropped):
                return  # counted below; one line per drop would drown the rest
            mark = "FAULT" if status.is_fault else "     "
            typer.echo(f"{status.wall_time.isoformat(timespec='milliseconds')} {mark} {status.message}")

        options = SourceOptions.live_playback() if as_live else SourceOptions()
        src = open_source(source, options, status_handlers=[show])
        started = time.monotonic()
        last_report, last_consumed = started, 0
        first = None
        with src:
            while seconds <= 0 or time.monotonic() - started < seconds:
                frame = src.read(timeout=0.5)
                if frame is None and src.state.is_terminal:
                    break
                if frame is not None and first is None:
                    first = frame
                    typer.echo(f"first frame: {frame.width}x{frame.height}, index {frame.index}")
                if work_ms:
                    time.sleep(work_ms / 1000)
                now = time.monotonic()
                if now - last_report >= 1.0:
                    m = src.metrics()
                    fps = (m.consumed - last_consumed) / (now - last_report)
                    typer.echo(f"  {m.state.value:<12} captured {m.captured:6d}  consumed {m.consumed:6d}  "
                               f"dropped {m.dropped:6d}  queued {m.queued}  {fps:5.1f} fps processed")
                    last_report, last_consumed = now, m.consumed
        m = src.metrics()
        error = f"; error: {src.error}" if src.error else ""
        typer.echo(f"done: {m.state.value}, captured {m.captured}, consumed {m.consumed}, "
                   f"dropped {m.dropped}, reconnects {m.reconnects}{error}")
