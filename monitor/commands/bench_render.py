"""``table-monitor bench-render``: renderer frames per second (issue 6 target: 20+ at 1080p on 2 cores)."""

from __future__ import annotations

from typing import Annotated

import typer

from monitor.commands.choices import Resolution


def register(app: typer.Typer) -> None:
    @app.command("bench-render")
    def bench_render(
        frames: Annotated[int, typer.Option(min=4, help="Frames per measurement.")] = 40,
        resolution: Annotated[Resolution, typer.Option(help="The frames' size.")] = Resolution.P1080,
        seed: Annotated[int, typer.Option(help="Random seed of the scenes.")] = 0,
        recording: Annotated[
            str, typer.Option(help="Also time the video path on this shipped script ('' to skip).")
        ] = "paigow_stub_three",
        recording_fps: Annotated[int, typer.Option(min=1, help="Frame rate of that recording.")] = 10,
        repeats: Annotated[
            int,
            typer.Option(min=1, help="Measure each mode this many times, interleaved; report the median."),
        ] = 3,
        modes: Annotated[
            str, typer.Option(help="Comma-separated modes (dataset, dataset-fresh, video).")
        ] = "",
    ) -> None:
        """Render random Pai Gow scenes with effects and lens; print per-frame cost and frames/s."""
        from rich.console import Console
        from rich.progress import Progress

        from monitor.render.bench import (
            MODES,
            BenchResult,
            bench,
            bench_recording,
            bench_scaling,
            median_result,
        )
        from monitor.render.camera import RESOLUTIONS

        res = RESOLUTIONS[resolution.value]
        chosen = [m.strip() for m in modes.split(",") if m.strip()] or list(MODES)
        bad = [m for m in chosen if m not in MODES]
        if bad:
            raise typer.BadParameter(f"--modes: unknown {', '.join(bad)} (have {', '.join(MODES)})")
        runs: dict[str, list[BenchResult]] = {m: [] for m in chosen}
        with Progress() as bar:
            task = bar.add_task("benchmarking", total=repeats * len(chosen) + (2 if recording else 0))
            # interleaved, so that a slow phase of the (virtual, shared) machine hits every mode alike
            for _ in range(repeats):
                for mode in chosen:
                    runs[mode].append(bench(frames, mode, res, seed))
                    bar.advance(task)
            recs = []
            for workers in (1, 2) if recording else ():
                recs.append(bench_recording(recording, resolution, recording_fps, workers))
                bar.advance(task)
        scaling = bench_scaling(res)
        con = Console()
        con.print(
            f"this machine, two processes against one: memory-bound full-frame pass x{scaling['memory']:.2f},"
            f" compute-bound loop x{scaling['compute']:.2f} (2.00 = two whole cores)"
        )
        con.print(
            f"bench-render {resolution}, {frames} frames per mode, median of {repeats} interleaved runs"
            " (effects on, lens on ~half, no JPEG)"
        )
        for got in runs.values():
            r = median_result(got)
            ms = r.cpu_s_per_frame * 1000
            con.print(
                f"  {r.mode:<13} {r.objects_per_frame:4.0f} objects/frame | CPU {ms:6.1f} ms/frame (1 thread)"
                f" = {2 / r.cpu_s_per_frame:5.1f} fps on 2 idle cores | wall fps {r.wall_fps_1proc:5.1f}"
                f" (1 process), {r.wall_fps_2proc:5.1f} (2 processes)"
                f" | bare table warp {r.floor_cpu_s * 1000:5.1f} ms,"
                f" frame = {r.cpu_s_per_frame / r.floor_cpu_s:4.1f}x"
                f" that | JPEG q90 {r.jpeg_cpu_s * 1000:5.1f} ms, H.264 CRF 28 round trip"
                f" {r.h264_cpu_s * 1000:5.1f} ms | load avg {r.load_avg:4.1f}"
            )
            if len(got) > 1:
                fps2 = sorted(g.wall_fps_2proc for g in got)
                con.print(
                    f"  {'':<13} 2-process wall fps of the {len(got)} runs: "
                    + ", ".join(f"{v:.1f}" for v in fps2)
                )
        for v in recs:
            per = v.cpu_s / max(v.rendered, 1) * 1000
            con.print(
                f"  recording {v.script} {resolution} {recording_fps} fps, {v.workers} render process(es):"
                f" {v.frames} frames, {v.rendered} rendered in {v.wall_s:5.1f} s ="
                f" {v.rendered_fps:5.1f} rendered frames/s wall | CPU {per:5.1f}"
                f" ms per rendered frame incl. encoding ({v.codec})"
            )
