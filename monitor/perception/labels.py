"""Class vocabularies shared by the detector, the card classifier and the training code."""

from __future__ import annotations

from typing import Final

from monitor.rules.cards import JOKER_TEXT, RANK_CHARS, SUIT_CHARS

# Detector classes, in the order of the dataset's class ids (see /work/notes/data-status.md).
CARD_FACE_UP: Final = "card_face_up"
CARD_FACE_DOWN: Final = "card_face_down"
PILE: Final = "pile"
CHIP: Final = "chip"
DICE: Final = "dice"
HAND: Final = "hand"  # a dealer's or player's hand over the table (what lands and lifts cards)
DETECTOR_CLASSES: Final = (CARD_FACE_UP, CARD_FACE_DOWN, PILE, CHIP, DICE, HAND)

BACK: Final = "back"
UNKNOWN: Final = "unknown"
# 52 cards in Card.index order, the joker, and the back: the identity classifier's vocabulary.
CARD_TEXTS: Final = tuple(r + s for r in RANK_CHARS for s in SUIT_CHARS)
IDENTITY_CLASSES: Final = (*CARD_TEXTS, JOKER_TEXT, BACK)

# A reader class for a box that holds no single card (two cards boxed as one, a box across two cards,
# an empty box painted on the layout): crops of it are rendered (``render-patches --not-one-card``);
# no shipped reader has the class yet.
NOT_ONE_CARD: Final = "none"

# Look-alike pairs whose confusion matters most (a 6 read as a 9 changes a hand; the joker is special).
CRITICAL_RANK_PAIRS: Final = (("6", "9"), ("8", "3"))


def is_identity_class(name: str) -> bool:
    return name in IDENTITY_CLASSES
