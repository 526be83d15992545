"""Ace-to-five low hands: Lo-Ball (with its joker) and the eight-or-better low of the hi-lo games.

Aces are the lowest card, straights and flushes do not count (Poker Games Lo-Ball: "STRAIGHTS AND
FLUSHES DO NOT DISQUALIFY A HAND FOR LOW"; Omaha Hi-Low: "Straight and flushes do not qualify a
low hand"), so the best possible hand is A-2-3-4-5. A hand is compared first by its pairing
(no pair beats one pair beats two pair ...), then by its highest card down.

Every value here is ordered so that *greater is better*, as for high hands, so a showdown
picks the maximum whichever way the pot goes.

>>> from monitor.rules.cards import parse_cards
>>> evaluate_low(parse_cards("5h 4d 3c 2s Ah")).name
'5-4-3-2-A'
>>> evaluate_low(parse_cards("Jk 7d 5c 3s 2h")).name   # the joker plays as the ace
'7-5-3-2-A'
>>> evaluate_low(parse_cards("8d 6c 4s 3h 2h")) > evaluate_low(parse_cards("8s 7c 3d 2c Ah"))
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache
from itertools import combinations

from monitor.rules.cards import RANK_PLURALS, Card, format_cards
from monitor.rules.errors import CardCountError, DuplicateCardError

ACE_LOW = 1
# Every low key is below this bound, so ``score = _BOUND - key`` is positive and greater is better.
_BOUND = 6 << 20


class LowCategory(IntEnum):
    """Pairing of a low hand, best (no pair) first."""

    NO_PAIR = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    FULL_HOUSE = 4
    FOUR_OF_A_KIND = 5


_PATTERNS: dict[tuple[int, ...], LowCategory] = {
    (1, 1, 1, 1, 1): LowCategory.NO_PAIR,
    (2, 1, 1, 1): LowCategory.ONE_PAIR,
    (2, 2, 1): LowCategory.TWO_PAIR,
    (3, 1, 1): LowCategory.THREE_OF_A_KIND,
    (3, 2): LowCategory.FULL_HOUSE,
    (4, 1): LowCategory.FOUR_OF_A_KIND,
}
_LOW_NAMES = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}


def low_rank(card: Card) -> int:
    """Ace-low rank 1..13 of a natural card."""
    return ACE_LOW if card.rank == 14 else card.rank


def _rank_text(r: int) -> str:
    return _LOW_NAMES.get(r, str(r))


def _plural(r: int) -> str:
    return RANK_PLURALS[14 if r == ACE_LOW else r]


@dataclass(frozen=True, slots=True, order=False)
class LowValue:
    """An ace-to-five low hand; ``score`` is greater for a better (lower) hand."""

    category: LowCategory
    # Ace-low ranks in comparison order: the most-repeated rank first, then down from the highest.
    ranks: tuple[int, ...]
    score: int = field(compare=True)

    def __lt__(self, other: LowValue) -> bool:
        return self.score < other.score

    def __le__(self, other: LowValue) -> bool:
        return self.score <= other.score

    def __gt__(self, other: LowValue) -> bool:
        return self.score > other.score

    def __ge__(self, other: LowValue) -> bool:
        return self.score >= other.score

    @property
    def qualifies_eight(self) -> bool:
        """Five different ranks, none above eight (Poker Games: "an eight or better")."""
        return self.category is LowCategory.NO_PAIR and self.ranks[0] <= 8

    @property
    def name(self) -> str:
        if self.category is LowCategory.NO_PAIR:
            return "-".join(_rank_text(r) for r in self.ranks)
        r = self.ranks
        if self.category is LowCategory.ONE_PAIR:
            return f"pair of {_plural(r[0])}, " + "-".join(_rank_text(x) for x in r[1:])
        if self.category is LowCategory.TWO_PAIR:
            return f"two pair, {_plural(r[0])} and {_plural(r[1])}, {_rank_text(r[2])}"
        if self.category is LowCategory.THREE_OF_A_KIND:
            return f"three {_plural(r[0])}, " + "-".join(_rank_text(x) for x in r[1:])
        if self.category is LowCategory.FULL_HOUSE:
            return f"{_plural(r[0])} full of {_plural(r[1])}"
        return f"four {_plural(r[0])}, {_rank_text(r[1])}"


@lru_cache(maxsize=8192)
def low_value_of_ranks(ranks: tuple[int, ...]) -> LowValue:
    """Value of five ace-low ranks (any order). Cached: there are only 6,175 rank multisets."""
    counts = Counter(ranks)
    order = sorted(counts.items(), key=lambda kv: (-kv[1], -kv[0]))
    pattern = tuple(n for _, n in order)
    category = _PATTERNS.get(pattern)
    if category is None:
        raise CardCountError(f"a low hand is five cards with at most four of a rank, got ranks {ranks}")
    seq = tuple(r for r, _ in order)
    key = int(category)
    for r in seq:
        key = key * 16 + r
    key <<= 4 * (5 - len(seq))
    return LowValue(category, seq, _BOUND - key)


def evaluate_low(cards: Sequence[Card]) -> LowValue:
    """Ace-to-five value of exactly five cards; a joker is the lowest rank not already in the hand.

    Poker Games Lo-Ball: "IT FITS IN THE HAND AS THE LOWEST CARD POSSIBLE".
    """
    if len(cards) != 5:
        raise CardCountError(f"a low hand is 5 cards, got {len(cards)}: {format_cards(cards) or '(none)'}")
    jokers = [c for c in cards if c.is_joker]
    if len(jokers) > 1:
        raise DuplicateCardError(f"more than one joker in low hand {format_cards(cards)}")
    ranks = [low_rank(c) for c in cards if not c.is_joker]
    if jokers:
        present = set(ranks)
        ranks.append(next(r for r in range(1, 14) if r not in present))
    return low_value_of_ranks(tuple(sorted(ranks)))


def best_low(cards: Sequence[Card]) -> tuple[LowValue, tuple[Card, ...]]:
    """Best ace-to-five five-card low among five or more cards."""
    if len(cards) < 5:
        raise CardCountError(f"a low hand needs 5 cards, got {len(cards)}: {format_cards(cards) or '(none)'}")
    best: tuple[LowValue, tuple[Card, ...]] | None = None
    for five in combinations(cards, 5):
        v = evaluate_low(five)
        if best is None or v > best[0]:
            best = (v, five)
    assert best is not None
    return best


# --- eight or better -------------------------------------------------------------------------
# A qualifying low is five *different* ranks from A..8, so only the set of low ranks matters:
# a bit mask over ranks 1..8. The best low of a mask is its five lowest ranks.


def low_mask(cards: Sequence[Card]) -> int:
    """Bit ``r`` set for each ace-low rank r <= 8 among natural cards."""
    m = 0
    for c in cards:
        if not c.is_joker:
            r = low_rank(c)
            if r <= 8:
                m |= 1 << r
    return m


def _lowest(mask: int, n: int) -> tuple[int, ...] | None:
    ranks = [r for r in range(1, 9) if mask >> r & 1]
    return tuple(ranks[:n]) if len(ranks) >= n else None


def _best5_table() -> tuple[int, ...]:
    out = []
    for mask in range(512):
        five = _lowest(mask, 5)
        out.append(0 if five is None else low_value_of_ranks(five).score)
    return tuple(out)


def _lowest3_table() -> tuple[int, ...]:
    out = []
    for mask in range(512):
        three = _lowest(mask, 3)
        out.append(0 if three is None else sum(1 << r for r in three))
    return tuple(out)


# Score of the best eight-or-better low for a rank mask (0 = no qualifying low).
BEST_EIGHT_SCORE: tuple[int, ...] = _best5_table()
# The three lowest ranks of a mask as a mask (0 = fewer than three).
LOWEST_THREE: tuple[int, ...] = _lowest3_table()


def eight_score_any(mask: int) -> int:
    """Best eight-or-better score from any cards with this rank mask; 0 if none qualifies."""
    return BEST_EIGHT_SCORE[mask]


def eight_score_omaha(hole_masks: Sequence[int], board_mask: int) -> int:
    """Best eight-or-better score using exactly two hole cards and three board cards; 0 if none.

    ``hole_masks`` has one single-bit mask per hole card (0 for a card above eight).
    """
    best = 0
    n = len(hole_masks)
    for i in range(n):
        a = hole_masks[i]
        if not a:
            continue
        for j in range(i + 1, n):
            b = hole_masks[j]
            if not b or a == b:
                continue
            three = LOWEST_THREE[board_mask & ~(a | b)]
            if three:
                s = BEST_EIGHT_SCORE[three | a | b]
                if s > best:
                    best = s
    return best


def value_of_score(score: int) -> LowValue:
    """The LowValue whose score this is (for naming a fast-path result)."""
    key = _BOUND - score
    digits = [(key >> (4 * i)) & 15 for i in range(5, -1, -1)]
    category = LowCategory(digits[0])
    seq = tuple(d for d in digits[1:] if d)
    return LowValue(category, seq, score)


def eight_or_better_any(cards: Sequence[Card]) -> LowValue | None:
    """Best qualifying low from any five of the cards (Hold'em hi-lo), or None."""
    s = eight_score_any(low_mask(cards))
    return value_of_score(s) if s else None


def eight_or_better_omaha(hole: Sequence[Card], board: Sequence[Card]) -> LowValue | None:
    """Best qualifying low from exactly two hole and three board cards (Omaha hi-lo), or None."""
    s = eight_score_omaha([low_mask((c,)) for c in hole], low_mask(board))
    return value_of_score(s) if s else None
