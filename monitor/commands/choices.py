"""The command line's choices and the one default of each, shared by every command that takes them.

Kept free of heavy imports (no numpy): the CLI builds its help from these at start-up. The values are
the ones the code below the CLI takes (``monitor.perception.backends.BACKENDS``, the pipeline's
perception names, ``monitor.perception.pipeline.ClassicalMode``, ``monitor.api.settings.Settings.port``,
``monitor.render.camera.RESOLUTIONS``); tests hold them equal.
"""

from __future__ import annotations

from enum import StrEnum

import typer


class Backend(StrEnum):
    """The models' inference runtime."""

    ONNXRUNTIME = "onnxruntime"
    OPENVINO = "openvino"


# ONNX Runtime: measured faster for the live chain and for reviews on one thread (docs/benchmarks.md);
# every command's --backend defaults to it, photos (detect) included
DEFAULT_BACKEND = Backend.ONNXRUNTIME


class Classical(StrEnum):
    """The classical card finder beside the detector, for photos (``detect``, ``bench perception``)."""

    AUTO = "auto"  # both finders, the classical one's corners winning where both find a card
    FULL = "full"  # the same, asked for by name
    REFINE = "refine"  # the detector's cards only, their corners re-found around each
    OFF = "off"  # the detector alone


DEFAULT_CLASSICAL = Classical.AUTO


class Perception(StrEnum):
    """What turns frames into detections."""

    AUTO = "auto"  # the recording's ground truth when it is there, else the models
    MODELS = "models"  # the trained models
    ORACLE = "oracle"  # a rendered recording's ground truth


# The dashboard / API port of every command that serves it (serve, run, demo).
DEFAULT_PORT = 8080


class LogLevel(StrEnum):
    """How much the log says (``--log-level``)."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


DEFAULT_LOG_LEVEL = LogLevel.INFO


class Resolution(StrEnum):
    """A rendered frame's size by name (``monitor.render.camera.RESOLUTIONS``)."""

    P720 = "720p"
    P1080 = "1080p"
    K4 = "4k"


def frame_size(text: str) -> str:
    """A recording's ``--resolution``: a :class:`Resolution` or WIDTHxHEIGHT (even, 64..7680 x
    64..4320), checked as the command line is read; a bad one is refused by name."""
    if text in set(Resolution):
        return text
    from monitor.render.rounds.video import RenderOptions

    try:
        RenderOptions(resolution=text).size()
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    return text


def resolution_weights(text: str) -> dict[str, float]:
    """``--resolutions`` of a dataset: ``NAME[:WEIGHT],...``, each name a :class:`Resolution`."""
    out: dict[str, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, _, weight = (x.strip() for x in part.partition(":"))
        if name not in set(Resolution):
            raise typer.BadParameter(f"{name!r} is no resolution: one of {', '.join(Resolution)}")
        try:
            out[name] = float(weight) if weight else 1.0
        except ValueError:
            raise typer.BadParameter(f"{part.strip()!r} is not NAME or NAME:WEIGHT") from None
        if out[name] < 0:
            raise typer.BadParameter(f"{part.strip()!r}: a weight cannot be negative")
    if not out or not sum(out.values()) > 0:
        raise typer.BadParameter(f"{text!r}: no resolution with a weight above 0")
    return out
