"""Reading a card's rank when its suit is in doubt.

The card reader's commonest mistakes on an unseen deck keep the rank: the ace of spades read as the
ace of clubs, a queen of spades as the queen of clubs (both suits black, the pips small at 1080p).
The rules mostly ask for the rank (an exposed ace, Livermore rule 48a), so the probabilities of the
four cards of a rank are summed: when that sum clears the same threshold a card must clear to be
named, the rank is read though the card is not. Summing calibrated class probabilities gives the
calibrated probability of the coarser event, so the threshold means the same thing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import numpy.typing as npt

from monitor.perception.labels import BACK
from monitor.rules.cards import INK, JOKER_TEXT, RANK_CHARS


def rank_of(label: str) -> str | None:
    """The rank character of a card class (``As`` -> ``A``); None for the joker and the back, which
    are classes of their own (nothing to sum)."""
    if len(label) == 2 and label != JOKER_TEXT and label[0] in RANK_CHARS:
        return label[0]
    return None


def ink_of(label: str) -> str | None:
    """The ink of a card class (``As`` -> ``black``); None for the joker and the back."""
    return INK[label[1]] if rank_of(label) is not None else None


Grouping = Callable[[str], str | None]  # a class's group (its rank, its ink), or None


@cache
def _groups(classes: tuple[str, ...], group: Grouping = rank_of
            ) -> tuple[tuple[str, ...], npt.NDArray[np.float64]]:
    """The groups (ranks, inks) present in ``classes``, in a fixed order, and a (classes x groups) 0/1
    matrix summing each group's cards."""
    names = tuple(sorted({g for c in classes if (g := group(c)) is not None},
                         key=RANK_CHARS.index if group is rank_of else str))
    m = np.zeros((len(classes), len(names)))
    for i, c in enumerate(classes):
        g = group(c)
        if g is not None:
            m[i, names.index(g)] = 1.0
    return names, m


def _summed(probs: npt.NDArray[np.float64], classes: tuple[str, ...], group: Grouping
            ) -> tuple[tuple[str, ...], npt.NDArray[np.float64]]:
    names, m = _groups(tuple(classes), group)
    return names, np.asarray(probs, np.float64) @ m


def _read(probs: npt.NDArray[np.float64], classes: tuple[str, ...], threshold: float,
          group: Grouping) -> list[str | None]:
    names, gp = _summed(probs, classes, group)
    if not names:
        return [None] * len(probs)
    k = gp.argmax(axis=1)
    return [names[j] if gp[i, j] >= threshold else None for i, j in enumerate(k)]


def rank_probabilities(probs: npt.NDArray[np.float64], classes: tuple[str, ...]
                       ) -> tuple[tuple[str, ...], npt.NDArray[np.float64]]:
    """Each row's probability of every rank (the sum over its suits)."""
    return _summed(probs, classes, rank_of)


def read_ranks(probs: npt.NDArray[np.float64], classes: tuple[str, ...],
               threshold: float) -> list[str | None]:
    """Per row: the rank whose summed probability is at least ``threshold``, else None."""
    return _read(probs, classes, threshold, rank_of)


def back_probabilities(probs: npt.NDArray[np.float64], classes: tuple[str, ...]) -> npt.NDArray[np.float64]:
    """Each row's probability that the crop shows a card's back (0 if the reader has no back class)."""
    if BACK not in classes:
        return np.zeros(len(probs))
    return np.asarray(probs, np.float64)[:, list(classes).index(BACK)]


def colour_probabilities(probs: npt.NDArray[np.float64], classes: tuple[str, ...]
                         ) -> tuple[tuple[str, ...], npt.NDArray[np.float64]]:
    """Each row's probability of every ink (red: hearts and diamonds; black: spades and clubs)."""
    return _summed(probs, classes, ink_of)


def read_colours(probs: npt.NDArray[np.float64], classes: tuple[str, ...],
                 threshold: float) -> list[str | None]:
    """Per row: the ink whose summed probability is at least ``threshold``, else None. A suit sign
    too small to tell spades from clubs still shows its ink; rule 50a needs no more to rule out a
    flush (``rules.paigow.partial``)."""
    return _read(probs, classes, threshold, ink_of)
