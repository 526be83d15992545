"""``table-monitor bench-render``: renderer frames per second (issue 6 target: 20+ at 1080p on 2 cores)."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("bench-render")
    def bench_render(
        frames: Annotated[int, typer.Option(min=4, help="Frames per measurement.")] = 40,
        resolution: Annotated[str, typer.Option(help="720p, 1080p or 4k.")] = "1080p",
        seed: Annotated[int, typer.Option(help="Random seed of the scenes.")] = 0,
    ) -> None:
        """Render random Pai Gow scenes with effects and lens; print per-frame cost and frames/s."""
        from rich.console import Console
        from rich.progress import Progress
        from rich.table import Table

        from monitor.render.bench import bench
        from monitor.render.camera import RESOLUTIONS

        if resolution not in RESOLUTIONS:
            raise typer.BadParameter(f"--resolution must be one of {', '.join(RESOLUTIONS)}")
        res = RESOLUTIONS[resolution]
        results = []
        with Progress() as bar:
            task = bar.add_task("benchmarking", total=2)
            for mode in ("dataset", "video"):
                results.append(bench(frames, mode, res, seed))
                bar.advance(task)
        t = Table(title=f"bench-render {resolution}, {frames} frames per mode")
        for col in (
            "mode",
            "objects/frame",
            "CPU ms/frame (1 thread)",
            "fps 1 process",
            "fps 2 processes",
            "fps if 2 idle cores",
            "table-warp floor ms",
            "ratio to floor",
            "JPEG q90 ms",
            "load avg",
        ):
            t.add_column(col)
        for r in results:
            t.add_row(
                r.mode,
                f"{r.objects_per_frame:.0f}",
                f"{r.cpu_s_per_frame * 1000:.1f}",
                f"{r.wall_fps_1proc:.1f}",
                f"{r.wall_fps_2proc:.1f}",
                f"{2 / r.cpu_s_per_frame:.1f}",
                f"{r.floor_cpu_s * 1000:.1f}",
                f"{r.cpu_s_per_frame / r.floor_cpu_s:.1f}x",
                f"{r.jpeg_cpu_s * 1000:.1f}",
                f"{r.load_avg:.1f}",
            )
        Console().print(t)
