"""Reading a card's rank when its suit is in doubt.

The card reader's commonest mistakes on an unseen deck keep the rank: the ace of spades read as the
ace of clubs, a queen of spades as the queen of clubs (both suits black, the pips small at 1080p).
The rules mostly ask for the rank (an exposed ace, seed 000 rule 48a), so the probabilities of the
four cards of a rank are summed: when that sum clears the same threshold a card must clear to be
named, the rank is read though the card is not. Summing calibrated class probabilities gives the
calibrated probability of the coarser event, so the threshold means the same thing.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from monitor.perception.labels import BACK
from monitor.rules.cards import JOKER_TEXT, RANK_CHARS
from monitor.rules.paigow.partial import INK


def rank_of(label: str) -> str | None:
    """The rank character of a card class (``As`` -> ``A``); None for the joker and the back, which
    are classes of their own (nothing to sum)."""
    if len(label) == 2 and label != JOKER_TEXT and label[0] in RANK_CHARS:
        return label[0]
    return None


@cache
def _groups(classes: tuple[str, ...]) -> tuple[tuple[str, ...], npt.NDArray[np.float64]]:
    """The ranks present in ``classes`` and a (classes x ranks) 0/1 matrix summing each rank's cards."""
    ranks = tuple(r for r in RANK_CHARS if any(rank_of(c) == r for c in classes))
    m = np.zeros((len(classes), len(ranks)))
    for i, c in enumerate(classes):
        r = rank_of(c)
        if r is not None:
            m[i, ranks.index(r)] = 1.0
    return ranks, m


def rank_probabilities(probs: npt.NDArray[np.float64], classes: tuple[str, ...]
                       ) -> tuple[tuple[str, ...], npt.NDArray[np.float64]]:
    """Each row's probability of every rank (the sum over its suits)."""
    ranks, m = _groups(tuple(classes))
    return ranks, np.asarray(probs, np.float64) @ m


def read_ranks(probs: npt.NDArray[np.float64], classes: tuple[str, ...],
               threshold: float) -> list[str | None]:
    """Per row: the rank whose summed probability is at least ``threshold``, else None."""
    ranks, rp = rank_probabilities(probs, classes)
    if not ranks:
        return [None] * len(probs)
    k = rp.argmax(axis=1)
    return [ranks[j] if rp[i, j] >= threshold else None for i, j in enumerate(k)]


def back_probabilities(probs: npt.NDArray[np.float64], classes: tuple[str, ...]) -> npt.NDArray[np.float64]:
    """Each row's probability that the crop shows a card's back (0 if the reader has no back class)."""
    if BACK not in classes:
        return np.zeros(len(probs))
    return np.asarray(probs, np.float64)[:, list(classes).index(BACK)]


@cache
def _inks(classes: tuple[str, ...]) -> tuple[tuple[str, ...], npt.NDArray[np.float64]]:
    """The inks of ``classes``' suited cards and a (classes x inks) 0/1 matrix summing each ink's."""
    inks = tuple(sorted({INK[c[1]] for c in classes if rank_of(c) is not None}))
    m = np.zeros((len(classes), len(inks)))
    for i, c in enumerate(classes):
        if rank_of(c) is not None:
            m[i, inks.index(INK[c[1]])] = 1.0
    return inks, m


def colour_probabilities(probs: npt.NDArray[np.float64], classes: tuple[str, ...]
                         ) -> tuple[tuple[str, ...], npt.NDArray[np.float64]]:
    """Each row's probability of every ink (red: hearts and diamonds; black: spades and clubs)."""
    inks, m = _inks(tuple(classes))
    return inks, np.asarray(probs, np.float64) @ m


def read_colours(probs: npt.NDArray[np.float64], classes: tuple[str, ...],
                 threshold: float) -> list[str | None]:
    """Per row: the ink whose summed probability is at least ``threshold``, else None. A suit sign
    too small to tell spades from clubs still shows its ink; rule 50a needs no more to rule out a
    flush (``rules.paigow.partial``)."""
    inks, cp = colour_probabilities(probs, classes)
    if not inks:
        return [None] * len(probs)
    k = cp.argmax(axis=1)
    return [inks[j] if cp[i, j] >= threshold else None for i, j in enumerate(k)]
