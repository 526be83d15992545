"""Real test-split photos (the shared poker-cards set) through the shipped photo models: the cards they
read there, named on the labelled card's box, and no card named falsely.

These photos' other cards (fanned, overlapped, or boxed loosely) the shipped models still leave unread:
models/MODEL_CARD.md, "Real photographs", has the whole split's figures.
"""

from __future__ import annotations

import pytest

from monitor.evaluation.photo_metrics import Found, Truth, match
from monitor.evaluation.yolo_cards import Photo, read_split
from tests.support.paths import REAL_CARDS, shared

EXPECTED = {  # photo (its name's start) -> the cards the shipped photo models name in it
    "IMG_20220316_135507": {"2s", "3s", "4s", "As"},  # all: three boxed squatter than 0.85 (the photo
    "IMG_20220316_135524": {"2s", "3s", "4s", "As"},  # all: was squeezed to a square), named all the same
    "IMG_20220316_140527": {"5s", "6s", "7s", "8s"},  # all
    "IMG_20220316_140723": {"5s", "6s", "7s", "8s"},  # all
    "IMG_20220316_141442": {"9s", "Ts", "Js", "Qs", "Ks"},  # all
    "IMG_20220316_142127": {"9s", "Js", "Qs", "Ks"},  # of 9s Ts Js Qs Ks
    "IMG_20220316_142819": {"Ah", "2h", "3h", "4h"},  # all
    "IMG_20220316_143007": {"Ah", "2h", "3h", "4h"},  # all
}


@pytest.fixture(scope="module")
def photos() -> dict[str, Photo]:
    shared(REAL_CARDS)
    return {p.image.name[:19]: p for p in read_split(REAL_CARDS, "test") if p.image.name[:19] in EXPECTED}


def test_the_shipped_photo_models_read_real_cards(photos: dict[str, Photo]) -> None:
    import cv2

    from monitor.perception.card_scale import perceive_any_scale
    from monitor.perception.pipeline import Perceiver, photo_models

    assert photo_models().name == "photos", "models/photos is shipped"
    perceiver = Perceiver.from_models(photo_models(), "onnxruntime", 1)
    assert set(photos) == set(EXPECTED)
    for name, photo in photos.items():
        dets, finding = perceive_any_scale(perceiver, cv2.imread(str(photo.image)))
        assert finding is not None, f"{name}: no cards' scale found"
        found = [Found(d.box, d.identity, d.identity_confidence) for d in dets.cards]
        score = match([Truth(c.box, c.identity) for c in photo.cards], found)
        right = {score.truths[i].identity for i, j in enumerate(score.pairs)
                 if j is not None and score.found[j].identity == score.truths[i].identity}
        assert EXPECTED[name] <= right, f"{name}: named right {sorted(right)}, not {sorted(EXPECTED[name])}"
        assert score.misnamed() == [], f"{name}: named falsely {score.misnamed()}"
