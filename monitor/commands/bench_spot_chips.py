"""``table-monitor bench-spot-chips``: chips found in the betting spots of rendered rounds, vs their truth."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("bench-spot-chips")
    def bench_spot_chips(
        rounds: Annotated[list[Path], typer.Argument(help="render-round folders (video.mp4, truth.jsonl)")],
        table: Annotated[Path | None, typer.Option(help="the rounds' table file (default: built-in)")] = None,
        every: Annotated[int, typer.Option(min=1, help="score every n-th frame")] = 50,
    ) -> None:
        """Recall, precision and denominations of the spot chip finder (monitor.perception.spot_chips)."""
        from rich.progress import track

        from monitor.calibration.table_file import load_table
        from monitor.commands.demo import TABLE
        from monitor.lab.spot_chips_eval import SpotChipScore, score_round
        from monitor.perception.spot_chips import SpotChipFinder

        finder = SpotChipFinder.for_table(load_table(table or TABLE))
        total = SpotChipScore()
        for folder in track(rounds, description="rounds"):
            total.add(score_round(finder, folder, every))
        typer.echo(f"{len(rounds)} rounds, every {every}th frame: {total.stacks} stacks in view, "
                   f"{total.found} chips found")
        typer.echo(f"recall {total.recall:.4f}  precision {total.precision:.4f}  "
                   f"denomination right {total.denomination_right:.4f}")
        worst = sorted(total.confusions.items(), key=lambda kv: -kv[1])[:8]
        typer.echo("denominations misread: " + (", ".join(f"{k} x{v}" for k, v in worst) or "none"))
