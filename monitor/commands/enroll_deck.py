"""``table-monitor enroll-deck DIR``: a room's own deck -> renders of it -> fine-tuned card readers.

DIR holds the deck's 53 face images and a back, named like vector-playing-cards
(``ace_of_spades.png`` ... ``black_joker.png``, ``back.png``). The renderer deals that deck on the
project's training tables (train/val) and on tables the training never saw (``test_table``: the
held-out metrics), the shipped classifier is fine-tuned on it, calibrated on val and evaluated. With
``--fan`` (the default) the fan reader too: the deck dealt in fanned hands, the shipped fan classifier
fine-tuned on their index corners (``training/enroll_fans.py``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("enroll-deck")
    def enroll_deck(
        deck: Annotated[Path, typer.Argument(help="folder with 53 face images and a back")],
        out: Annotated[Path, typer.Option(help="work folder")] = Path("runs/enroll"),
        crops: Annotated[int, typer.Option(min=540, help="train + val crops to render")] = 8100,
        test_crops: Annotated[int, typer.Option(min=54, help="held-out crops (unseen tables)")] = 1620,
        epochs: Annotated[int, typer.Option(min=1)] = 4,
        base: Annotated[Path, typer.Option(help="checkpoint to fine-tune")] = Path("models/cards.pt"),
        imgsz: Annotated[int | None, typer.Option(
            help="classifier input size (default: the base's, from the .json beside it, else 64)")] = None,
        threads: Annotated[int, typer.Option(min=1)] = 1,
        seed: Annotated[int, typer.Option()] = 0,
        reuse_crops: Annotated[bool, typer.Option(help="reuse OUT/crops if already rendered")] = False,
        install: Annotated[Path | None, typer.Option(
            help="copy the enrolled cards.onnx/.json here (e.g. a site's models folder)")] = None,
        fan: Annotated[bool, typer.Option(help="enroll the fan reader too (set hands read by index)")] = True,
        fan_base: Annotated[Path, typer.Option(help="the fan classifier to fine-tune")]
        = Path("models/fan_index.onnx"),
        fan_windows: Annotated[int, typer.Option(min=30, help="fan windows to render for training (a "
                                                              "tenth more each for val and test)")] = 3000,
        fan_epochs: Annotated[int, typer.Option(min=1)] = 5,
    ) -> None:
        """Render the deck, fine-tune the card classifier on it and print its held-out metrics."""
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from monitor.render.crops import export_crops
        from monitor.render.datasets import standard_splits
        from monitor.render.deck import DesignError, FolderDesign

        try:
            FolderDesign(deck)
        except DesignError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        if not base.exists():
            typer.echo(f"error: base classifier checkpoint not found: {base}", err=True)
            raise typer.Exit(2)
        if imgsz is None:
            imgsz = base_imgsz(base)
        if fan and not (fan_base.exists() and fan_base.with_suffix(".json").exists()):
            typer.echo(f"error: fan classifier not found: {fan_base} (and its .json); --no-fan skips it",
                       err=True)
            raise typer.Exit(2)
        data = out / "crops"
        n_val = max(54, crops // 10)
        counts = {"train": crops - n_val, "val": n_val, "test_table": test_crops}
        splits = standard_splits([str(deck.resolve())], [])
        if reuse_crops and (data / "train").is_dir():
            typer.echo(f"reusing the crops already rendered in {data}")
        else:
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeRemainingColumn()) as bar:
                tasks = {s: bar.add_task(f"render {s:<10}", total=c) for s, c in counts.items()}
                export_crops(data, counts, splits, seed, progress=lambda s, k: bar.advance(tasks[s], k))

        from monitor.training.cards import train_cards
        from monitor.training.evaluate_cards import calibrate_and_evaluate
        from monitor.training.export import export_onnx, model_names

        name = deck.resolve().name
        run = train_cards(data, out / "runs", name, epochs, imgsz=imgsz, base=str(base), lr0=0.0005,
                          threads=threads)
        ckpt = run / "weights" / "best.pt"
        onnx_path = export_onnx(ckpt, run / "export" / "cards.onnx", imgsz)
        result = calibrate_and_evaluate(onnx_path, model_names(ckpt), imgsz, data, run / "eval",
                                        ("test_table",))
        m = result["test_table"]
        typer.echo(f"enrolled deck {name}: held-out (unseen tables) n={m['n']} top-1={m['top1']:.4f} "
                   f"accepted={m['accepted_share']:.4f} false-identity={m['false_identity_rate']:.4f}")
        typer.echo(f"critical confusions: {json.dumps(m['critical'])}")
        worst = ", ".join(f"{a}->{b} x{n}" for a, b, n in m["worst_confusions"][:5]) or "none"
        typer.echo(f"worst confusions: {worst}")
        typer.echo(f"model: {onnx_path} (temperature {result['temperature']:.3f}, "
                   f"threshold {result['threshold']:.3f}); metrics and confusion matrix in {run / 'eval'}")
        if install is not None:
            install.mkdir(parents=True, exist_ok=True)
            shutil.copy(onnx_path, install / "cards.onnx")
            shutil.copy(onnx_path.with_suffix(".json"), install / "cards.json")
            # the enrolled model is calibrated alone: an ensemble fitted around the generic one would
            # misjudge it, so the folder's card reader becomes the enrolled model by itself
            stale = install / "cards_ensemble.json"
            if stale.exists():
                stale.rename(stale.with_suffix(".json.before-enroll"))
                typer.echo(f"{stale.name} set aside (.before-enroll): the enrolled model reads alone")
            typer.echo(f"installed into {install}")
        if not fan:
            return
        from monitor.training.enroll_fans import FAN_FILES, enroll_fan_reader, fan_window_counts

        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn()) as bar:
            fan_tasks = {s: bar.add_task(f"fan windows {s:<5}", total=c)
                         for s, c in fan_window_counts(fan_windows).items()}
            fit = enroll_fan_reader(deck, out / "fan", fan_base, fan_windows, fan_epochs, threads, seed,
                                    progress=lambda s, k: bar.advance(fan_tasks[s], k))
        t = fit["test"]
        typer.echo(f"enrolled fan reader: held-out (unseen tables) indices {t['indices_shown']}, top-1 "
                   f"{t['top1_of_shown']:.4f}, named {t['named_of_shown']:.4f}, named or rank "
                   f"{t['named_or_rank_of_shown']:.4f}; false names {t['false_name_rate']:.4f}, false ranks "
                   f"{t['false_rank_rate']:.4f} of all crops (thresholds {fit['threshold']:.4f} / "
                   f"{fit['rank_threshold']:.4f})")
        if install is not None:
            for name in FAN_FILES:
                shutil.copy(out / "fan" / "fan_reader" / name, install / name)
            typer.echo(f"fan reader installed into {install}")


def base_imgsz(base: Path) -> int:
    """The input size the base checkpoint was trained at: its exported model's metadata beside it
    (models/cards.pt and models/cards.json), else 64 (the first classifiers')."""
    from monitor.perception.errors import ModelFileError
    from monitor.perception.identity import ClassifierMeta

    try:
        return ClassifierMeta.load(base.with_suffix(".json")).imgsz
    except ModelFileError:
        return 64
