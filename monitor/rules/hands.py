"""Poker hand values for Pai Gow Poker: five-card and two-card hands, with the joker.

The rules themselves are written out once, readably, below (``evaluate_five_reference``).
Lookup tables in ``monitor.rules.fast`` are built from them, one per rule set, and
``evaluate_five`` / ``best_five`` read those tables after validating their input, as do
the integer and numpy/numba batch paths: every path gives the same ``score``.

Ranking (Livermore's "Traditional Poker Hand Rankings"; Napa the same):
five aces, royal flush, straight flush, four of a kind, full house, flush,
straight, three of a kind, two pair, one pair, high card. Room variations are
read from the table's ``PaiGowProfile``:

- ``joker_mode`` BUG (Livermore rule 47, Napa, S&K): the joker plays
  as an ace, or completes a straight, flush or straight flush. WILD: any card
  (it also makes pairs, trips, quads; five of a kind exists only as five aces,
  the one five-of-a-kind the seeds rank).
- ``joker_in_flush`` HIGHEST_UNMATCHED (rule 47: "the highest unmatched card in a
  flush") or ACE (always an ace, even beside the suit's own ace).
- ``five_aces`` ABOVE_ROYAL (Livermore, Napa) or TIES_ROYAL (Lucky Chances lists royal
  flush and five aces both first: equal scores, so a copy goes to the banker).
- ``wheel`` LOWEST (A-2-3-4-5 is the lowest straight) or SECOND_HIGHEST (Nevada:
  just under A-K-Q-J-T, for straights and straight flushes alike).

Two-card hands (the front hand, Livermore rule 50e) are a pair or two high cards;
the joker is an ace there (fully wild: it pairs the other card). They share the
five-card score scale, missing cards counting below any real card, so the foul
check of rule 50a is one comparison:

>>> from monitor.rules.cards import parse_cards
>>> evaluate_two(parse_cards("Kh Kd")) > evaluate_five(parse_cards("Qs Qc 9d 5h 3c"))
True
>>> evaluate_two(parse_cards("Ah Kd")) > evaluate_five(parse_cards("As Kc 9d 5h 3c"))
False
>>> evaluate_five(parse_cards("Kh Kd As 9c 5d")).name
'pair of kings, ace high'
>>> evaluate_five(parse_cards("Jk 7h 8h 9h Th")).name
'jack-high straight flush'
>>> evaluate_five(parse_cards("Jk Ks 9s 5s 2s")).name
'ace-high flush: king, nine, five, two'
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import TYPE_CHECKING, Final, NamedTuple

from monitor.rules.cards import RANK_NAMES, RANK_PLURALS, Card, check_count, check_distinct, parse_cards
from monitor.rules.errors import CardCountError, RulesError
from monitor.rules.profile import DEFAULT_PROFILE, FiveAces, JokerInFlush, JokerMode, PaiGowProfile, Wheel

if TYPE_CHECKING:
    from monitor.rules.fast.tables import FiveCardLookup

ACE: Final = 14
# Bits given to the category above the five 4-bit rank slots of a score.
RANK_BITS: Final = 20


class Category(IntEnum):
    """Hand categories, weakest first (Livermore's ranking list, read bottom-up)."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9
    FIVE_ACES = 10

    @property
    def label(self) -> str:
        """'straight flush', 'five aces'."""
        return self.name.lower().replace("_", " ")


class HandRules(NamedTuple):
    """The four profile settings that change hand values (everything else in a profile is about money)."""

    joker_mode: JokerMode
    joker_in_flush: JokerInFlush
    five_aces: FiveAces
    wheel: Wheel

    @classmethod
    def of(cls, profile: PaiGowProfile) -> HandRules:
        return cls(profile.joker_mode, profile.joker_in_flush, profile.five_aces, profile.wheel)


class HandValue:
    """The value of a two- or five-card hand under one rule profile.

    ``category`` and ``ranks`` say what the hand is (``ranks``: the ranks that
    decide ties, most significant first; a straight gives only its top card,
    5 for A-2-3-4-5). ``score`` is the whole order: higher is stronger, equal
    is a copy (Livermore rule 62). Equality, hashing and ordering use ``score``
    only, so five aces and a royal flush are equal under the Lucky Chances
    ranking (Lucky Chances) though they have different names.

    >>> v = evaluate_five(parse_cards("As Ah Ad Ac Jk"))
    >>> v.category, v.ranks, v.name
    (<Category.FIVE_ACES: 10>, (14,), 'five aces')
    >>> v > evaluate_five(parse_cards("As Ks Qs Js Ts"))
    True
    """

    __slots__ = ("category", "ranks", "score")

    category: Category
    ranks: tuple[int, ...]
    score: int

    def __init__(self, category: Category, ranks: tuple[int, ...], score: int) -> None:
        object.__setattr__(self, "category", category)
        object.__setattr__(self, "ranks", ranks)
        object.__setattr__(self, "score", score)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"HandValue is immutable (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"HandValue is immutable (tried to delete {name!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score == other.score

    def __hash__(self) -> int:
        return hash(self.score)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score < other.score

    def __le__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score <= other.score

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score > other.score

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.score >= other.score

    def __reduce__(self) -> tuple[type[HandValue], tuple[Category, tuple[int, ...], int]]:
        # Slots plus the immutability guard need an explicit recipe for pickle and copy.
        return (HandValue, (self.category, self.ranks, self.score))

    def __repr__(self) -> str:
        return f"HandValue({self.category.name}, ranks={self.ranks}, score={self.score}: {self.name!r})"

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        """A readable name a floor person would say, e.g. 'pair of kings, ace high'."""
        c, r = self.category, self.ranks
        one = RANK_NAMES
        many = RANK_PLURALS
        if c is Category.FIVE_ACES:
            return "five aces"
        if c is Category.ROYAL_FLUSH:
            return "royal flush"
        if c in (Category.STRAIGHT_FLUSH, Category.STRAIGHT):
            kind = "straight flush" if c is Category.STRAIGHT_FLUSH else "straight"
            if r[0] == 5:
                return f"five-high {kind} (wheel)"
            return f"{one[r[0]]}-high {kind}"
        if c is Category.FOUR_OF_A_KIND:
            return f"four {many[r[0]]}, {one[r[1]]} high"
        if c is Category.FULL_HOUSE:
            return f"{many[r[0]]} full of {many[r[1]]}"
        if c is Category.FLUSH:
            return f"{one[r[0]]}-high flush: " + ", ".join(one[x] for x in r[1:])
        if c is Category.THREE_OF_A_KIND:
            return f"three {many[r[0]]}, {one[r[1]]} high"
        if c is Category.TWO_PAIR:
            return f"two pair, {many[r[0]]} and {many[r[1]]}, {one[r[2]]} high"
        if c is Category.ONE_PAIR:
            head = f"pair of {many[r[0]]}"
            return head if len(r) == 1 else f"{head}, {one[r[1]]} high"
        if len(r) == 2:
            return f"{one[r[0]]}-{one[r[1]]} high"
        return f"{one[r[0]]} high: " + ", ".join(one[x] for x in r[1:])


def pack_score(category: Category, ranks: Sequence[int], rules: HandRules) -> int:
    """The integer order of a value: a category key, then up to five 4-bit rank slots.

    Missing slots are 0, below any real rank, so a two-card value sits under every
    five-card value of the same category and leading ranks. Profile variations
    change only the key (five aces tying the royal flush) and the slots of the
    wheel (placed between the king-high and the ace-high straight).
    """
    key = int(category)
    if category is Category.FIVE_ACES and rules.five_aces is FiveAces.TIES_ROYAL:
        key = int(Category.ROYAL_FLUSH)
        ranks = (ACE,)
    slots = list(ranks) + [0] * (5 - len(ranks))
    if (
        category in (Category.STRAIGHT, Category.STRAIGHT_FLUSH)
        and ranks[0] == 5
        and rules.wheel is Wheel.SECOND_HIGHEST
    ):
        slots = [13, 1, 0, 0, 0]
    score = key
    for s in slots:
        score = (score << 4) | s
    return score


def _value(category: Category, ranks: Sequence[int], rules: HandRules) -> HandValue:
    t = tuple(ranks)
    return HandValue(category, t, pack_score(category, t, rules))


def _straight_top(ranks: Sequence[int]) -> int:
    """Top card of a five-rank straight, 5 for the wheel, 0 if not a straight."""
    s = set(ranks)
    if len(s) != 5:
        return 0
    if max(s) - min(s) == 4:
        return max(s)
    if s == {ACE, 2, 3, 4, 5}:
        return 5
    return 0


def _natural_value(ranks: Sequence[int], flush: bool, rules: HandRules) -> HandValue:
    """Value of five ranks (no joker left: a joker already stands for one of them)."""
    counts = Counter(ranks)
    if len(counts) == 1:
        # Only reachable as four aces plus the joker as an ace (five of a kind of
        # another rank is not a category; the callers never build it).
        return _value(Category.FIVE_ACES, (ACE,), rules)
    top = _straight_top(ranks)
    if top and flush:
        if top == ACE:
            return _value(Category.ROYAL_FLUSH, (ACE,), rules)
        return _value(Category.STRAIGHT_FLUSH, (top,), rules)
    # Ranks grouped by (count, rank), largest first: [(rank, count), ...].
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    order = tuple(r for r, _ in groups)
    shape = tuple(n for _, n in groups)
    if shape[0] == 4:
        return _value(Category.FOUR_OF_A_KIND, order, rules)
    if shape == (3, 2):
        return _value(Category.FULL_HOUSE, order, rules)
    if flush:
        return _value(Category.FLUSH, sorted(ranks, reverse=True), rules)
    if top:
        return _value(Category.STRAIGHT, (top,), rules)
    if shape[0] == 3:
        return _value(Category.THREE_OF_A_KIND, order, rules)
    if shape[:2] == (2, 2):
        return _value(Category.TWO_PAIR, order, rules)
    if shape[0] == 2:
        return _value(Category.ONE_PAIR, order, rules)
    return _value(Category.HIGH_CARD, order, rules)


# The ten straight windows, highest first; the wheel's top card is 5.
_WINDOWS: Final = (
    *((top, frozenset(range(top - 4, top + 1))) for top in range(ACE, 5, -1)),
    (5, frozenset({ACE, 2, 3, 4, 5})),
)


def _joker_value(others: Sequence[Card], rules: HandRules) -> HandValue:
    """Best value of four natural cards plus the joker, per the profile."""
    ranks = [c.rank for c in others]
    counts = Counter(ranks)
    candidates: list[HandValue] = []
    # As a pairing card: an ace (bug) or any rank (wild), never a five of a kind
    # other than five aces.
    pair_ranks = range(2, ACE + 1) if rules.joker_mode is JokerMode.WILD else (ACE,)
    for r in pair_ranks:
        if counts[r] == 4 and r != ACE:
            continue
        candidates.append(_natural_value([*ranks, r], False, rules))
    suited = len({c.suit for c in others}) == 1
    if len(counts) == 4:
        # Completing a straight (or straight flush): the highest window holding the four.
        present = set(ranks)
        for _top, window in _WINDOWS:
            if present <= window:
                (missing,) = window - present
                candidates.append(_natural_value([*ranks, missing], suited, rules))
    if suited:
        # Completing a flush: rule 47's highest unmatched card, or an ace.
        if rules.joker_in_flush is JokerInFlush.HIGHEST_UNMATCHED:
            fill = max(r for r in range(2, ACE + 1) if r not in counts)
        else:
            fill = ACE
        candidates.append(_value(Category.FLUSH, sorted([*ranks, fill], reverse=True), rules))
    return max(candidates, key=lambda v: v.score)


def _cards(cards: str | Iterable[Card], n: int, where: str) -> tuple[Card, ...]:
    cs = parse_cards(cards) if isinstance(cards, str) else tuple(cards)
    for i, c in enumerate(cs):
        if not isinstance(c, Card):
            raise RulesError(f"{where}: item {i + 1} is {type(c).__name__} {c!r}, not a card")
    check_count(cs, n, where)
    check_distinct(cs, where)
    return cs


@functools.lru_cache(maxsize=65536)
def _five(cards: frozenset[Card], rules: HandRules) -> HandValue:
    naturals = [c for c in cards if not c.is_joker]
    if len(naturals) == 4:
        return _joker_value(naturals, rules)
    flush = len({c.suit for c in naturals}) == 1
    return _natural_value([c.rank for c in naturals], flush, rules)


def evaluate_five(cards: str | Iterable[Card], profile: PaiGowProfile = DEFAULT_PROFILE) -> HandValue:
    """Value of a five-card (back) hand under ``profile``.

    >>> evaluate_five("As Ks Qs Js Jk").name
    'royal flush'
    >>> evaluate_five("2c 3d 4h 5s Jk").name
    'six-high straight'
    >>> evaluate_five("As Ah Kd Kc Jk").name
    'aces full of kings'
    >>> evaluate_five("As Ks Qs Js Ts").name
    'royal flush'
    >>> evaluate_five("As Kd Qh Js")
    Traceback (most recent call last):
    ...
    monitor.rules.errors.CardCountError: five-card hand must have 5 cards, got 4: As Kd Qh Js
    >>> evaluate_five("As Kd Qh Js As")
    Traceback (most recent call last):
    ...
    monitor.rules.errors.DuplicateCardError: duplicate card(s) in five-card hand: As
    """
    cs = _cards(cards, 5, "five-card hand")
    table, values, five_aces = _lookup(HandRules.of(profile))
    s = 0
    for c in cs:
        s = table[s + c.index]
    return _value_of_score(s, cs, values, five_aces)


def evaluate_five_reference(
    cards: str | Iterable[Card], profile: PaiGowProfile = DEFAULT_PROFILE
) -> HandValue:
    """The same value as ``evaluate_five``, computed directly by the readable rules above (no tables).

    The lookup tables behind ``evaluate_five`` and ``monitor.rules.fast`` are built from this.

    >>> evaluate_five_reference("Jk Ks 9s 5s 2s") == evaluate_five("Jk Ks 9s 5s 2s")
    True
    """
    cs = _cards(cards, 5, "five-card hand")
    return _five(frozenset(cs), HandRules.of(profile))


@functools.cache
def _lookup(rules: HandRules) -> FiveCardLookup:
    # Imported here: the tables are built from this module's reference evaluator.
    from monitor.rules.fast.tables import five_card_lookup

    return five_card_lookup(rules)


def _value_of_score(
    score: int, cards: Sequence[Card], values: dict[int, HandValue], five_aces: HandValue
) -> HandValue:
    if score == five_aces.score and sum(c.rank >= ACE for c in cards) == 5:
        return five_aces  # tied with the royal flush (Lucky Chances): same score, its own name
    return values[score]


def evaluate_two(cards: str | Iterable[Card], profile: PaiGowProfile = DEFAULT_PROFILE) -> HandValue:
    """Value of a two-card (front) hand: a pair or two high cards; the joker is an ace.

    >>> evaluate_two("Jk As").name
    'pair of aces'
    >>> evaluate_two("Jk Kd").name
    'ace-king high'
    >>> evaluate_two("7c 9d").name
    'nine-seven high'
    >>> evaluate_two("Jk Jk")
    Traceback (most recent call last):
    ...
    monitor.rules.errors.DuplicateCardError: duplicate card(s) in two-card hand: Jk
    """
    a, b = _cards(cards, 2, "two-card hand")
    rules = HandRules.of(profile)
    ra, rb = a.rank, b.rank
    if a.is_joker or b.is_joker:
        other = rb if a.is_joker else ra
        # The bug is an ace here (no straight or flush in two cards); a wild joker pairs.
        ra, rb = other, (other if rules.joker_mode is JokerMode.WILD else ACE)
    if ra == rb:
        return _value(Category.ONE_PAIR, (ra,), rules)
    return _value(Category.HIGH_CARD, (max(ra, rb), min(ra, rb)), rules)


def best_five(
    cards: str | Iterable[Card], profile: PaiGowProfile = DEFAULT_PROFILE
) -> tuple[HandValue, tuple[Card, ...]]:
    """Best five-card hand among five to eight cards, and the five cards that make it (input order).

    >>> v, five = best_five("As Ad Kh Kc 7s 7d 2c")
    >>> v.name, " ".join(c.text for c in five)
    ('two pair, aces and kings, seven high', 'As Ad Kh Kc 7s')
    """
    cs = parse_cards(cards) if isinstance(cards, str) else tuple(cards)
    if not 5 <= len(cs) <= 8:
        shown = " ".join(str(c) for c in cs) or "(none)"
        raise CardCountError(f"best five needs 5 to 8 cards, got {len(cs)}: {shown}")
    cs = _cards(cs, len(cs), "hand for best five")
    table, values, five_aces = _lookup(HandRules.of(profile))
    index = [c.index for c in cs]
    best_score, best_combo = -1, (0, 1, 2, 3, 4)
    for combo in itertools.combinations(range(len(cs)), 5):
        s = 0
        for i in combo:
            s = table[s + index[i]]
        if s > best_score:
            best_score, best_combo = s, combo
    five = tuple(cs[i] for i in best_combo)
    return _value_of_score(best_score, five, values, five_aces), five
