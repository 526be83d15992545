"""Run the perceiver over a labelled photo split, at one or more picture scales, and score it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt

from monitor.evaluation.contact_sheet import Tile, write_sheets
from monitor.evaluation.corrections import Corrections
from monitor.evaluation.photo_metrics import NOT_NAMED, Found, PhotoScore, Summary, Truth, match
from monitor.evaluation.yolo_cards import Photo, read_split
from monitor.perception.imageio import as_image, load_image

if TYPE_CHECKING:
    from monitor.perception.pipeline import Perceiver

CARD_KINDS = ("card_face_up", "card_face_down")


@dataclass(frozen=True, slots=True)
class ScaleRun:
    scale: float  # the photos resized by this before perceiving
    summary: Summary
    scores: tuple[tuple[Photo, PhotoScore], ...]
    card_px: tuple[float | None, ...]  # the cards' length found in each (resized) photo
    # objects of other kinds found (chips, piles, dice, hands): the set labels none, so each is either
    # unverifiable (a hand holding the cards) or a phantom
    others: Counter[str]


def found_cards(perceiver: Perceiver, image: npt.NDArray[np.uint8],
                scale_mode: str | float) -> tuple[list[Found], float | None, Counter[str]]:
    """The card boxes found in ``image`` (its own pixels), the card length used (None: as is), and how
    many objects of each other kind were found."""
    from monitor.perception.card_scale import perceive_any_scale

    if scale_mode == "as-is":
        dets, card_px = perceiver.perceive(image), None
    elif scale_mode == "find":
        dets, finding = perceive_any_scale(perceiver, image)
        card_px = finding.card_px if finding else None
    else:
        card_px = float(scale_mode)
        dets, _ = perceive_any_scale(perceiver, image, card_px)
    cards = [Found(d.box, d.identity, d.identity_confidence) for d in dets.items if d.kind in CARD_KINDS]
    return cards, card_px, Counter(d.kind for d in dets.items if d.kind not in CARD_KINDS)


def evaluate(perceiver: Perceiver, root: Path, split: str, scales: Sequence[float],
             scale_mode: str | float = "find", corrections: Corrections | None = None,
             limit: int | None = None, progress: Callable[[int, int], None] | None = None) -> list[ScaleRun]:
    photos = read_split(root, split, corrections)[:limit]
    runs: list[ScaleRun] = []
    total, done = len(photos) * len(scales), 0
    for s in scales:
        summary = Summary()
        scored: list[tuple[Photo, PhotoScore]] = []
        lengths: list[float | None] = []
        others: Counter[str] = Counter()
        for photo in photos:
            img = load_image(photo.image)
            if s != 1.0:
                size = (max(1, round(photo.width * s)), max(1, round(photo.height * s)))
                interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
                img = as_image(cv2.resize(img, size, interpolation=interp))
            found, card_px, other = found_cards(perceiver, img, scale_mode)
            others.update(other)
            sx, sy = photo.width / img.shape[1], photo.height / img.shape[0]
            found = [Found((f.box[0] * sx, f.box[1] * sy, f.box[2] * sx, f.box[3] * sy), f.identity,
                           f.confidence) for f in found]
            score = match([Truth(c.box, c.identity) for c in photo.cards], found)
            summary.add(score)
            scored.append((photo, score))
            lengths.append(card_px)
            done += 1
            if progress:
                progress(done, total)
        runs.append(ScaleRun(s, summary, tuple(scored), tuple(lengths), others))
    return runs


def threshold_sweep(run: ScaleRun, thresholds: Sequence[float]) -> list[dict[str, float]]:
    """Identity precision and recall had the reader named only what it reads at each of ``thresholds``
    or surer (the run's reader named down to the lowest of them): the boxes stay, names below a
    threshold become unnamed."""
    rows = []
    for t in sorted(thresholds):
        summary = Summary()
        for _, s in run.scores:
            found = tuple(f if f.identity in NOT_NAMED or f.confidence >= t
                          else replace(f, identity="unknown") for f in s.found)
            summary.add(replace(s, found=found))
        g = summary.groups["index_visible"]
        rows.append({"threshold": t, "identity_precision": summary.identity_precision,
                     "identity_recall_index_visible": g.identity_recall, "named": float(summary.named),
                     "named_wrong": float(summary.named - summary.named_right)})
    return rows


def sweep_table(run: ScaleRun, rows: Sequence[dict[str, float]]) -> str:
    lines = [f"scale {run.scale:g}: naming threshold sweep",
             "| threshold | identity precision | identity recall, index in view | named | named wrong |",
             "|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['threshold']:.3f} | {r['identity_precision']:.4f} | "
              f"{r['identity_recall_index_visible']:.4f} | {r['named']:.0f} | {r['named_wrong']:.0f} |"
              for r in rows]
    return "\n".join(lines)


def error_tiles(run: ScaleRun) -> list[Tile]:
    """Every missed card (blue), every card named wrongly or named where no card is (red), every card
    boxed but left unnamed (grey)."""
    tiles: list[Tile] = []
    for photo, s in run.scores:
        name = photo.image.name[:22]
        for i in s.missed():
            t = s.truths[i]
            tiles.append(Tile(photo.image, t.box, (f"missed {t.identity}", name), (255, 0, 0)))
        for wrong, j in s.misnamed():
            f = s.found[j]
            truth = s.truths[wrong].identity if wrong is not None else "no card"
            tiles.append(Tile(photo.image, f.box, (f"said {f.identity} {f.confidence:.2f}", f"is {truth}"),
                              (0, 0, 255)))
        for i in s.unnamed():
            pair = s.pairs[i]
            assert pair is not None  # unnamed() lists matched truths only
            t, f = s.truths[i], s.found[pair]
            tiles.append(Tile(photo.image, f.box, (f"{t.identity} left {f.identity}", name), (128, 128, 128)))
    return tiles


def table(runs: Sequence[ScaleRun]) -> str:
    head = ("| scale | photos | card box recall | box precision | identity precision | "
            "identity recall, index in view (cards) | identity recall, all | "
            "identity recall, index covered (cards) | other objects |\n"
            "|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    rows = [head]
    for r in runs:
        d = r.summary.to_dict()
        g = d["groups"]
        rows.append(f"| {r.scale:g} | {d['photos']} | {d['box_recall']:.4f} | {d['box_precision']:.4f} | "
                    f"{d['identity_precision']:.4f} | "
                    f"{g['index_visible']['identity_recall']:.4f} ({g['index_visible']['cards']}) | "
                    f"{d['identity_recall']:.4f} | "
                    f"{g['index_covered']['identity_recall']:.4f} ({g['index_covered']['cards']}) | "
                    f"{', '.join(f'{k} {n}' for k, n in sorted(r.others.items())) or 'none'} |")
    return "\n".join(rows)


def write_report(runs: Sequence[ScaleRun], out: Path, meta: dict[str, Any],
                 sweep: Sequence[float] = ()) -> dict[str, Any]:
    """``out/metrics.json``, ``out/table.md`` and a contact sheet of each scale's errors (and, given
    ``sweep`` thresholds, each scale's identity figures at each)."""
    out.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {**meta, "scales": {}}
    for r in runs:
        known = [c for c in r.card_px if c is not None]
        result["scales"][f"{r.scale:g}"] = {
            **r.summary.to_dict(),
            "card_px_median": float(np.median(known)) if known else None,
            "scale_not_found": sum(c is None for c in r.card_px),
            "other_objects": dict(r.others),
        }
        sheets = write_sheets(error_tiles(r), out / f"errors_scale{r.scale:g}.png",
                              f"{meta.get('split', '')} x{r.scale:g}: missed (blue), named wrong (red), "
                              "unnamed (grey)")
        result["scales"][f"{r.scale:g}"]["contact_sheets"] = [p.name for p in sheets]
        if sweep:
            result["scales"][f"{r.scale:g}"]["threshold_sweep"] = threshold_sweep(r, sweep)
    (out / "metrics.json").write_text(json.dumps(result, indent=1))
    text = table(runs) + "\n"
    if sweep:
        text += "".join("\n" + sweep_table(r, result["scales"][f"{r.scale:g}"]["threshold_sweep"]) + "\n"
                        for r in runs)
    (out / "table.md").write_text(text)
    return result
