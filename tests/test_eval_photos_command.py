"""`eval-photos` on a tiny labelled folder: the figures, the JSON and the contact sheet it writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from monitor.cli import app

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "real-cards" / "poker-cards-rf100"


def _tiny(tmp_path: Path, n: int) -> Path:
    """The first ``n`` real test photos, labels and class names, in a folder of their own."""
    if not REAL.is_dir():
        pytest.skip(f"the shared real-cards set is not beside the repository ({REAL})")
    root = tmp_path / "tiny"
    for sub in ("images", "labels"):
        (root / "test" / sub).mkdir(parents=True)
    shutil.copy(REAL / "data.yaml", root / "data.yaml")
    for img in sorted((REAL / "test" / "images").glob("*.jpg"))[:n]:
        shutil.copy(img, root / "test" / "images" / img.name)
        label = f"{img.stem}.txt"
        shutil.copy(REAL / "test" / "labels" / label, root / "test" / "labels" / label)
    return root


def test_eval_photos_writes_figures_json_and_a_contact_sheet(tmp_path: Path) -> None:
    root = _tiny(tmp_path, 3)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["eval-photos", str(root), "--split", "test", "--scales", "1,0.5",
                                      "--out", str(out), "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert "| scale | photos | card box recall" in result.output
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics["scales"]) == {"1", "0.5"}
    labelled = sum(len((root / "test" / "labels" / f"{p.stem}.txt").read_text().split())
                   for p in (root / "test" / "images").glob("*.jpg")) // 5
    for figures in metrics["scales"].values():
        assert figures["photos"] == 3
        assert figures["groups"]["all"]["cards"] == labelled
        assert 0.0 <= figures["box_recall"] <= 1.0 and 0.0 <= figures["identity_recall"] <= 1.0
        assert figures["identity_recall"] <= figures["box_recall"]  # a card named is a card boxed
        for name in figures["contact_sheets"]:
            assert (out / name).stat().st_size > 1000
    assert (out / "table.md").read_text().count("\n") == 4


def test_eval_photos_says_what_is_wrong_with_a_folder(tmp_path: Path) -> None:
    (tmp_path / "test" / "images").mkdir(parents=True)
    result = CliRunner().invoke(app, ["eval-photos", str(tmp_path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "no data.yaml" in result.output
    result = CliRunner().invoke(app, ["eval-photos", str(tmp_path), "--scales", "1,x"])
    assert result.exit_code != 0 and "comma list of numbers" in result.output
