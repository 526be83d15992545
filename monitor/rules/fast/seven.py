"""Category of the best five cards among five to eight, straight from rank counts and suit masks.

Used to count categories over every seven-card hand of a deck (154,143,080 with
the joker, 133,784,560 without) in seconds rather than through 21 five-card
lookups per hand. The best category of a set of cards is the largest category
any use of the joker can reach, so it is read from a few numbers: how many
ranks are paired, tripled, quadrupled (after the joker joins the ace, or the
largest group when fully wild), each suit's rank mask (flushes, straight
flushes, royals with up to one gap for the joker) and the overall rank mask
(straights). ``tests/rules/test_enumeration.py`` checks it against ``best_five``.

>>> import numpy as np
>>> from monitor.rules.cards import parse_cards
>>> int(category_of_hands(np.array([[c.index for c in parse_cards("As Ah Ad Ac Jk 2c 3c")]]))[0])
10
"""

from __future__ import annotations

from typing import Final

import numba
import numpy as np
import numpy.typing as npt

from monitor.rules.errors import CardCountError
from monitor.rules.hands import Category
from monitor.rules.profile import DEFAULT_PROFILE, JokerMode, PaiGowProfile

JOKER_INDEX: Final = 52
ROYAL_MASK: Final = 0x1F00  # ten, jack, queen, king, ace
N_CATEGORIES: Final = len(Category)
# State of a partial hand, one int64 vector: rank counts, "ranks with at least k", suit masks, joker.
_CNT: Final = 0  # 13 slots
_CC: Final = 13  # cc[k] at 13 + k for k = 0..5
_MASK: Final = 19  # 4 slots
_JOKER: Final = 23
STATE_SIZE: Final = 24


def _rank_tables() -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Popcount, 'holds a five-card straight', 'holds four of some straight' for each 13-bit rank mask."""
    pop = np.zeros(1 << 13, dtype=np.int8)
    str5 = np.zeros(1 << 13, dtype=np.bool_)
    str4 = np.zeros(1 << 13, dtype=np.bool_)
    for m in range(1 << 13):
        pop[m] = bin(m).count("1")
        ext = (m << 1) | ((m >> 12) & 1)  # bit 0: the ace as one
        best = max(bin((ext >> lo) & 0x1F).count("1") for lo in range(10))
        str5[m] = best == 5
        str4[m] = best >= 4
    return pop, str5, str4


POP, STR5, STR4 = _rank_tables()


@numba.njit(nogil=True, cache=True)
def _add(st: npt.NDArray[np.int64], card: int) -> None:
    if card == JOKER_INDEX:
        st[_JOKER] = 1
        return
    r = card >> 2
    st[_CNT + r] += 1
    st[_CC + st[_CNT + r]] += 1
    st[_MASK + (card & 3)] |= 1 << r


@numba.njit(nogil=True, cache=True)
def _remove(st: npt.NDArray[np.int64], card: int) -> None:
    if card == JOKER_INDEX:
        st[_JOKER] = 0
        return
    r = card >> 2
    st[_CC + st[_CNT + r]] -= 1
    st[_CNT + r] -= 1
    st[_MASK + (card & 3)] &= ~(1 << r)


@numba.njit(nogil=True, cache=True)
def _category(
    st: npt.NDArray[np.int64],
    wild: bool,
    pop: npt.NDArray[np.int8],
    str5: npt.NDArray[np.bool_],
    str4: npt.NDArray[np.bool_],
) -> int:
    m0, m1, m2, m3 = st[_MASK], st[_MASK + 1], st[_MASK + 2], st[_MASK + 3]
    ranks = m0 | m1 | m2 | m3
    n2, n3, n4 = st[_CC + 2], st[_CC + 3], st[_CC + 4]
    if st[_JOKER] == 0:
        for m in (m0, m1, m2, m3):
            if pop[m & ROYAL_MASK] == 5:
                return 9
        for m in (m0, m1, m2, m3):
            if str5[m]:
                return 8
        if n4 > 0:
            return 7
        if n3 > 0 and n2 >= 2:
            return 6
        for m in (m0, m1, m2, m3):
            if pop[m] >= 5:
                return 5
        if str5[ranks]:
            return 4
        if n3 > 0:
            return 3
        if n2 >= 2:
            return 2
        return 1 if n2 > 0 else 0
    aces = st[_CNT + 12]
    if aces == 4:
        return 10
    for m in (m0, m1, m2, m3):
        if pop[m & ROYAL_MASK] >= 4:
            return 9
    for m in (m0, m1, m2, m3):
        if str4[m]:
            return 8
    # The joker joins one rank: the aces (the bug) or the largest group (wild).
    largest = 4 if n4 > 0 else 3 if n3 > 0 else 2 if n2 > 0 else 1
    joined = largest + 1 if wild else aces + 1
    if joined == 2:
        n2 += 1
    elif joined == 3:
        n3 += 1
    elif joined == 4:
        n4 += 1
    if n4 > 0:
        return 7
    if n3 > 0 and n2 >= 2:
        return 6
    for m in (m0, m1, m2, m3):
        if pop[m] >= 4:
            return 5
    if str4[ranks]:
        return 4
    if n3 > 0:
        return 3
    if n2 >= 2:
        return 2
    return 1 if n2 > 0 else 0


@numba.njit(parallel=True, nogil=True, cache=True)
def _categories_kernel(
    hands: npt.NDArray[np.int64],
    wild: bool,
    pop: npt.NDArray[np.int8],
    str5: npt.NDArray[np.bool_],
    str4: npt.NDArray[np.bool_],
    out: npt.NDArray[np.int64],
) -> None:
    for i in numba.prange(hands.shape[0]):
        st = np.zeros(STATE_SIZE, dtype=np.int64)
        for j in range(hands.shape[1]):
            _add(st, hands[i, j])
        out[i] = _category(st, wild, pop, str5, str4)


def _is_wild(profile: PaiGowProfile) -> bool:
    # Only the joker mode changes categories; the other settings reorder within a category
    # (or tie five aces with the royal, which still counts as five aces here).
    return profile.joker_mode is JokerMode.WILD


def category_of_hands(
    hands: npt.ArrayLike, profile: PaiGowProfile = DEFAULT_PROFILE
) -> npt.NDArray[np.int64]:
    """Best five-card category of each row of an (N, k) array of distinct card indices, 5 <= k <= 8."""
    h = np.asarray(hands, dtype=np.int64)
    if h.ndim != 2 or not 5 <= h.shape[1] <= 8:
        raise CardCountError(f"hands must be an (N, 5..8) array of card indices, got shape {h.shape}")
    out = np.empty(h.shape[0], dtype=np.int64)
    _categories_kernel(h, _is_wild(profile), POP, STR5, STR4, out)
    return out


@numba.njit(parallel=True, nogil=True, cache=True)
def _count_sevens_kernel(
    deck: npt.NDArray[np.int64],
    tasks: npt.NDArray[np.int64],
    wild: bool,
    pop: npt.NDArray[np.int8],
    str5: npt.NDArray[np.bool_],
    str4: npt.NDArray[np.bool_],
    counts: npt.NDArray[np.int64],
) -> None:
    """Each task fixes the deck positions of the first two cards; the other five run in nested loops."""
    n = deck.shape[0]
    for t in numba.prange(tasks.shape[0]):
        st = np.zeros(STATE_SIZE, dtype=np.int64)
        local = np.zeros(N_CATEGORIES, dtype=np.int64)
        a, b = tasks[t, 0], tasks[t, 1]
        _add(st, deck[a])
        _add(st, deck[b])
        for c in range(b + 1, n - 4):
            _add(st, deck[c])
            for d in range(c + 1, n - 3):
                _add(st, deck[d])
                for e in range(d + 1, n - 2):
                    _add(st, deck[e])
                    for f in range(e + 1, n - 1):
                        _add(st, deck[f])
                        for g in range(f + 1, n):
                            _add(st, deck[g])
                            local[_category(st, wild, pop, str5, str4)] += 1
                            _remove(st, deck[g])
                        _remove(st, deck[f])
                    _remove(st, deck[e])
                _remove(st, deck[d])
            _remove(st, deck[c])
        counts[t, :] = local


def seven_card_tasks(n: int, seed: int = 7) -> npt.NDArray[np.int64]:
    """(first, second) deck positions for every seven-card hand of an n-card deck, shuffled.

    Shuffled so that the parallel loop's equal slices carry about equal work (early
    first cards have far more hands under them than late ones).
    """
    pairs = np.array([(a, b) for a in range(n - 6) for b in range(a + 1, n - 5)], dtype=np.int64)
    return pairs[np.random.default_rng(seed).permutation(len(pairs))]


def count_seven_card_categories(
    deck: npt.ArrayLike, tasks: npt.NDArray[np.int64], profile: PaiGowProfile = DEFAULT_PROFILE
) -> npt.NDArray[np.int64]:
    """Counts per category (index = ``Category``) of the best five over the seven-card hands of ``tasks``.

    ``deck`` is an array of distinct card indices; run a slice of ``seven_card_tasks`` at a time to show
    progress, and add the results.

    >>> deck = np.arange(8)  # deuces and treys: every hand holds a full house or four of a kind
    >>> [int(x) for x in count_seven_card_categories(deck, seven_card_tasks(8))[6:8]]
    [0, 8]
    """
    d = np.asarray(deck, dtype=np.int64)
    counts = np.zeros((tasks.shape[0], N_CATEGORIES), dtype=np.int64)
    _count_sevens_kernel(d, tasks, _is_wild(profile), POP, STR5, STR4, counts)
    total: npt.NDArray[np.int64] = counts.sum(axis=0)
    return total
