"""Fast five-card scoring over card indices: one call at a time, or whole arrays of hands.

All functions give ``HandValue.score`` (see ``monitor.rules.hands``) for the same
cards and profile, and assume valid input (distinct indices 0..52); impossible
input scores ``INVALID`` (-1) at best, so validate first where input is untrusted.

>>> from monitor.rules.cards import parse_cards
>>> from monitor.rules.hands import evaluate_five
>>> score = five_card_scorer()
>>> score(*(c.index for c in parse_cards("As Ah Ad Ac Jk"))) == evaluate_five("As Ah Ad Ac Jk").score
True
>>> import numpy as np
>>> hands = np.array([[c.index for c in parse_cards("Kh Kd As 9c 5d")]])
>>> expected = evaluate_five("Kh Kd As 9c 5d").score
>>> int(score_five_numpy(hands)[0]) == int(score_five_batch(hands)[0]) == expected
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Final

import numba
import numpy as np
import numpy.typing as npt

from monitor.rules.errors import CardCountError
from monitor.rules.fast.tables import INVALID, five_card_lookup, five_card_table
from monitor.rules.hands import RANK_BITS, HandRules
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

IntArray = npt.NDArray[np.int32]
Scorer = Callable[[int, int, int, int, int], int]


def five_card_scorer(profile: PaiGowProfile = DEFAULT_PROFILE) -> Scorer:
    """A plain-Python function ``score(a, b, c, d, e) -> int`` over card indices: five list lookups."""
    table = five_card_lookup(HandRules.of(profile)).table  # shared with evaluate_five, built once

    def score(a: int, b: int, c: int, d: int, e: int, t: list[int] = table) -> int:
        return t[t[t[t[t[a] + b] + c] + d] + e]

    return score


def _as_hands(hands: npt.ArrayLike, width: int | None = 5) -> npt.NDArray[np.int64]:
    arr = np.asarray(hands, dtype=np.int64)
    if arr.ndim != 2 or (width is not None and arr.shape[1] != width):
        want = f"(N, {width})" if width is not None else "(N, k)"
        raise CardCountError(f"hands must be an array of shape {want} of card indices, got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 52):
        raise CardCountError(f"card indices must be 0..52, got {int(arr.min())}..{int(arr.max())}")
    return arr


def score_five_numpy(hands: npt.ArrayLike, profile: PaiGowProfile = DEFAULT_PROFILE) -> IntArray:
    """Scores of an (N, 5) array of card indices, vectorized with numpy only."""
    h = _as_hands(hands)
    t = five_card_table(profile)
    s = t[h[:, 0]]
    for j in range(1, 5):
        s = t[s + h[:, j]]
    return s


@numba.njit(parallel=True, nogil=True, cache=True)
def _score_five_kernel(table: IntArray, hands: npt.NDArray[np.int64], out: IntArray) -> None:
    for i in numba.prange(hands.shape[0]):
        s = table[hands[i, 0]]
        s = table[s + hands[i, 1]]
        s = table[s + hands[i, 2]]
        s = table[s + hands[i, 3]]
        out[i] = table[s + hands[i, 4]]


def score_five_batch(hands: npt.ArrayLike, profile: PaiGowProfile = DEFAULT_PROFILE) -> IntArray:
    """Scores of an (N, 5) array of card indices: numba, parallel over the machine's threads."""
    h = _as_hands(hands)
    out = np.empty(h.shape[0], dtype=np.int32)
    _score_five_kernel(five_card_table(profile), h, out)
    return out


def _combos(k: int) -> npt.NDArray[np.int64]:
    return np.array(list(itertools.combinations(range(k), 5)), dtype=np.int64).reshape(-1, 5)


@numba.njit(parallel=True, nogil=True, cache=True)
def _best_kernel(
    table: IntArray, hands: npt.NDArray[np.int64], combos: npt.NDArray[np.int64], out: IntArray
) -> None:
    for i in numba.prange(hands.shape[0]):
        best = INVALID
        for j in range(combos.shape[0]):
            s = table[hands[i, combos[j, 0]]]
            s = table[s + hands[i, combos[j, 1]]]
            s = table[s + hands[i, combos[j, 2]]]
            s = table[s + hands[i, combos[j, 3]]]
            s = table[s + hands[i, combos[j, 4]]]
            best = max(best, s)
        out[i] = best


def best_score_batch(hands: npt.ArrayLike, profile: PaiGowProfile = DEFAULT_PROFILE) -> IntArray:
    """Best five-card score of each row of an (N, k) array, 5 <= k <= 8 (numba, parallel).

    >>> from monitor.rules.cards import parse_cards
    >>> from monitor.rules.hands import best_five
    >>> h = [[c.index for c in parse_cards("As Ks Qs Js 2d 3c Jk")]]
    >>> int(best_score_batch(h)[0]) == best_five("As Ks Qs Js 2d 3c Jk")[0].score
    True
    """
    h = _as_hands(hands, None)
    if not 5 <= h.shape[1] <= 8:
        raise CardCountError(f"best five needs 5 to 8 cards per hand, got {h.shape[1]}")
    out = np.empty(h.shape[0], dtype=np.int32)
    _best_kernel(five_card_table(profile), h, _combos(h.shape[1]), out)
    return out


CATEGORY_SHIFT: Final = RANK_BITS


def categories_of_scores(scores: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Category number of each score (five aces read as a royal flush when the profile ties them)."""
    return np.asarray(scores, dtype=np.int64) >> CATEGORY_SHIFT
