"""``table-monitor eval-photos DIR``: the shipped perception scored on labelled photos (YOLO format)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, Backend


def register(app: typer.Typer) -> None:
    @app.command("eval-photos")
    def eval_photos(
        root: Annotated[Path, typer.Argument(help="dataset folder: data.yaml, SPLIT/images, SPLIT/labels")],
        split: Annotated[str, typer.Option(help="train, val (valid) or test")] = "test",
        out: Annotated[Path, typer.Option(help="folder for metrics.json, table.md, contact sheets")]
        = Path("runs/eval-photos"),
        models: Annotated[Path | None, typer.Option(
            help="folder with detector.onnx and the card readers (default: the photo models, as detect)")]
        = None,
        backend: Annotated[Backend, typer.Option(help="the models' inference runtime")] = DEFAULT_BACKEND,
        threads: Annotated[int, typer.Option(min=1)] = 2,
        scales: Annotated[str, typer.Option(
            help="comma list: each photo resized by these before perceiving (1,0.5,0.25: as is, half, "
                 "a quarter)")] = "1",
        card_scale: Annotated[str, typer.Option(
            help="'find' (the cards' length found first), 'as-is' (perceived as given) or a card length "
                 "in pixels")] = "find",
        corrections: Annotated[Path | None, typer.Option(
            help="label corrections YAML (default: the project's audit of this dataset, if any)")] = None,
        no_corrections: Annotated[bool, typer.Option(help="score against the labels as they are")] = False,
        limit: Annotated[int | None, typer.Option(min=1, help="only the first N photos")] = None,
        reader_threshold: Annotated[float | None, typer.Option(
            min=0.0, max=1.0, help="name cards read at this probability or surer (default: the reader's "
                                   "own, fitted when it was trained)")] = None,
        sweep: Annotated[str, typer.Option(
            help="comma list of naming thresholds to score the identities at too (the reader names down "
                 "to the lowest: set --reader-threshold to it)")] = "",
    ) -> None:
        """Card box recall and precision (IoU 0.5 against the labelled boxes), identity precision and recall
        per card, the confusions, a contact sheet of every missed and falsely named card."""
        from rich.progress import Progress

        from monitor.evaluation.corrections import Corrections, CorrectionsError, for_dataset
        from monitor.evaluation.eval_photos import evaluate, write_report
        from monitor.evaluation.yolo_cards import DatasetError
        from monitor.perception.errors import PerceptionError
        from monitor.perception.pipeline import Perceiver, photo_models

        try:
            factors = [float(s) for s in scales.split(",") if s.strip()]
        except ValueError:
            raise typer.BadParameter(f"--scales {scales!r}: a comma list of numbers") from None
        if not factors or any(not 0 < f <= 4 for f in factors):
            raise typer.BadParameter(f"--scales {scales!r}: each in (0, 4]")
        try:
            sweeps = [float(t) for t in sweep.split(",") if t.strip()]
        except ValueError:
            raise typer.BadParameter(f"--sweep {sweep!r}: a comma list of probabilities") from None
        if any(not 0 <= t <= 1 for t in sweeps):
            raise typer.BadParameter(f"--sweep {sweep!r}: each in [0, 1]")
        mode: str | float = card_scale
        if card_scale not in ("find", "as-is"):
            try:
                mode = float(card_scale)
            except ValueError:
                raise typer.BadParameter(f"--card-scale {card_scale!r}: find, as-is or a length") from None
        try:
            fixes = None if no_corrections else (Corrections.load(corrections) if corrections
                                                 else for_dataset(root))
            perceiver = Perceiver.from_models(models or photo_models(), backend.value, threads)
            if reader_threshold is not None and perceiver.classifier is not None:
                perceiver.classifier.threshold = reader_threshold
            if sweeps and perceiver.classifier is not None and min(sweeps) < perceiver.classifier.threshold:
                raise typer.BadParameter(f"--sweep {sweep!r} goes below the reader's naming threshold "
                                         f"{perceiver.classifier.threshold:g}: set --reader-threshold")
            with Progress() as bar:
                task = bar.add_task(f"eval {split}", total=None)
                runs = evaluate(perceiver, root, split, factors, mode, fixes, limit,
                                progress=lambda d, t: bar.update(task, completed=d, total=t))
        except (DatasetError, CorrectionsError, PerceptionError, FileNotFoundError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        meta = {"dataset": str(root), "split": split, "models": str(models or photo_models()),
                "card_scale": card_scale, "corrections": None if fixes is None else len(fixes.entries),
                "reader_threshold": None if perceiver.classifier is None else perceiver.classifier.threshold,
                "command": "table-monitor eval-photos " + " ".join(
                    [str(root), f"--split {split}", f"--scales {scales}", f"--card-scale {card_scale}"])}
        write_report(runs, out, meta, sweeps)
        typer.echo((out / "table.md").read_text())
        typer.echo(f"metrics, table and contact sheets in {out}")
