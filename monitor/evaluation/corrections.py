"""Corrections to a labelled photo set's boxes, kept as data in the project (never by editing the set).

A corrections file (YAML) names the dataset and lists, per wrong box, the image file, the box's line in
its label file (1-based, as an editor shows it), the class the set gave it, the corrected card (or
``drop`` for a box that is no single card), and why. Evaluation and training read the set through the
same file, so both see the same truth. The shipped audits live in ``monitor/evaluation/corrections/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from monitor.perception.labels import CARD_TEXTS
from monitor.rules.cards import JOKER_TEXT

SHIPPED = Path(__file__).resolve().parent / "corrections"
DROP = "drop"


class CorrectionsError(ValueError):
    """A corrections file that cannot be applied; names the file and entry."""


@dataclass(frozen=True, slots=True)
class Correction:
    image: str
    line: int  # 1-based line of the box in its label file
    was: str  # the set's class name
    label: str  # the corrected card text, or "drop"
    why: str


@dataclass(frozen=True, slots=True)
class Corrections:
    dataset: str
    entries: tuple[Correction, ...]
    _table: dict[tuple[str, int], str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # looked up once per labelled box: the table is built once
        object.__setattr__(self, "_table", {(c.image, c.line): c.label for c in self.entries})

    def lookup(self, image: str, index: int) -> str | None:
        """The corrected label of the box on 0-based line ``index`` of ``image``'s labels, if any."""
        return self._table.get((image, index + 1))

    @classmethod
    def load(cls, path: Path) -> Corrections:
        if not path.is_file():
            raise CorrectionsError(f"corrections file not found: {path}")
        try:
            raw = yaml.safe_load(path.read_text())
        except yaml.YAMLError as exc:
            raise CorrectionsError(f"{path}: not YAML: {exc}") from exc
        if not isinstance(raw, dict) or not isinstance(raw.get("corrections", []), list):
            raise CorrectionsError(f"{path}: expected a mapping with 'dataset' and a 'corrections' list")
        entries: list[Correction] = []
        seen: set[tuple[str, int]] = set()
        for k, e in enumerate(raw.get("corrections") or []):
            where = f"{path}: corrections[{k}]"
            if not isinstance(e, dict):
                raise CorrectionsError(f"{where}: expected a mapping")
            missing = [f for f in ("image", "line", "was", "label", "why") if f not in e]
            if missing:
                raise CorrectionsError(f"{where}: missing {', '.join(missing)}")
            label = str(e["label"])
            if label not in CARD_TEXTS and label not in (JOKER_TEXT, DROP):
                raise CorrectionsError(f"{where}: label {label!r} is no card text (As, Th, Jk) nor 'drop'")
            try:
                line = int(e["line"])
            except (TypeError, ValueError) as exc:
                raise CorrectionsError(f"{where}: line {e['line']!r} is not a number") from exc
            if line < 1:
                raise CorrectionsError(f"{where}: line {line} must be 1 or more")
            if not str(e["why"]).strip():
                raise CorrectionsError(f"{where}: 'why' is empty: say what shows the label wrong")
            key = (str(e["image"]), line)
            if key in seen:
                raise CorrectionsError(f"{where}: {key[0]} line {line} corrected twice")
            seen.add(key)
            entries.append(Correction(key[0], line, str(e["was"]), label, str(e["why"]).strip()))
        return cls(str(raw.get("dataset", path.stem)), tuple(entries))


def shipped(dataset: str) -> Path:
    """The project's corrections file for a dataset folder's name (it may not exist)."""
    return SHIPPED / f"{dataset}.yaml"


def for_dataset(root: Path) -> Corrections | None:
    """The shipped corrections of the dataset at ``root`` (by its folder name), if the project has any."""
    path = shipped(root.resolve().name)
    return Corrections.load(path) if path.is_file() else None
