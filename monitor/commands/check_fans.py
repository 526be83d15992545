"""``table-monitor check-fans``: the fan reader on rendered rounds' set hands, against their truth.

Each models folder's fan reader reads the same frames' hand zones (the card boxes of the first
folder's detector), so two readers are compared in one run on the same pictures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, Backend


def register(app: typer.Typer) -> None:
    @app.command("check-fans")
    def check_fans(
        rounds: Annotated[list[Path], typer.Argument(help="render-round output folders (video.mp4, truth)")],
        models: Annotated[list[Path] | None, typer.Option(
            help="models folder with fan_reader.json (repeat to compare; the first one's detector boxes "
                 "the cards; default: the shipped models, or TABLE_MONITOR_MODELS)")] = None,
        every: Annotated[int, typer.Option(min=1, help="look at every n-th frame")] = 15,
        min_faces: Annotated[int, typer.Option(min=1, help="a zone picture counts from this many "
                                                           "face-up cards")] = 2,
        threads: Annotated[int, typer.Option(min=1)] = 2,
        backend: Annotated[Backend, typer.Option(help="the models' inference runtime")] = DEFAULT_BACKEND,
        out: Annotated[Path | None, typer.Option(help="write the tallies here (JSON)")] = None,
    ) -> None:
        """Read the set hands of rendered rounds with each fan reader and score them on the truth."""
        from rich.console import Console
        from rich.progress import track
        from rich.table import Table

        from monitor.calibration.table_file import load_table
        from monitor.commands.demo import TABLE
        from monitor.lab.fan_check import FanScore, check_recording
        from monitor.perception.fan_reader import load_fan_reader
        from monitor.perception.models_home import models_home
        from monitor.perception.pipeline import Perceiver
        from monitor.pipeline.hand_zones import ZoneReader
        from monitor.rules.cards import JOKER_TEXT, RANK_CHARS

        dirs = models or [models_home()]
        calibration = load_table(TABLE)
        readers: dict[str, ZoneReader] = {}
        for d in dirs:
            reader = load_fan_reader(d, backend=backend.value, threads=threads)
            if reader is None:
                typer.echo(f"error: {d} holds no fan_reader.json", err=True)
                raise typer.Exit(2)
            readers[str(d)] = ZoneReader(calibration, reader)
        perceiver = Perceiver.from_models(dirs[0], backend=backend.value, threads=threads, video=True)
        scores = {name: FanScore() for name in readers}
        failed = frames = 0
        for folder in track(rounds, description="recordings"):
            try:
                frames += check_recording(folder, perceiver.perceive, readers, scores, every, min_faces)
            except (OSError, ValueError) as e:
                typer.echo(f"error: {folder}: {e}", err=True)
                failed += 1
        table = Table(title=f"fanned hands of {len(rounds) - failed} recordings, {frames} frames "
                            f"(every {every}th, zones with {min_faces}+ face-up cards)")
        for col in ("reader", "zone pictures", "cards shown", "named right", "named or rank right",
                    "wrong names", "wrong ranks", "extra cards", "read whole", "counted (rule 60)",
                    "wrong counted"):
            table.add_column(col, justify="left" if col == "reader" else "right")
        def pct(n: int, s: FanScore) -> str:
            return f"{n} ({n / s.shown:.1%})" if s.shown else "-"
        for name, s in scores.items():
            table.add_row(name, str(s.pictures), str(s.shown), pct(s.named, s), pct(s.ranked, s),
                          str(s.wrong_names), str(s.wrong_ranks), str(s.extra), f"{s.whole} of {s.pictures}",
                          pct(s.counted, s), str(s.wrong_counted))
        console = Console(width=160)
        console.print(table)
        ranks = [r for r in (*RANK_CHARS, JOKER_TEXT) if any(s.shown_ranks[r] for s in scores.values())]
        by_rank = Table(title="cards not read right, of those shown, by true rank")
        by_rank.add_column("reader")
        for r in ranks:
            by_rank.add_column(r, justify="right")
        for name, s in scores.items():
            by_rank.add_row(name, *(f"{s.missed_ranks[r]}/{s.shown_ranks[r]}" for r in ranks))
        console.print(by_rank)
        if out is not None:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps({"every": every, "min_faces": min_faces, "frames": frames,
                                       "recordings": [str(r) for r in rounds],
                                       "readers": {n: s.to_json() for n, s in scores.items()}}, indent=1),
                           encoding="utf-8")
        if failed:
            raise typer.Exit(1)
