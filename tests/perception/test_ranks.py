"""Reading an unnamed card's rank from its suits' summed probabilities (monitor.perception.ranks)."""

from __future__ import annotations

import numpy as np

from monitor.perception.labels import IDENTITY_CLASSES
from monitor.perception.ranks import back_probabilities, rank_of, rank_probabilities, read_ranks

CLASSES = tuple(IDENTITY_CLASSES)


def _row(**p: float) -> np.ndarray:
    row = np.zeros(len(CLASSES))
    for k, v in p.items():
        row[CLASSES.index(k)] = v
    rest = 1.0 - row.sum()
    row[row == 0] = rest / int((row == 0).sum())  # the remainder spread thin over every other class
    return row


def test_rank_of_a_class() -> None:
    assert [rank_of(c) for c in ("As", "Td", "2c", "Jk", "back")] == ["A", "T", "2", None, None]


def test_a_card_torn_between_two_suits_of_one_rank_reads_as_that_rank() -> None:
    probs = np.stack([
        _row(Ac=0.659, As=0.329),  # the ace of spades of an unseen deck: neither suit sure, the ace is
        _row(Qc=0.5, Kc=0.45),  # two ranks: no rank
        _row(As=0.99),  # named: the rank is there too (the reader drops it when the card is named)
        _row(back=0.97),  # a back: no rank
    ])
    assert read_ranks(probs, CLASSES, 0.967) == ["A", None, "A", None]
    ranks, rp = rank_probabilities(probs, CLASSES)
    assert ranks[-1] == "A" and len(ranks) == 13
    assert np.allclose(rp[0, ranks.index("A")], 0.988, atol=0.005)
    assert np.allclose(back_probabilities(probs, CLASSES)[[0, 3]], [probs[0, -1], 0.97])


def test_a_reader_without_a_back_class_never_calls_a_back() -> None:
    classes = tuple(c for c in CLASSES if c != "back")
    probs = np.full((2, len(classes)), 1.0 / len(classes))
    assert back_probabilities(probs, classes).tolist() == [0.0, 0.0]
