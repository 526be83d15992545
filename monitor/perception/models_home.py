"""Where the trained models are found: one answer for every command and every library default.

The models ship inside the package, in ``monitor/models``: in the source tree (and an editable install)
that is a link to ``models/`` at the repository's root; a wheel carries a copy of the files the runtime
loads (the ONNX networks and their JSON metadata; pyproject.toml's package data leaves the training
checkpoints and the reports out). ``TABLE_MONITOR_MODELS`` names another folder laid out the same way,
and a command's ``--models`` one folder for that command.

Kept free of heavy imports: the commands call it before they load a runtime.
"""

from __future__ import annotations

import os
from pathlib import Path

from monitor.perception.errors import ModelFileError

MODELS_ENV = "TABLE_MONITOR_MODELS"
# resolved through the source tree's link, so a path printed or recorded is the repository's models/
SHIPPED_MODELS = (Path(__file__).resolve().parents[1] / "models").resolve()
# the files of which a models folder holds at least one (a detector, a card reader, an ensemble of readers)
MODEL_FILES = ("detector.onnx", "cards.onnx", "cards_ensemble.json")


class ModelsMissingError(ModelFileError, ValueError):
    """A models folder is not there or holds no model. A ValueError too: the live commands report
    those as set-up errors."""


def models_home() -> Path:
    """The models folder: ``$TABLE_MONITOR_MODELS`` where set, else the models shipped in the package."""
    chosen = os.environ.get(MODELS_ENV, "").strip()
    return Path(chosen).expanduser() if chosen else SHIPPED_MODELS


def photo_models() -> Path:
    """The models a photo is perceived with (``detect``, ``eval-photos``): the home's ``photos/``,
    trained on real photographs and renders together, where it holds a detector; else the home itself
    (the live chain's models, which the end-to-end gate proved on the table's video)."""
    home = models_home()
    photos = home / "photos"
    return photos if (photos / "detector.onnx").is_file() else home


def models_problem(folder: Path) -> str | None:
    """What keeps ``folder`` from being a models folder, naming it and how to point at another one;
    None when it holds a model."""
    hint = f"give --models or set {MODELS_ENV} to the folder that holds detector.onnx / cards.onnx"
    if not folder.is_dir():
        shipped = " (this installation ships no models)" if folder == SHIPPED_MODELS else ""
        return f"no models folder at {folder}{shipped}: {hint}"
    if not any((folder / name).is_file() for name in MODEL_FILES):
        return f"no models in {folder} (none of {', '.join(MODEL_FILES)}): {hint}"
    return None


def require_models(folder: Path) -> Path:
    """``folder`` if it holds a model, else :class:`ModelsMissingError` saying which folder and why."""
    problem = models_problem(folder)
    if problem is not None:
        raise ModelsMissingError(problem)
    return folder
