"""A room's own deck for the fan reader: its set hands read by their index corners.

A set hand turned up shows each card's index and little else, ~8 px tall at 1080p: the generic fan
classifier, trained on generated decks, reads under half of an unseen deck's fanned cards even to
their rank (models/MODEL_CARD.md), and the fouls and the duplicate card need whole
hands. A room deals one deck design; rendered in its fans (``render indices`` with that design) and
cut as the runtime cuts them (``train fan-crops``), it fine-tunes the shipped fan classifier (its ONNX
rebuilt, ``onnx_init``); the name and rank thresholds are fitted on its val windows and measured on
windows of the same deck on tables the fine-tune never saw (``test``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from monitor.perception.identity import ClassifierMeta
from monitor.render.datasets import standard_splits
from monitor.render.index_export import export_indices
from monitor.training.cards import train_cards
from monitor.training.evaluate_cards import calibrate_and_evaluate
from monitor.training.export import export_onnx, model_names
from monitor.training.fan_crops import derive_fan_crops
from monitor.training.fan_reader_fit import READER_NAME, fit_fan_reader

FAN_IMGSZ = 64  # the shipped fan classifier's input
FAN_FILES = (f"{READER_NAME}.onnx", f"{READER_NAME}.json", "fan_reader.json", "fan_reader_metrics.json")


def fan_window_counts(windows: int) -> dict[str, int]:
    """Windows rendered per split: ``windows`` to train on, a tenth more (at least 30) each for val
    (the thresholds) and test (the deck on tables the fine-tune never saw)."""
    held = max(30, windows // 10)
    return {"train": windows, "val": held, "test": held}


def enroll_fan_reader(deck: Path, out: Path, base: Path, windows: int = 3000, epochs: int = 5,
                      threads: int = 1, seed: int = 0,
                      progress: Callable[[str, int], None] | None = None) -> dict[str, Any]:
    """Render ``windows`` fan windows of ``deck`` (and a tenth more each for val and test), fine-tune
    ``base`` (the shipped ``fan_index.onnx``) on their index corners and fit a fan reader in
    ``out/fan_reader`` (the files of :data:`FAN_FILES`). Returns the fit's figures (val, test)."""
    if not base.exists() or not base.with_suffix(".json").exists():
        raise FileNotFoundError(f"{base}: the fan classifier to fine-tune (with its .json) is not there")
    splits = standard_splits([str(deck.resolve())], [str(deck.resolve())])
    windows_dir, crops = out / "fan_windows", out / "fan_crops"
    export_indices(windows_dir, fan_window_counts(windows), splits, seed,
                   progress=progress, workers=threads)
    derive_fan_crops(windows_dir, crops, FAN_IMGSZ)
    # the classifier's classes are the train split's folders: a card never rendered there would be
    # dropped from the enrolled reader (and every read of it be another card)
    shown = {p.name for p in (crops / "train").iterdir() if any(p.iterdir())}
    missing = sorted(set(ClassifierMeta.load(base.with_suffix(".json")).classes) - shown)
    if missing:
        raise ValueError(f"{windows} fan windows of {deck} never showed {', '.join(missing)}: render more "
                         "(--fan-windows)")
    run = train_cards(crops, out / "runs", f"{deck.resolve().name}_fan", epochs, imgsz=FAN_IMGSZ,
                      base=str(base), lr0=0.001, threads=threads)
    ckpt = run / "weights" / "best.pt"
    onnx_path = export_onnx(ckpt, run / "export" / "cards.onnx", FAN_IMGSZ)
    calibrate_and_evaluate(onnx_path, model_names(ckpt), FAN_IMGSZ, crops, run / "eval", ("test",))
    return fit_fan_reader(onnx_path, crops, out / "fan_reader", ("test",))

