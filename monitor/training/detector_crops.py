"""Reader crops cut where the detector put its boxes on labelled real photos.

A reader trained only on cards cut by their labelled boxes reads a card the detector boxed a little
off (a corner short, an index cut, a neighbour's edge in) as no card: on the real valid photos the photo
reader named half the cards the closer detector boxed. So the readers also learn from the detector's own
boxes: each photo is perceived as ``detect`` perceives it (brought to the detector's scale, here from
the labelled cards' length, a little off as the scale finder is), each card box matched to a labelled
card (IoU 0.5, as ``eval-photos`` scores) and cut from the photo's own pixels as the runtime cuts it,
under the labelled card's name.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
from tqdm import tqdm

from monitor.evaluation.photo_metrics import Found, Truth, match
from monitor.perception.card_scale import CARDS, perceive_at_factor
from monitor.perception.rectify import CROP_SIZE, rectify_card
from monitor.training.real_cards import OUT_SPLITS, labelled_photos, outlines

if TYPE_CHECKING:
    from monitor.evaluation.corrections import Corrections
    from monitor.perception.pipeline import Perceiver

# How far off the card length the photo is perceived at may be (the scale finder's spread on the real
# valid photos: within a quarter of the labelled cards' length in most)
SCALE_SPREAD = 1.25


def _card_length(photo_outlines: list[float], height: int) -> float:
    return float(np.median(photo_outlines)) if photo_outlines else height / 3


def export_detector_crops(perceiver: Perceiver, root: Path, out: Path, splits: tuple[str, ...],
                          corrections: Corrections | None, passes: int = 1,
                          seed: int = 0) -> dict[str, Counter[str]]:
    """``out/SPLIT/CLASS/*.jpg``: every card box the perceiver finds on each photo that matches a labelled
    card, rectified from the photo's pixels (``passes`` times a training photo, each at another scale);
    ``out/manifest_detector.csv`` says which photo and label each came from."""
    from monitor.perception.rectify import card_side_lengths, order_card_corners

    if perceiver.detector is None:
        raise ValueError("detector crops need a perceiver with a detector")
    rng = np.random.default_rng(seed)
    trained = perceiver.detector.card_px
    counts: dict[str, Counter[str]] = {}
    out.mkdir(parents=True, exist_ok=True)
    with (out / "manifest_detector.csv").open("w", newline="") as mf:
        writer = csv.writer(mf)
        writer.writerow(["split", "file", "image", "line", "identity", "iou_pass", "factor"])
        for split in splits:
            dst = OUT_SPLITS.get(split, split)
            n_pass = passes if dst == "train" else 1
            counts[dst] = Counter()
            photos = list(labelled_photos(root, split, corrections))
            for photo, img in tqdm(photos, desc=f"detector crops {split}", unit="photo"):
                longs = [card_side_lengths(order_card_corners(o.quad))[1] for o in outlines(photo, img)]
                length = _card_length(longs, img.shape[0])
                truths = [Truth(c.box, c.identity) for c in photo.cards]
                for k in range(n_pass):
                    spread = np.log(SCALE_SPREAD)
                    off = float(np.exp(rng.uniform(-spread, spread))) if k else 1.0
                    factor = trained / (length * off)
                    dets = perceive_at_factor(perceiver, img, factor, reread=False)
                    cards = [d for d in dets.items if d.kind in CARDS]
                    score = match(truths, [Found(d.box, None) for d in cards])
                    for i, j in enumerate(score.pairs):
                        if j is None:
                            continue
                        card = photo.cards[i]
                        d_ = out / dst / card.identity
                        d_.mkdir(parents=True, exist_ok=True)
                        name = f"det_{photo.image.stem[:40]}_{card.line}_{k}.jpg"
                        crop = rectify_card(img, np.asarray(cards[j].corners, dtype=np.float64), CROP_SIZE)
                        cv2.imwrite(str(d_ / name), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
                        writer.writerow([dst, f"{card.identity}/{name}", photo.image.name, card.line + 1,
                                         card.identity, k, f"{factor:.4f}"])
                        counts[dst][card.identity] += 1
    return counts
