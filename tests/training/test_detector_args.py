"""Bad arguments to detector training fail at once, naming the file, before any training starts."""

from pathlib import Path

import pytest

from monitor.training.detector import train_detector


def test_a_missing_dataset_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nope\.yaml"):
        train_detector(tmp_path / "nope.yaml", tmp_path / "runs", "d", epochs=1)


def test_a_missing_init_checkpoint_is_named_before_training(tmp_path: Path) -> None:
    data = tmp_path / "obb.yaml"
    data.write_text("path: .\ntrain: images/train\nval: images/val\nnames: {0: card_face_up}\n")
    with pytest.raises(FileNotFoundError, match=r"finder\.pt"):
        train_detector(data, tmp_path / "runs", "d", epochs=1, init=tmp_path / "finder.pt")
    assert not (tmp_path / "runs").exists()  # nothing started, no run folder left behind
