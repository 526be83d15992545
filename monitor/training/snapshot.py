"""Freeze a growing crop dataset into a training snapshot (symlinks), with a val split if it has none.

The renderer writes crops while training wants to start; ultralytics lists files once at start-up,
so a snapshot makes the exact training set explicit and reproducible. When the source has no usable
``val`` yet, a share of ``train`` is moved to val, grouped by rendered frame (crops of one frame never
land on both sides, or val would flatter the model).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def frame_key(path: Path) -> str:
    """Crops named ``<split>_<frame-seed>_<object>.jpg`` group by frame; others stand alone."""
    parts = path.stem.split("_")
    return parts[1] if len(parts) >= 3 else path.stem


def _to_val(key: str, val_frac: float) -> bool:
    h = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16)
    return (h % 10000) < val_frac * 10000


def make_snapshot(src: Path, dst: Path, val_frac: float = 0.1, min_val_per_class: int = 5,
                  extra_splits: tuple[str, ...] = ("test", "test_design", "test_table")) -> dict[str, int]:
    """Link ``src``'s crops into ``dst/{train,val,...}/CLASS``; returns image counts per split."""
    if dst.exists() and any(dst.iterdir()):
        raise FileExistsError(f"snapshot folder {dst} already exists and is not empty")
    classes = sorted(p.name for p in (src / "train").iterdir() if p.is_dir())
    src_val = src / "val"
    own_val = not src_val.is_dir() or min(
        (sum(1 for _ in (src_val / c).glob("*")) for c in classes), default=0) < min_val_per_class
    counts: dict[str, int] = {}

    def link(f: Path, split: str, cls: str) -> None:
        d = dst / split / cls
        d.mkdir(parents=True, exist_ok=True)
        os.symlink(f.resolve(), d / f.name)
        counts[split] = counts.get(split, 0) + 1

    for cls in classes:
        (dst / "train" / cls).mkdir(parents=True, exist_ok=True)
        (dst / "val" / cls).mkdir(parents=True, exist_ok=True)
        for f in sorted((src / "train" / cls).iterdir()):
            if f.suffix.lower() not in IMAGE_SUFFIXES or f.stat().st_size == 0:
                continue  # a crop still being written
            link(f, "val" if own_val and _to_val(frame_key(f), val_frac) else "train", cls)
        if not own_val:
            for f in sorted((src_val / cls).glob("*")):
                if f.suffix.lower() in IMAGE_SUFFIXES and f.stat().st_size > 0:
                    link(f, "val", cls)
    for split in extra_splits:
        if (src / split).is_dir():
            for cls_dir in sorted(p for p in (src / split).iterdir() if p.is_dir()):
                for f in sorted(cls_dir.iterdir()):
                    if f.suffix.lower() in IMAGE_SUFFIXES and f.stat().st_size > 0:
                        link(f, split, cls_dir.name)
    return counts


def parse_part(text: str) -> tuple[str, Path, int | None]:
    """``SPLIT=DIR`` or ``SPLIT=DIR:PER_CLASS`` (at most that many crops of each class from DIR)."""
    if "=" not in text:
        raise ValueError(f"part {text!r}: expected SPLIT=DIR or SPLIT=DIR:PER_CLASS")
    split, rest = text.split("=", 1)
    limit: int | None = None
    head, sep, tail = rest.rpartition(":")
    if sep and tail.isdigit():
        rest, limit = head, int(tail)
    if not split.strip() or not rest:
        raise ValueError(f"part {text!r}: expected SPLIT=DIR or SPLIT=DIR:PER_CLASS")
    return split.strip(), Path(rest), limit


def files_of_designs(src: Path, designs: frozenset[str]) -> set[Path]:
    """The crops under ``src`` that the renderer's manifests say were drawn from ``designs``.

    ``render-patches`` and ``render crops`` write ``manifest_*.csv`` beside the split folder, one
    row per crop with its ``file`` (relative to that folder's parent) and ``design``."""
    import csv

    root = src.parent
    manifests = sorted(root.glob("manifest*.csv"))
    if not manifests:
        raise FileNotFoundError(f"{src}: no manifest*.csv in {root} to tell which design drew each crop")
    found: set[Path] = set()
    for m in manifests:
        with m.open(newline="") as fh:
            reader = csv.DictReader(fh)
            if not reader.fieldnames or not {"file", "design"} <= set(reader.fieldnames):
                raise ValueError(f"{m}: a manifest needs 'file' and 'design' columns")
            for row in reader:
                if row["design"] in designs:
                    found.add((root / row["file"]).resolve())
    return found


def make_mix(dst: Path, parts: list[tuple[str, Path, int | None]], seed: int = 0,
             drop_designs: frozenset[str] = frozenset()) -> dict[str, int]:
    """Link crops from several class folders into one dataset ``dst/SPLIT/CLASS`` (symlinks).

    Each part is (split, source folder holding CLASS/ folders, per-class limit or None); a limited
    part takes a seeded random sample, so the mix is reproducible from its command line. Crops the
    manifests say were drawn from ``drop_designs`` are left out (e.g. decks found mislabelled)."""
    import random

    if dst.exists() and any(dst.iterdir()):
        raise FileExistsError(f"dataset folder {dst} already exists and is not empty")
    counts: dict[str, int] = {}
    rnd = random.Random(seed)
    for split, src, limit in parts:
        if not src.is_dir():
            raise FileNotFoundError(f"part {split}={src}: no such folder")
        classes = sorted(p for p in src.iterdir() if p.is_dir())
        if not classes:
            raise FileNotFoundError(f"part {split}={src}: no class folders in it")
        dropped = files_of_designs(src, drop_designs) if drop_designs else set()
        for cls_dir in classes:
            files = sorted(f for f in cls_dir.iterdir()
                           if f.suffix.lower() in IMAGE_SUFFIXES and f.stat().st_size > 0
                           and not (dropped and f.resolve() in dropped))  # resolve only when dropping
            if limit is not None and len(files) > limit:
                files = sorted(rnd.sample(files, limit))
            d = dst / split / cls_dir.name
            d.mkdir(parents=True, exist_ok=True)
            for f in files:
                target = d / f.name
                if target.exists():  # same name from two sources: keep both
                    target = d / f"{src.parent.name}_{f.name}"
                os.symlink(f.resolve(), target)
            counts[split] = counts.get(split, 0) + len(files)
    return counts
