"""Lookup tables that turn card indices (``Card.index``: 0..51, joker 52) into hand scores.

The five-card table is a small automaton over card indices: each row is a
state (the multiset of ranks seen so far and whether all natural cards share a
suit), each column a card. Five lookups reach the score, whatever the order of
the cards::

    score = T[T[T[T[T[a] + b] + c] + d] + e]

Entries of rows of depth 0-3 are the next row's offset (row * 53); entries of
rows of depth 4 are the score itself. The automaton's shape does not depend on
the profile; only the scores of the final classes do, and they come from the
reference evaluator (``monitor.rules.hands``), so every path gives the same
``HandValue.score``. Input that no real hand can produce (a rank five times,
two jokers, the same card twice in a suited hand) scores ``INVALID``; the fast
paths do not otherwise check their input: callers validate (or enumerate).

>>> from monitor.rules.cards import parse_cards
>>> from monitor.rules.hands import evaluate_five
>>> t = five_card_table()
>>> a, b, c, d, e = (x.index for x in parse_cards("Jk Kd Ks 7c 2h"))
>>> int(t[t[t[t[t[a] + b] + c] + d] + e]) == evaluate_five("Jk Kd Ks 7c 2h").score
True
"""

from __future__ import annotations

import functools
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from monitor.rules.cards import SUIT_CHARS, Card, card_from_index
from monitor.rules.errors import RulesError
from monitor.rules.hands import Category, HandRules, HandValue, _five, evaluate_two
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

N_CARDS: Final = 53
JOKER_INDEX: Final = 52
INVALID: Final = -1
# Suit states of a row: 0..3 = every natural card so far has this suit.
_NO_SUIT: Final = 4  # no natural card yet (nothing, or only the joker)
_MIXED: Final = 5
# Rank counts are kept as base-5 digits: ranks 2..14 at digits 0..12, the joker at digit 13.
_DIGIT: Final = tuple(5**i for i in range(14))

IntArray = npt.NDArray[np.int32]


class _Automaton:
    """The profile-independent shape: transitions, and the class id reached by each final entry."""

    def __init__(self) -> None:
        rows: dict[tuple[int, int], int] = {}
        depth_of: list[int] = []
        keys: list[tuple[int, int]] = []
        dead: dict[int, int] = {}

        def row(key: tuple[int, int], depth: int) -> int:
            if key not in rows:
                rows[key] = len(keys)
                keys.append(key)
                depth_of.append(depth)
            return rows[key]

        row((0, _NO_SUIT), 0)
        for d in range(1, 5):
            dead[d] = row((-d, _MIXED), d)  # absorbing invalid row per depth
        classes: dict[tuple[int, bool], int] = {}
        trans: list[list[int]] = []
        i = 0
        while i < len(keys):
            code, suit_state = keys[i]
            depth = depth_of[i]
            out: list[int] = []
            for card in range(N_CARDS):
                if code < 0:  # dead rows stay dead
                    out.append(dead[depth + 1] if depth < 4 else -1)
                    continue
                digit = 13 if card == JOKER_INDEX else card >> 2
                limit = 1 if card == JOKER_INDEX else 4
                new_code = code + _DIGIT[digit]
                if (code // _DIGIT[digit]) % 5 >= limit:
                    out.append(dead[depth + 1] if depth < 4 else -1)
                    continue
                if card == JOKER_INDEX:
                    new_suit = suit_state
                else:
                    s = card & 3
                    new_suit = s if suit_state in (_NO_SUIT, s) else _MIXED
                if depth < 4:
                    out.append(row((new_code, new_suit), depth + 1))
                else:
                    flush = new_suit < 4
                    out.append(classes.setdefault((new_code, flush), len(classes)))
            trans.append(out)
            i += 1
        self.n_rows = len(keys)
        self.transitions = np.array(trans, dtype=np.int32)  # (rows, 53): row ids or class ids
        self.final_row = np.array([d == 4 for d in depth_of], dtype=bool)
        self.classes = sorted(classes, key=classes.__getitem__)


@functools.cache
def _automaton() -> _Automaton:
    return _Automaton()


def _class_cards(code: int, flush: bool) -> tuple[Card, ...] | None:
    """A real five-card hand of the class, or None when no real hand has that shape."""
    ranks: list[int] = []
    for digit in range(14):
        ranks += [digit + 2] * ((code // _DIGIT[digit]) % 5)
    naturals = [r for r in ranks if r != 15]
    if flush and len(set(naturals)) != len(naturals):
        return None  # only the same card twice gives a "suited" pair
    cards = [Card(r, "s" if flush else SUIT_CHARS[k % 4]) for k, r in enumerate(naturals)]
    if len(naturals) == 4:
        cards.append(Card(15, ""))
    return tuple(cards)


@functools.cache
def _class_values(rules: HandRules) -> tuple[HandValue | None, ...]:
    """The reference value of every final class (None where no real hand has that shape)."""
    out: list[HandValue | None] = []
    for code, flush in _automaton().classes:
        cards = _class_cards(code, flush)
        out.append(None if cards is None else _five(frozenset(cards), rules))
    return tuple(out)


@functools.cache
def _five_table(rules: HandRules) -> IntArray:
    auto = _automaton()
    values = _class_values(rules)
    class_score = np.array([INVALID if v is None else v.score for v in values] + [INVALID], dtype=np.int32)
    trans = auto.transitions
    finals = class_score[trans[auto.final_row]]  # class id -1 (invalid) reads the trailing INVALID
    table = trans * N_CARDS  # row ids to offsets
    table[auto.final_row] = finals
    table = table.reshape(-1)
    table.setflags(write=False)
    return table


class FiveCardLookup(NamedTuple):
    """What ``evaluate_five`` needs: the table as a list, and the value of each score."""

    table: list[int]
    values: dict[int, HandValue]
    # Under the Lucky Chances ranking five aces share the royal flush's score: kept apart by name.
    five_aces: HandValue


@functools.cache
def five_card_lookup(rules: HandRules) -> FiveCardLookup:
    values: dict[int, HandValue] = {}
    five_aces: HandValue | None = None
    for v in _class_values(rules):
        if v is None:
            continue
        if v.category is Category.FIVE_ACES:
            five_aces = v
            continue
        seen = values.setdefault(v.score, v)
        if (seen.category, seen.ranks) != (v.category, v.ranks):
            raise AssertionError(f"two different hands share score {v.score}: {seen!r} and {v!r}")
    assert five_aces is not None
    # Above the royal flush, five aces have a score of their own; tied with it (Lucky Chances),
    # the score reads as the royal flush and the caller recognizes five aces by the cards.
    values.setdefault(five_aces.score, five_aces)
    return FiveCardLookup(_five_table(rules).tolist(), values, five_aces)


def five_card_table(profile: PaiGowProfile = DEFAULT_PROFILE) -> IntArray:
    """Flat int32 table of the five-card automaton for ``profile`` (read-only, built once per rule set)."""
    return _five_table(HandRules.of(profile))


def _profile_of(rules: HandRules) -> PaiGowProfile:
    return PaiGowProfile(
        joker_mode=rules.joker_mode, joker_in_flush=rules.joker_in_flush, five_aces=rules.five_aces,
        wheel=rules.wheel,
    )


@functools.cache
def _two_table(rules: HandRules) -> IntArray:
    profile = _profile_of(rules)
    table = np.full(N_CARDS * N_CARDS, INVALID, dtype=np.int32)
    for a in range(N_CARDS):
        for b in range(N_CARDS):
            if a != b:
                table[a * N_CARDS + b] = evaluate_two((card_from_index(a), card_from_index(b)), profile).score
    table.setflags(write=False)
    return table


def two_card_table(profile: PaiGowProfile = DEFAULT_PROFILE) -> IntArray:
    """Flat int32 table: the score of front hand (a, b) at ``a * 53 + b``; ``INVALID`` when a == b.

    >>> from monitor.rules.hands import evaluate_two
    >>> int(two_card_table()[52 * 53 + 51]) == evaluate_two("Jk As").score
    True
    """
    return _two_table(HandRules.of(profile))


@functools.cache
def _two_values(rules: HandRules) -> dict[int, HandValue]:
    profile = _profile_of(rules)
    return {
        v.score: v
        for a in range(N_CARDS)
        for b in range(a + 1, N_CARDS)
        for v in (evaluate_two((card_from_index(a), card_from_index(b)), profile),)
    }


def value_of_score(score: int, profile: PaiGowProfile = DEFAULT_PROFILE) -> HandValue:
    """The ``HandValue`` behind a score from a fast path (five-card or two-card), to name it.

    Under the Lucky Chances ranking the shared top score reads as the royal flush.

    >>> value_of_score(int(two_card_table()[52 * 53 + 51])).name
    'pair of aces'
    >>> value_of_score(12345)
    Traceback (most recent call last):
    ...
    monitor.rules.errors.RulesError: score 12345 is no hand's value under profile 'livermore'
    """
    rules = HandRules.of(profile)
    v = five_card_lookup(rules).values.get(score) or _two_values(rules).get(score)
    if v is None:
        raise RulesError(f"score {score} is no hand's value under profile {profile.name!r}")
    return v
