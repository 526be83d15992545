"""The command line's choices and the one default of each, shared by every command that takes them.

Kept free of heavy imports (no numpy): the CLI builds its help from these at start-up. The values are
the ones the code below the CLI takes (``monitor.perception.backends.BACKENDS``, the pipeline's
perception names, ``monitor.perception.pipeline.ClassicalMode``, ``monitor.api.settings.Settings.port``);
tests hold them equal.
"""

from __future__ import annotations

from enum import StrEnum


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
