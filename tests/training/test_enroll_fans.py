"""enroll-deck's fan reader: a room's deck rendered in fans, the shipped fan classifier fine-tuned on
it, thresholds fitted and measured on unseen tables; its files installed beside the site's models."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from monitor.cli import app
from tests.support.paths import DECK, MODELS, shared


def test_enroll_deck_without_a_fan_classifier_says_so(tmp_path: Path) -> None:
    shared(DECK)
    result = CliRunner().invoke(app, ["enroll-deck", str(DECK), "--out", str(tmp_path),
                                      "--base", str(MODELS / "cards.pt"),
                                      "--fan-base", str(tmp_path / "none.onnx")])
    assert result.exit_code == 2
    assert "fan classifier not found" in result.output and "--no-fan" in result.output


@pytest.mark.timeout(900)
def test_a_decks_fan_reader_is_enrolled_and_installed(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("ultralytics")
    shared(DECK)
    from monitor.training.enroll_fans import FAN_FILES, enroll_fan_reader

    site = tmp_path / "site"
    fit = enroll_fan_reader(DECK, tmp_path / "work", MODELS / "fan_index.onnx", windows=200,
                            epochs=1, threads=2, seed=3)
    reader = tmp_path / "work" / "fan_reader"
    assert all((reader / name).exists() for name in FAN_FILES)
    # measured on windows of the deck on tables the fine-tune never saw, thresholds fitted on val
    assert fit["test"]["indices_shown"] > 50 and 0.5 < fit["threshold"] < 1.0
    assert json.loads((reader / "fan_reader.json").read_text())["reader"] == "fan_index.onnx"
    site.mkdir()
    for name in FAN_FILES:
        shutil.copy(reader / name, site / name)
    from monitor.perception.fan_reader import load_fan_reader

    assert load_fan_reader(site, backend="onnxruntime", threads=1) is not None


def test_enroll_deck_trains_at_the_base_classifiers_input_size(tmp_path: Path) -> None:
    from monitor.commands.enroll_deck import base_imgsz

    shipped = json.loads((MODELS / "cards.json").read_text())["imgsz"]
    assert base_imgsz(MODELS / "cards.pt") == shipped
    alone = tmp_path / "other.pt"
    alone.write_bytes(b"")
    assert base_imgsz(alone) == 64  # no metadata beside it: the first classifiers' size
    (tmp_path / "other.json").write_text("{not json")
    assert base_imgsz(alone) == 64
