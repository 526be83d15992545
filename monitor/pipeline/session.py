"""A whole monitoring session wired up: API + store, camera, dice reader (or its simulator), the run.

``table-monitor run`` and ``table-monitor demo`` (and the end-to-end tests and the benchmark) all
build one :class:`Session` from :class:`SessionOptions`, start it, wait, and close it.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitor.calibration import load_table
from monitor.events.outside import console_events, read_event_log
from monitor.perception.backends import DEFAULT_BACKEND
from monitor.perception.models_home import models_home
from monitor.pipeline.extract import ExtractorSettings
from monitor.pipeline.orchestrator import LiveRun
from monitor.pipeline.perceive import Choice, choose
from monitor.pipeline.server import ApiServer, ApiSink
from monitor.pipeline.snapshots import FrameRing

log = logging.getLogger(__name__)


@dataclass
class SessionOptions:
    table: Path
    camera: str | int
    db_url: str
    snapshot_dir: Path
    tokens: str = ""  # name:role:token entries
    tokens_file: Path | None = None  # 'name role sha256:HEX' lines, as serve takes them
    host: str = "127.0.0.1"
    port: int = 8080  # monitor.commands.choices.DEFAULT_PORT, the API's own default
    dice_port: str | None = None
    simulate_dice: Path | None = None  # events.jsonl whose dice_reader rolls a pty simulator plays
    console_log: Path | None = None  # events.jsonl whose console events are replayed
    perception: Choice = "auto"
    truth: Path | None = None
    models: Path = field(default_factory=models_home)  # read when the options are made
    whole_frames: bool = False  # perceive every frame whole, not only where it changed
    # the models' runtime (both measured in one run: the bench recording 72.2 vs 62.9 frames/s as fast
    # as it goes, 29.5 vs 29.2 live; player_foul 389-390 vs 416-418 ms, ONNX Runtime vs OpenVINO)
    backend: str = DEFAULT_BACKEND
    realtime: bool = True  # a file played as a live camera (newest frame wins)
    # a file's frames perceived at most this many a second (None: every frame): 15 is what the
    # end-to-end proof covers; a 30 fps recording at 15 halves the work (the demo on 2 cores)
    perceive_fps: float | None = None
    banker_seat: int | None = None
    extractor: ExtractorSettings | None = None
    source_options: Any = None  # a SourceOptions to use instead of the defaults
    backend_factory: Any = None  # tests: a capture backend in place of OpenCV
    log_level: str = "warning"
    # a central server (serve) that every stored event also goes to, through an on-disk spool
    server_url: str | None = None
    server_token: str | None = None  # a sensor token of that server
    spool_dir: Path | None = None  # default: spool/<table id>


@dataclass
class Session:
    options: SessionOptions
    server: ApiServer
    run: LiveRun
    sink: ApiSink
    perception_label: str
    simulator: Any = None
    warnings: list[str] = field(default_factory=list)
    forwarder: Any = None  # a monitor.pipeline.forward.Forwarder with --server

    def wait(self, duration: float | None = None) -> bool:
        """Until the camera's recording ended (or ``duration`` s); True if it ended."""
        return self.run.wait(duration)

    def close(self, settle_s: float = 0.5) -> None:
        self.run.stop()
        time.sleep(settle_s)  # a last dice line or status in flight
        self.sink.close()
        # held-back events (a gap in sequence) and open rounds: flushed into the store
        self.server.call(lambda: self.server.services.pipeline.submit([]))
        if self.forwarder is not None:
            self.forwarder.close()
        if self.simulator is not None:
            self.simulator.stop()
        self.server.stop()


def open_session(opts: SessionOptions) -> Session:
    """Build and start everything; raises ValueError with a clear message on bad input."""
    from monitor.api.settings import Settings
    from monitor.sources.dice_reader import DiceReader
    from monitor.sources.video_source import SourceOptions, VideoSource, open_source

    calibration = load_table(opts.table)
    from monitor.perception.card_scale import live_factor

    perception = choose(opts.perception, opts.truth, calibration.image_size, opts.models,
                        whole_frames=opts.whole_frames, backend=opts.backend, factor=live_factor(calibration))
    warnings = list(getattr(perception, "warnings", []))  # a models folder without models: refused above
    settings = Settings(db_url=opts.db_url, host=opts.host, port=opts.port, snapshot_dir=opts.snapshot_dir,
                        tokens=opts.tokens or None,  # type: ignore[arg-type]
                        tokens_file=opts.tokens_file)
    ring = FrameRing()
    server = ApiServer(settings, ring, log_level=opts.log_level,
                       profiles={calibration.table: calibration.profile}).start()
    simulator = None
    forwarder = None
    try:
        source_opts = opts.source_options
        if source_opts is None and opts.realtime and not _is_camera(opts.camera):
            source_opts = SourceOptions.live_playback()
        fps = 30.0  # what table state is told (the tracker's frame rate) where the file does not say
        if opts.perceive_fps is not None and not _is_camera(opts.camera):
            file_fps = _file_fps(str(opts.camera))
            if file_fps is not None:
                every = max(1, int(file_fps / opts.perceive_fps + 0.01))
                source_opts = dataclasses.replace(source_opts or SourceOptions(realtime=opts.realtime),
                                                  deliver_every=every)
                fps = file_fps / every
        if opts.backend_factory is not None:
            from monitor.sources.backend import SourceSpec

            source = VideoSource(SourceSpec.parse(opts.camera), source_opts,
                                 backend_factory=opts.backend_factory)
        else:
            source = open_source(int(opts.camera) if str(opts.camera).isdigit() else opts.camera, source_opts)
        dice = None
        dice_port = opts.dice_port
        if opts.simulate_dice is not None:
            from monitor.sources.dice_simulator import DiceSimulator, script_from_events

            simulator = DiceSimulator(heartbeat_s=0.5).start()
            simulator.play(script_from_events(opts.simulate_dice), clock=source.media_time_now)
            dice_port = simulator.device_path
        if dice_port is not None:
            dice = DiceReader(dice_port)
        # the camera and dice reader in /metrics and /health
        collector = server.services.metrics.sources
        collector.add(source, table=calibration.table)
        if dice is not None:
            collector.add(dice, table=calibration.table)
        settings_x = opts.extractor or ExtractorSettings(
            round_from_vision=opts.console_log is None, banker_seat=opts.banker_seat,
            count_deal=getattr(perception, "sees_hands", True),
            count_face_down=getattr(perception, "counts_face_down", True))
        sink = ApiSink(server)
        run_sink: Any = sink
        if opts.server_url is not None:
            from monitor.pipeline.forward import Forwarder, ForwarderCollector, Spool, TeeSink, source_rows

            if not opts.server_token:
                raise ValueError("--server needs --token (a sensor token of the central server)")
            spool = Spool(opts.spool_dir or Path("spool") / calibration.table)
            forwarder = Forwarder(opts.server_url, opts.server_token, spool, table_id=calibration.table,
                                  sources=lambda: source_rows(collector)).start()
            server.services.metrics.registry.register(ForwarderCollector(forwarder))  # in its /metrics
            server.snapshot_listeners.append(forwarder.put_snapshot)  # each alert's picture goes too
            run_sink = TeeSink(sink, forwarder)
        run = LiveRun(calibration, source, perception, run_sink, ring,
                      first_seq=server.next_seq(calibration.table), settings=settings_x, dice=dice, fps=fps)
        if opts.console_log is not None:
            run.replay_console(console_events(read_event_log(opts.console_log)))
        run.start()
    except BaseException:
        if forwarder is not None:
            forwarder.close(drain_s=0.0)
        if simulator is not None:
            simulator.stop()
        server.stop()
        raise
    return Session(opts, server, run, sink, perception.label, simulator, warnings, forwarder)


def _is_camera(camera: str | int) -> bool:
    return isinstance(camera, int) or str(camera).isdigit() or str(camera).startswith(("rtsp://", "rtsps://",
                                                                                         "http"))


def _file_fps(path: str) -> float | None:
    """A video file's frame rate as its container states it (None: unreadable or not stated)."""
    import cv2

    cap = cv2.VideoCapture(path)
    try:
        fps = float(cap.get(cv2.CAP_PROP_FPS)) if cap.isOpened() else 0.0
    finally:
        cap.release()
    return fps if fps > 0 else None
