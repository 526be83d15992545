"""The examples in the sources and calibration docstrings are run as tests (the suite only collects
doctests under monitor/rules by itself)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "monitor.sources.backend",
    "monitor.sources.backoff",
    "monitor.sources.dice_protocol",
    "monitor.sources.dice_sequence",
    "monitor.sources.picture_health",
    "monitor.calibration.polygons",
    "monitor.calibration.zones",
    "monitor.calibration.fitting",
    "monitor.calibration.lens",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
