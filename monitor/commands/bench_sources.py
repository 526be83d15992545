"""``table-monitor bench-sources``: what the frame source costs on top of bare OpenCV decoding."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("bench-sources")
    def bench_sources(
        frames: Annotated[int, typer.Option(help="Frames in the generated test video.")] = 300,
        width: Annotated[int, typer.Option(help="Frame width.")] = 1920,
        height: Annotated[int, typer.Option(help="Frame height.")] = 1080,
        codec: Annotated[str, typer.Option(help="FourCC of the test video (mp4v, MJPG).")] = "mp4v",
        video: Annotated[Path | None, typer.Option(help="Use this video instead of generating one.")] = None,
    ) -> None:
        """Decode a 1080p video with bare cv2.VideoCapture and with VideoSource, side by side (fps, ratio)."""
        import tempfile
        import time

        import cv2
        import numpy as np
        from tqdm import tqdm

        from monitor.sources import open_source
        from monitor.sources.video_source import SourceOptions

        with tempfile.TemporaryDirectory() as tmp:
            path = video or Path(tmp) / f"bench.{'avi' if codec == 'MJPG' else 'mp4'}"
            if video is None:
                writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*codec), 30.0, (width, height))
                rng = np.random.default_rng(0)
                base = rng.integers(0, 255, (height, width, 3), dtype=np.uint8)
                for i in tqdm(range(frames), desc="writing test video", unit="frame"):
                    img = np.roll(base, i * 4, axis=1)  # motion, so the codec has work to do
                    writer.write(img)
                writer.release()

            def bare() -> int:
                cap = cv2.VideoCapture(str(path))
                n = 0
                with tqdm(desc="bare cv2.VideoCapture", unit="frame") as bar:
                    while True:
                        ok, _ = cap.read()
                        if not ok:
                            break
                        n += 1
                        bar.update()
                cap.release()
                return n

            def source() -> int:
                src = open_source(str(path), SourceOptions(realtime=False))
                n = 0
                with src, tqdm(desc="VideoSource (file, lazy)", unit="frame") as bar:
                    for _ in src:
                        n += 1
                        bar.update()
                return n

            def gated_source() -> int:
                from monitor.sources.motion import MotionGate

                gate = MotionGate()
                src = open_source(str(path), SourceOptions(realtime=False))
                n = 0
                with src, tqdm(desc="VideoSource + MotionGate", unit="frame") as bar:
                    for frame in src:
                        gate.keep(frame)
                        n += 1
                        bar.update()
                return n

            results = {}
            runs = (("bare", bare), ("source", source), ("gated", gated_source),
                    ("bare2", bare), ("source2", source), ("gated2", gated_source))
            for name, run in runs:
                t0 = time.perf_counter()
                n = run()
                results[name] = (n, time.perf_counter() - t0)
        bare_fps = max(n / t for n, t in (results["bare"], results["bare2"]))
        src_fps = max(n / t for n, t in (results["source"], results["source2"]))
        gated_fps = max(n / t for n, t in (results["gated"], results["gated2"]))
        typer.echo(f"video {width}x{height} {codec}, {results['bare'][0]} frames (best of 2 runs each)")
        typer.echo(f"bare cv2.VideoCapture: {bare_fps:7.1f} fps")
        typer.echo(f"VideoSource:           {src_fps:7.1f} fps  (ratio {src_fps / bare_fps:.2f} of bare)")
        typer.echo(f"VideoSource + gate:    {gated_fps:7.1f} fps  (ratio {gated_fps / bare_fps:.2f} of bare)")
