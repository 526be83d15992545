"""`eval-photos` on a tiny labelled folder: the figures, the JSON and the contact sheet it writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from monitor.cli import app
from tests.support.paths import REAL_CARDS, shared


def _tiny(tmp_path: Path, n: int) -> Path:
    """The first ``n`` real test photos, labels and class names, in a folder of their own."""
    shared(REAL_CARDS)
    root = tmp_path / "tiny"
    for sub in ("images", "labels"):
        (root / "test" / sub).mkdir(parents=True)
    shutil.copy(REAL_CARDS / "data.yaml", root / "data.yaml")
    for img in sorted((REAL_CARDS / "test" / "images").glob("*.jpg"))[:n]:
        shutil.copy(img, root / "test" / "images" / img.name)
        label = f"{img.stem}.txt"
        shutil.copy(REAL_CARDS / "test" / "labels" / label, root / "test" / "labels" / label)
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


def test_threshold_sweep_unnames_what_reads_below_each_threshold() -> None:
    from collections import Counter

    from monitor.evaluation.eval_photos import ScaleRun, sweep_table, threshold_sweep
    from monitor.evaluation.photo_metrics import Found, Summary, Truth, match
    from monitor.evaluation.yolo_cards import Photo

    truths = [Truth((0, 0, 10, 14), "AS"), Truth((20, 0, 30, 14), "KH"), Truth((40, 0, 50, 14), "2C")]
    found = [Found((0, 0, 10, 14), "AS", 0.99), Found((20, 0, 30, 14), "QH", 0.7),
             Found((40, 0, 50, 14), "2C", 0.9)]
    score = match(truths, found)
    photo = Photo(Path("p.jpg"), 60, 20, ())
    run = ScaleRun(1.0, Summary(), ((photo, score),), (None,), Counter())
    rows = threshold_sweep(run, [0.95, 0.5, 0.8])
    assert [r["threshold"] for r in rows] == [0.5, 0.8, 0.95]
    assert [r["named"] for r in rows] == [3, 2, 1]
    assert [r["named_wrong"] for r in rows] == [1, 0, 0]  # the QH read at 0.7 drops out at 0.8
    assert rows[1]["identity_precision"] == 1.0
    assert rows[1]["identity_recall_index_visible"] == pytest.approx(2 / 3)
    assert "| 0.800 | 1.0000 | 0.6667 | 2 | 0 |" in sweep_table(run, rows)


def test_eval_photos_sweep_below_the_readers_threshold_is_refused(tmp_path: Path) -> None:
    root = _tiny(tmp_path, 1)
    result = CliRunner().invoke(app, ["eval-photos", str(root), "--sweep", "0.05",
                                      "--out", str(tmp_path / "o"), "--threads", "1"])
    assert result.exit_code != 0 and "set --reader-threshold" in result.output
