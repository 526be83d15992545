"""How well the shipped (or a candidate) fan reader reads the set hands of rendered rounds.

The fouls and the duplicate card need every card of a fanned hand read, at least to its rank (seed
000 rules 50, 54, 60). Held-out crops measure the classifier; this measures the reader as the chain
uses it: the detector's card boxes of a frame, each hand zone's picture read by ``ZoneReader``, the
cards read compared with the render's truth for that zone. A read is right when the truth has a card
of that name (or rank) in the zone not yet matched: a read of the zone's other card of the same rank
counts as right, which can only flatter a rank read, never a name. ``whole`` counts the zone pictures
whose every card was read right at least to its rank (what a foul judged from ranks needs).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from monitor.perception.detections import Detections
from monitor.perception.ranks import rank_of as card_rank
from monitor.pipeline.hand_zones import ZoneReader, fan_cards, is_hand_zone
from monitor.pipeline.oracle import read_truth
from monitor.rules.paigow.over_count import ReadCard
from monitor.tablestate.index_cards import IndexCard


def rank_of(card: str) -> str:
    """A card's rank character; the joker is a rank of its own (``Jk``)."""
    return card_rank(card) or card


@dataclass
class FanScore:
    """Tallies over zone pictures (one hand zone in one sampled frame)."""

    pictures: int = 0
    shown: int = 0  # face-up cards the truth has in those zones
    named: int = 0  # read by name, and right
    ranked: int = 0  # right at least to the rank (named right included)
    wrong_names: int = 0
    wrong_ranks: int = 0  # a rank read (not named) that no card there has
    extra: int = 0  # cards read beyond the number there (one card read twice, a pip read as an index)
    # counted for rule 60 (a name, or a rank read surely with its ink): right, and of a rank and ink no
    # card there has (a false third card is a false misdeal)
    counted: int = 0
    wrong_counted: int = 0
    whole: int = 0  # pictures with every card right at least to its rank
    by_zone: Counter[str] = field(default_factory=Counter)  # pictures read whole, by zone kind
    shown_ranks: Counter[str] = field(default_factory=Counter)
    missed_ranks: Counter[str] = field(default_factory=Counter)  # true cards of each rank not read right

    def add(self, zone: str, truth: Sequence[str], reads: Sequence[IndexCard]) -> None:
        left = Counter(truth)
        ranks_left = Counter(rank_of(c) for c in truth)
        right = 0
        # names first: a name is the stronger claim and takes its card before a rank read can
        for r in sorted(reads, key=lambda r: r.card is None):
            if r.card is not None:
                if left[r.card] > 0:
                    left[r.card] -= 1
                    ranks_left[rank_of(r.card)] -= 1
                    self.named += 1
                    right += 1
                else:
                    self.wrong_names += 1
            elif r.rank is not None:
                if ranks_left[r.rank] > 0:
                    ranks_left[r.rank] -= 1
                    right += 1
                else:
                    self.wrong_ranks += 1
        # as rule 60 counts them (rules/paigow/over_count.py: a rank-only J and the joker are not)
        inks_left = Counter(ReadCard(card=c).key() for c in truth)
        for r in reads:
            key = ReadCard(r.card, r.rank if r.sure else None, r.colour).key()
            if key is None:
                continue
            if inks_left[key] > 0:
                inks_left[key] -= 1
                self.counted += 1
            else:
                self.wrong_counted += 1
        self.pictures += 1
        self.extra += max(0, len(reads) - len(truth))
        self.shown += len(truth)
        self.shown_ranks.update(rank_of(c) for c in truth)
        self.missed_ranks.update(+ranks_left)
        self.ranked += right
        if right == len(truth):
            self.whole += 1
            self.by_zone["banker" if zone == "banker" else zone.split(".")[-1]] += 1

    def to_json(self) -> dict[str, Any]:
        share = (lambda n: round(n / self.shown, 4)) if self.shown else (lambda n: None)
        return {"pictures": self.pictures, "shown": self.shown, "named": self.named, "ranked": self.ranked,
                "named_share": share(self.named), "ranked_share": share(self.ranked),
                "wrong_names": self.wrong_names, "wrong_ranks": self.wrong_ranks, "extra": self.extra,
                "counted": self.counted, "wrong_counted": self.wrong_counted,
                "whole": self.whole,
                "whole_by_zone": dict(self.by_zone),
                "missed_by_rank": {r: [self.missed_ranks[r], n] for r, n in sorted(self.shown_ranks.items())}}


def hand_pictures(truth: Path, every: int, min_faces: int) -> Iterator[tuple[int, dict[str, list[str]]]]:
    """Sampled frames (every ``every``-th) with the face-up cards of each hand zone holding at least
    ``min_faces`` of them: (frame index, zone -> true identities)."""
    for row in read_truth(truth):
        index = int(row["frame"])
        if index % every:
            continue
        zones: dict[str, list[str]] = {}
        for o in row["objects"]:
            if o.get("kind") == "card" and o.get("face_up") and is_hand_zone(str(o.get("zone", ""))):
                zones.setdefault(str(o["zone"]), []).append(str(o["identity"]))
        zones = {z: cards for z, cards in zones.items() if len(cards) >= min_faces}
        if zones:
            yield index, zones


def frames_at(video: Path, wanted: Sequence[int]) -> Iterator[tuple[int, np.ndarray]]:
    """The frames of ``video`` at the ``wanted`` indices (ascending), decoded in order."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    if not cap.isOpened():
        raise ValueError(f"{video}: cannot be opened as a video")
    todo = sorted(set(wanted))
    try:
        index = 0
        for target in todo:
            while index < target:
                if not cap.grab():
                    return
                index += 1
            ok, image = cap.read()
            if not ok:
                raise ValueError(f"{video}: frame {target} does not decode (the file ends or is corrupt)")
            index += 1
            yield target, image
    finally:
        cap.release()


def check_recording(folder: Path, detect: Callable[[np.ndarray], Detections], readers: dict[str, ZoneReader],
                    scores: dict[str, FanScore], every: int = 15, min_faces: int = 2) -> int:
    """Score each reader on one ``render-round`` folder; ``detect(image)`` gives the frame's
    Detections (the card boxes all readers read). Returns the frames looked at."""
    truth = next((p for p in (folder / "truth.jsonl", folder / "truth.jsonl.gz") if p.exists()), None)
    if truth is None:
        raise FileNotFoundError(f"{folder}: no truth.jsonl (render it with render-round)")
    pictures = dict(hand_pictures(truth, every, min_faces))
    n = 0
    for index, image in frames_at(folder / "video.mp4", list(pictures)):
        boxes = fan_cards(detect(image))
        for zone, cards in pictures[index].items():
            for name, reader in readers.items():
                scores[name].add(zone, cards, reader.read(image, zone, boxes))
        n += 1
    return n
