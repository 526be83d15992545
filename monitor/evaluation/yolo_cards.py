"""A folder of labelled card photos in YOLO format, read as the project's card identities.

Layout: ``ROOT/data.yaml`` (``names``: the dataset's class names, in id order), ``ROOT/SPLIT/images/*``,
``ROOT/SPLIT/labels/*.txt`` (``class x_center y_center width height``, normalised), as Roboflow and
ultralytics export it. Class names are read in the common spellings (``10H``, ``AS``, ``Qc``, ``Th``,
``joker``); a name that is no card (an unused slot) keeps its boxes out of every figure.

Label corrections (``corrections``) are applied on reading, so evaluation and training see the same
truth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from monitor.evaluation.corrections import Corrections
from monitor.perception.labels import CARD_TEXTS
from monitor.rules.cards import JOKER_TEXT

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
SPLIT_FOLDERS = {"train": ("train",), "val": ("valid", "val"), "valid": ("valid", "val"), "test": ("test",)}


class DatasetError(ValueError):
    """A photo folder that cannot be read as a labelled card dataset; says what and where."""


@dataclass(frozen=True, slots=True)
class TrueCard:
    """One labelled card: its box in pixels (x1, y1, x2, y2), identity, and line in the label file."""

    box: tuple[float, float, float, float]
    identity: str
    line: int
    source_class: str  # the dataset's own class name
    corrected: bool = False


@dataclass(frozen=True, slots=True)
class Photo:
    image: Path
    width: int
    height: int
    cards: tuple[TrueCard, ...]


def card_text(name: str) -> str | None:
    """The project's card text (``Th``, ``As``, ``Jk``) for a dataset class name; None if no card."""
    raw = name.strip()
    if raw.lower() in ("joker", "jk", "jo"):
        return JOKER_TEXT
    m = re.fullmatch(r"(10|[2-9TJQKA])([CDHS])", raw.upper())
    if m is None:
        return None
    rank = "T" if m.group(1) == "10" else m.group(1)
    text = rank + m.group(2).lower()
    return text if text in CARD_TEXTS else None


def class_names(root: Path) -> list[str]:
    spec_path = root / "data.yaml"
    if not spec_path.is_file():
        raise DatasetError(f"{root}: no data.yaml naming the classes (a YOLO dataset folder has one)")
    try:
        spec = yaml.safe_load(spec_path.read_text())
    except yaml.YAMLError as exc:
        raise DatasetError(f"{spec_path}: not YAML: {exc}") from exc
    names = spec.get("names") if isinstance(spec, dict) else None
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names)]
    if not isinstance(names, list) or not names:
        raise DatasetError(f"{spec_path}: 'names' must list the class names in id order")
    return [str(n) for n in names]


def split_folder(root: Path, split: str) -> Path:
    for name in SPLIT_FOLDERS.get(split, (split,)):
        if (root / name / "images").is_dir():
            return root / name
    if split in ("", ".") and (root / "images").is_dir():
        return root
    raise DatasetError(f"{root}: no {split}/images folder")


def _image_size(path: Path) -> tuple[int, int]:
    import cv2

    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise DatasetError(f"{path}: not an image OpenCV can read")
    return int(img.shape[1]), int(img.shape[0])


def read_split(root: Path, split: str, corrections: Corrections | None = None) -> list[Photo]:
    """Every photo of ``split`` with its cards, corrections applied. A bad label line is an error that
    names its file and line."""
    names = class_names(root)
    folder = split_folder(root, split)
    images = sorted(p for p in (folder / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    photos: list[Photo] = []
    for image in images:
        label_path = folder / "labels" / f"{image.stem}.txt"
        w, h = _image_size(image)
        cards: list[TrueCard] = []
        lines = label_path.read_text().splitlines() if label_path.is_file() else []
        for n, line in enumerate(lines):
            if not line.strip():
                continue
            parts = line.split()
            try:
                cls = int(parts[0])
                x, y, bw, bh = (float(v) for v in parts[1:5])
            except (ValueError, IndexError) as exc:
                raise DatasetError(f"{label_path}:{n + 1}: expected 'class x y w h', got {line!r}") from exc
            if not 0 <= cls < len(names):
                raise DatasetError(f"{label_path}:{n + 1}: class {cls} not in data.yaml's {len(names)} names")
            identity = card_text(names[cls])
            fixed = corrections.lookup(image.name, n) if corrections else None
            if fixed is not None:
                if fixed == "drop":
                    continue
                identity = fixed
            if identity is None:
                continue
            box = ((x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h)
            cards.append(TrueCard(box, identity, n, names[cls], fixed is not None))
        photos.append(Photo(image, w, h, tuple(cards)))
    if not photos:
        raise DatasetError(f"{folder}/images holds no images")
    return photos
