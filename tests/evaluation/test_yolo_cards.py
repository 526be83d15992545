"""Reading a YOLO photo folder as card identities, with the project's label corrections applied."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.evaluation.corrections import Corrections, CorrectionsError, for_dataset
from monitor.evaluation.yolo_cards import DatasetError, card_text, read_split
from tests.support.paths import REAL_CARDS, shared


def _folder(tmp_path: Path, labels: str) -> Path:
    (tmp_path / "test" / "images").mkdir(parents=True)
    (tmp_path / "test" / "labels").mkdir(parents=True)
    (tmp_path / "data.yaml").write_text("names: ['10H', 'AS', 'unused', '5D']\n")
    cv2.imwrite(str(tmp_path / "test" / "images" / "a.jpg"), np.full((100, 200, 3), 90, np.uint8))
    (tmp_path / "test" / "labels" / "a.txt").write_text(labels)
    return tmp_path


def test_class_names_read_as_card_texts() -> None:
    assert [card_text(n) for n in ("10H", "AS", "qc", "Th", "joker", "unused", "1X")] == [
        "Th", "As", "Qc", "Th", "Jk", None, None]


def test_boxes_in_pixels_and_unused_classes_left_out(tmp_path: Path) -> None:
    root = _folder(tmp_path, "0 0.5 0.5 0.2 0.4\n2 0.1 0.1 0.1 0.1\n1 0.25 0.5 0.1 0.2\n")
    (photo,) = read_split(root, "test")
    assert (photo.width, photo.height) == (200, 100)
    assert [(c.identity, c.line) for c in photo.cards] == [("Th", 0), ("As", 2)]
    assert photo.cards[0].box == pytest.approx((80, 30, 120, 70))


def test_corrections_apply_by_image_and_line(tmp_path: Path) -> None:
    root = _folder(tmp_path, "3 0.5 0.5 0.2 0.4\n1 0.25 0.5 0.1 0.2\n")
    fixes = tmp_path / "fixes.yaml"
    fixes.write_text("dataset: t\ncorrections:\n"
                     "  - {image: a.jpg, line: 1, was: 5D, label: 4s, why: the index reads 4 of spades}\n"
                     "  - {image: a.jpg, line: 2, was: AS, label: drop, why: no single card}\n")
    (photo,) = read_split(root, "test", Corrections.load(fixes))
    assert [(c.identity, c.corrected) for c in photo.cards] == [("4s", True)]


def test_bad_label_line_names_file_and_line(tmp_path: Path) -> None:
    root = _folder(tmp_path, "0 0.5 0.5 0.2 0.4\n1 0.5 oops\n")
    with pytest.raises(DatasetError, match=r"a\.txt:2: expected 'class x y w h'"):
        read_split(root, "test")
    (root / "test" / "labels" / "a.txt").write_text("9 0.5 0.5 0.2 0.2\n")
    with pytest.raises(DatasetError, match=r"a\.txt:1: class 9 not in data\.yaml's 4 names"):
        read_split(root, "test")
    with pytest.raises(DatasetError, match="no train/images"):
        read_split(root, "train")


@pytest.mark.parametrize(("entry", "message"), [
    ("{image: a.jpg, line: 1, was: 5D, label: 4x, why: w}", "no card text"),
    ("{image: a.jpg, line: 0, was: 5D, label: 4s, why: w}", "must be 1 or more"),
    ("{image: a.jpg, line: 1, was: 5D, label: 4s, why: ''}", "'why' is empty"),
    ("{image: a.jpg, was: 5D, label: 4s, why: w}", "missing line"),
])
def test_bad_corrections_are_refused_with_their_entry(tmp_path: Path, entry: str, message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"dataset: t\ncorrections:\n  - {entry}\n")
    with pytest.raises(CorrectionsError, match=rf"corrections\[0\]: .*{message}"):
        Corrections.load(path)


def test_shipped_audit_of_the_shared_set_loads_and_names_real_boxes() -> None:
    shared(REAL_CARDS)
    fixes = for_dataset(REAL_CARDS)
    assert fixes is not None and fixes.entries
    for c in fixes.entries:
        labels = next(REAL_CARDS.glob(f"*/labels/{Path(c.image).stem}.txt"))
        lines = labels.read_text().splitlines()
        assert c.line <= len(lines), f"{c.image} has no line {c.line}"
