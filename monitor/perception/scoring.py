"""Score perception output against a rendered frame's ground truth (the renderer's JSON).

Counts what the issue's targets name: recall of unoccluded cards, identity top-1 and false
identities (a card named wrongly, not "unknown"), plus corner precision and spurious detections.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.classical import quad_iou
from monitor.perception.detections import Detection, Detections
from monitor.perception.labels import BACK, UNKNOWN

UNOCCLUDED = 0.99  # visible share from which a card counts as unoccluded
TOUCHES = 0.05  # IoU over which a named box lies on a truth card (any part of it: occluded cards too)


def in_frame_share(polygon: np.ndarray, width: int, height: int) -> float:
    """The share of a card's outline inside the frame: the renderer's ``visible_share`` counts only
    what lies over the card, so a card half out of the picture was scored as unoccluded."""
    p = np.asarray(polygon, np.float32)
    area = float(cv2.contourArea(p))
    if area <= 0:
        return 0.0
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    inside, _ = cv2.intersectConvexConvex(p, frame)
    return min(1.0, float(inside) / area)


@dataclass
class FrameScore:
    unoccluded: int = 0
    found: int = 0
    face_up: int = 0
    identity_correct: int = 0
    identity_unknown: int = 0
    identity_wrong: int = 0
    spurious: int = 0
    corner_errors: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    # unoccluded cards no box found, as "FRAME: CARD at (x, y)" (CARD the identity, or "back"): the
    # cards a recall figure leaves out, so someone can go and look at them
    missed: list[str] = field(default_factory=list)
    # Every named card (occluded ones too) against the cards its box overlaps: a face is false where none
    # of them is that card, a back where they are all face up; a back over no card at all is a box on
    # something else read as a back (the misreads above count unoccluded cards only)
    named_faces: int = 0
    named_backs: int = 0
    backs_over_no_card: int = 0
    false_names: list[str] = field(default_factory=list)

    def add(self, o: FrameScore) -> None:
        for k in ("unoccluded", "found", "face_up", "identity_correct", "identity_unknown", "identity_wrong",
                  "spurious", "named_faces", "named_backs", "backs_over_no_card"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        self.corner_errors += o.corner_errors
        self.wrong += o.wrong
        self.missed += o.missed
        self.false_names += o.false_names

    def summary(self) -> dict[str, Any]:
        n = max(self.face_up, 1)
        err = self.corner_errors
        return {
            "unoccluded_cards": self.unoccluded, "recall": self.found / max(self.unoccluded, 1),
            "face_up_found": self.face_up, "identity_top1": self.identity_correct / n,
            "identity_unknown": self.identity_unknown / n, "false_identity": self.identity_wrong / n,
            "spurious_cards": self.spurious,
            "corner_error_px_median": float(np.median(err)) if err else None,
            "corner_error_px_p95": float(np.percentile(err, 95)) if err else None,
            "misreads": self.wrong[:20],
            "missed": self.missed[:20],
            "named_faces": self.named_faces, "named_backs": self.named_backs,
            "false_names": len(self.false_names), "backs_over_no_card": self.backs_over_no_card,
            "false_name_list": self.false_names[:20],
        }


def load_truth(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    return [o for o in data.get("objects", []) if o.get("kind") == "card" and len(o.get("polygon", [])) == 4]


def score_frame(dets: Detections, truth_cards: list[dict[str, Any]], frame: str = "") -> FrameScore:
    """Score one frame; ``frame`` (its name) prefixes each misread and missed card listed."""
    s = FrameScore()
    where = f"{frame}: " if frame else ""
    cards = list(dets.cards)
    polys = [np.asarray(d.corners, dtype=np.float64) for d in cards]
    used: set[int] = set()
    for o in truth_cards:
        p = np.asarray(o["polygon"], dtype=np.float64)
        # the frame's edge covers a card as another card does
        if o.get("visible_share", 1.0) * in_frame_share(p, dets.width, dets.height) < UNOCCLUDED:
            continue
        s.unoccluded += 1
        ious = [quad_iou(p, q) for q in polys]
        if not ious or max(ious) < 0.5:
            x, y = p.mean(axis=0)
            card = o.get("identity") if o.get("face_up") else BACK
            s.missed.append(f"{where}{card or 'card'} at ({x:.0f}, {y:.0f})")
            continue
        k = int(np.argmax(ious))
        used.add(k)
        s.found += 1
        s.corner_errors += [float(np.min(np.linalg.norm(polys[k] - c, axis=1))) for c in p]
        if o.get("face_up"):
            s.face_up += 1
            ident = cards[k].identity
            if ident == o["identity"]:
                s.identity_correct += 1
            elif ident in (None, UNKNOWN):
                s.identity_unknown += 1
            else:
                s.identity_wrong += 1
                s.wrong.append(f"{where}{o['identity']}->{ident}")
        elif cards[k].identity not in (None, UNKNOWN, BACK):
            s.wrong.append(f"{where}back->{cards[k].identity}")
    all_polys = [np.asarray(o["polygon"], dtype=np.float64) for o in truth_cards]
    for k, q in enumerate(polys):
        if k not in used and max((quad_iou(q, p) for p in all_polys), default=0.0) < 0.3:
            s.spurious += 1
    _every_name(s, cards, polys, truth_cards, all_polys, where)
    return s


def _under(q: npt.NDArray[np.float64], truth_cards: list[dict[str, Any]],
           truth_polys: list[npt.NDArray[np.float64]]) -> tuple[int, set[str]]:
    """How many truth cards a box overlaps at all (IoU over ``TOUCHES``), and what each is."""
    under = [o for o, p in zip(truth_cards, truth_polys, strict=True) if quad_iou(q, p) > TOUCHES]
    return len(under), {str(o.get("identity")) if o.get("face_up") else BACK for o in under}


def face_verdicts(dets: Detections, truth_cards: list[dict[str, Any]]) -> list[tuple[float, bool]]:
    """(confidence, right) of each face named in ``dets``: right where a card its box overlaps, occluded
    or not, is that card (what ``detect --score`` counts as named falsely otherwise)."""
    polys = [np.asarray(o["polygon"], dtype=np.float64) for o in truth_cards]
    out = []
    for d in dets.cards:
        if d.identity in (None, UNKNOWN, BACK):
            continue
        _, names = _under(np.asarray(d.corners, dtype=np.float64), truth_cards, polys)
        out.append((float(d.identity_confidence), d.identity in names))
    return out


def _every_name(s: FrameScore, cards: list[Detection], polys: list[npt.NDArray[np.float64]],
                truth_cards: list[dict[str, Any]], truth_polys: list[npt.NDArray[np.float64]],
                where: str) -> None:
    """Each named card against the truth cards its box overlaps at all (IoU over ``TOUCHES``)."""
    for d, q in zip(cards, polys, strict=True):
        if d.identity in (None, UNKNOWN):
            continue
        n_under, names = _under(q, truth_cards, truth_polys)
        if d.identity == BACK:
            s.named_backs += 1
            if not n_under:
                s.backs_over_no_card += 1
                continue
        else:
            s.named_faces += 1
        if d.identity not in names:
            x, y = q.mean(axis=0)
            over = "+".join(sorted(str(n) for n in names))
            s.false_names.append(f"{where}{d.identity} at ({x:.0f}, {y:.0f}) over {over}")
