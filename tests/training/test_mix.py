"""Crop datasets mixed from several folders (`table-monitor train mix`) and frozen snapshots."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.training.snapshot import make_mix, make_snapshot, parse_part


def _crops(root: Path, per_class: dict[str, int], prefix: str = "x") -> Path:
    for cls, n in per_class.items():
        (root / cls).mkdir(parents=True, exist_ok=True)
        for i in range(n):
            (root / cls / f"{prefix}_{i:04d}_001.jpg").write_bytes(b"\xff\xd8jpeg")
    return root


def test_parts_parse_with_and_without_a_limit() -> None:
    assert parse_part("train=data/a/train") == ("train", Path("data/a/train"), None)
    assert parse_part("val=data/b:c/val:25") == ("val", Path("data/b:c/val"), 25)
    with pytest.raises(ValueError, match="SPLIT=DIR"):
        parse_part("data/a/train")


def test_mix_samples_per_class_and_keeps_every_file_once(tmp_path: Path) -> None:
    a = _crops(tmp_path / "a" / "train", {"As": 10, "back": 4})
    b = _crops(tmp_path / "b" / "train", {"As": 3, "back": 3})  # same file names as a's: kept apart
    dst = tmp_path / "mix"
    counts = make_mix(dst, [("train", a, 5), ("train", b, None), ("val", b, 1)], seed=3)
    assert counts == {"train": 5 + 4 + 3 + 3, "val": 2}
    assert len(list((dst / "train" / "As").iterdir())) == 8
    assert all(p.is_symlink() and p.resolve().exists() for p in (dst / "train").rglob("*.jpg"))
    again = make_mix(tmp_path / "mix2", [("train", a, 5)], seed=3)
    same = sorted(p.resolve() for p in (tmp_path / "mix2" / "train" / "As").iterdir())
    assert again["train"] == 9 and same == sorted(
        p.resolve() for p in (dst / "train" / "As").iterdir() if p.resolve().parent.parent == a)


def test_mix_refuses_missing_sources_and_a_used_destination(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such folder"):
        make_mix(tmp_path / "m", [("train", tmp_path / "nope", None)])
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "f").write_text("x")
    a = _crops(tmp_path / "a", {"As": 1})
    with pytest.raises(FileExistsError, match="not empty"):
        make_mix(tmp_path / "used", [("train", a, None)])


def test_snapshot_splits_val_by_frame_when_the_source_has_none(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _crops(src / "train", {"As": 40, "Kd": 40})
    counts = make_snapshot(src, tmp_path / "snap", val_frac=0.25)
    assert counts["train"] + counts["val"] == 80 and 0 < counts["val"] < 80


def _manifest(part: Path, rows: list[tuple[str, str]]) -> None:
    lines = ["split,cls,file,design"] + [f"train,{f.split('/')[1]},{f},{d}" for f, d in rows]
    (part.parent / "manifest_patches_train_1.csv").write_text("\n".join(lines) + "\n")


def test_mix_leaves_out_the_crops_of_dropped_designs(tmp_path: Path) -> None:
    a = _crops(tmp_path / "p1" / "train", {"As": 3, "Ks": 2})
    _manifest(a, [("train/As/x_0000_001.jpg", "proc:216"), ("train/As/x_0001_001.jpg", "classic"),
                  ("train/As/x_0002_001.jpg", "proc:5"), ("train/Ks/x_0000_001.jpg", "proc:216"),
                  ("train/Ks/x_0001_001.jpg", "proc:5")])
    counts = make_mix(tmp_path / "mix", [("train", a, None)], drop_designs=frozenset({"proc:216"}))
    assert counts == {"train": 3}
    kept = sorted(f"{p.parent.name}/{p.name}" for p in (tmp_path / "mix" / "train").rglob("*.jpg"))
    assert kept == ["As/x_0001_001.jpg", "As/x_0002_001.jpg", "Ks/x_0001_001.jpg"]


def test_dropping_designs_needs_a_manifest_that_names_them(tmp_path: Path) -> None:
    a = _crops(tmp_path / "p1" / "train", {"As": 1})
    with pytest.raises(FileNotFoundError, match="no manifest"):
        make_mix(tmp_path / "m1", [("train", a, None)], drop_designs=frozenset({"proc:1"}))
    (a.parent / "manifest_x.csv").write_text("split,cls,file\ntrain,As,train/As/x_0000_001.jpg\n")
    with pytest.raises(ValueError, match="'file' and 'design'"):
        make_mix(tmp_path / "m2", [("train", a, None)], drop_designs=frozenset({"proc:1"}))
