"""Where the tests find the repository's files, and the shared data sets beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]  # the repository
TESTS = ROOT / "tests"
DATA = TESTS / "data" / "perception"  # committed sample frames and crops
TABLE_1080P = DATA / "table_1080p.jpg"
TABLE_FILE = ROOT / "calibration" / "default-table.yaml"
MODELS = ROOT / "models"
SAMPLE_RECORDING = ROOT / "monitor" / "render" / "rounds" / "sample_recording"
PROCEDURE_SAMPLES = ROOT / "monitor" / "procedure" / "samples"
DOCS = ROOT / "docs"

SHARED = ROOT.parent / "shared"  # data sets too large for the repository, beside it where present
REAL_CARDS = SHARED / "real-cards" / "poker-cards-rf100"
DECK = SHARED / "decks" / "vector-playing-cards"
SEEDS = SHARED / "seeds"


def shared(path: Path) -> Path:
    """``path`` (under ../shared), or the test skipped where that data set is not beside the repository."""
    if not path.is_dir():
        pytest.skip(f"the shared data set {path.relative_to(SHARED)} is not beside the repository ({path})")
    return path
