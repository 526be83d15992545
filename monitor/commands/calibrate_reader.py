"""``table-monitor calibrate-reader``: the card reader's naming threshold checked on rendered whole frames."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, Backend

LOOK = 0.5  # the frames are read with this threshold, so every read a sweep may name is seen


def register(app: typer.Typer) -> None:
    @app.command("calibrate-reader")
    def calibrate_reader(
        frames: Annotated[list[Path], typer.Argument(help="rendered frames, each with its truth IMAGE.json")],
        models: Annotated[Path | None, typer.Option(
            help="models folder (default: the shipped models, or "
                 "TABLE_MONITOR_MODELS)")] = None,
        budget: Annotated[float, typer.Option(min=0.0, max=0.5, help="share of named faces that may be "
                                              "false on these frames")] = 0.0,
        video: Annotated[bool, typer.Option(help="perceive as video does (none of the photo steps)")] = False,
        backend: Annotated[Backend, typer.Option(help="the models' inference runtime")] = DEFAULT_BACKEND,
        threads: Annotated[int, typer.Option(min=1)] = 2,
        write: Annotated[bool, typer.Option(help="write the threshold into the reader's JSON "
                                            "(cards_ensemble.json, else cards.json)")] = False,
    ) -> None:
        """Read rendered whole frames, check every named face against the cards under its box (occluded
        ones too), and print the least threshold, never under the reader's own, at which the faces named
        falsely stay within --budget. The reader's threshold is fitted on crops of single cards; a box over
        two cards reads as a third card, which only whole frames show. Read at 0.5 throughout, so the
        photo steps that depend on what is named (merged boxes, the second look) see more names than
        they will: check the chosen threshold with `detect --score`."""
        from rich.console import Console
        from rich.table import Table
        from tqdm import tqdm

        from monitor.perception.errors import PerceptionError
        from monitor.perception.identity import ENSEMBLE_FILE
        from monitor.perception.imageio import load_image
        from monitor.perception.models_home import models_home
        from monitor.perception.pipeline import Perceiver
        from monitor.perception.reader_threshold import frame_threshold, sweep
        from monitor.perception.scoring import face_verdicts, load_truth

        folder = models or models_home()
        try:
            perceiver = Perceiver.from_models(folder, backend.value, threads, threshold=LOOK, video=video)
        except (PerceptionError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        perceiver.cache = None  # separate frames: no reading carried from one to the next
        reader = perceiver.classifier
        if reader is None:
            typer.echo(f"error: no card reader in {folder}", err=True)
            raise typer.Exit(2)
        spec = folder / ENSEMBLE_FILE if (folder / ENSEMBLE_FILE).exists() else folder / "cards.json"
        own = float(json.loads(spec.read_text())["threshold"])
        verdicts: list[tuple[float, bool]] = []
        for path in tqdm(frames, desc="frames", unit="frame"):
            truth = path.with_suffix(".json")
            if not truth.exists():
                typer.echo(f"error: {path}: no truth {truth.name} beside it (rendered frames only)", err=True)
                raise typer.Exit(2)
            try:
                frame = load_image(path)
            except PerceptionError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(2) from exc
            verdicts += face_verdicts(perceiver.perceive(frame), load_truth(truth))
        chosen = frame_threshold(verdicts, budget, own)
        table = Table(title=f"{len(frames)} frames ({'video' if video else 'photos'}), faces read at {LOOK}")
        for col in ("threshold", "named right", "named falsely"):
            table.add_column(col, justify="right")
        grid = sorted({own, chosen, 0.97, 0.975, 0.98, 0.985, 0.99, 0.995, 0.999})
        for t, right, false in sweep(verdicts, grid):
            mark = " (reader's)" if t == own else " (chosen)" if t == chosen else ""
            table.add_row(f"{t:.4f}{mark}", str(right), str(false))
        Console().print(table)
        typer.echo(f"threshold: {chosen:.4f} (the reader's own {own:.4f}; budget {budget:.4f} of named "
                   "faces)")
        if write and chosen != own:
            raw = json.loads(spec.read_text())
            raw["threshold"] = chosen
            raw["threshold_from"] = {"crops": own, "frames": len(frames), "budget": budget, "video": video}
            spec.write_text(json.dumps(raw, indent=2))
            typer.echo(f"written into {spec}")
