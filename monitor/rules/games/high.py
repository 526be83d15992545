"""High hands of the board games (Hold'em, Omaha, Pineapple) on top of ``monitor.rules.hands``.

The hand values are the project's own (``hands.evaluate_five``: same categories, names and
integer ``score``). For speed, the score of every distinct five-card hand shape (7,462 of them:
a rank multiset, suited or not) is taken once from ``evaluate_five`` into a table; a showdown
then looks up the 21 (Hold'em), 56 (Pineapple) or 60 (Omaha) five-card choices of each player.

A standard deck has no joker, so there is no five-aces hand; the wheel A-2-3-4-5 is the lowest
straight, as in every game of the Poker Games rulebook.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

from monitor.rules.cards import SUIT_CHARS, Card
from monitor.rules.errors import CardCountError
from monitor.rules.hands import HandValue, evaluate_five
from monitor.rules.profile import PaiGowProfile, Wheel

# Only the wheel setting matters without a joker; pin it so the Pai Gow default never leaks in.
POKER_HIGH = PaiGowProfile(name="poker_high", wheel=Wheel.LOWEST)

RankKey = tuple[int, ...]  # five ranks, highest first


@dataclass(frozen=True, slots=True)
class HighTables:
    plain: dict[RankKey, int]  # score of five ranks, not all one suit
    suited: dict[RankKey, int]  # score of five different ranks of one suit
    values: dict[int, HandValue]  # the HandValue behind each score


def _plain_cards(ranks: RankKey) -> list[Card]:
    """Five cards of these ranks that are not all one suit (copies of a rank get different suits)."""
    seen: dict[int, int] = {}
    cards = []
    for r in ranks:
        cards.append(Card(r, SUIT_CHARS[seen.get(r, 0)]))
        seen[r] = seen.get(r, 0) + 1
    if len({c.suit for c in cards}) == 1:
        cards[0] = Card(cards[0].rank, SUIT_CHARS[1])
    return cards


@lru_cache(maxsize=1)
def tables() -> HighTables:
    """Build the tables once from the reference evaluator (about 7,500 evaluations)."""
    plain: dict[RankKey, int] = {}
    suited: dict[RankKey, int] = {}
    values: dict[int, HandValue] = {}
    for combo in combinations_with_replacement(range(14, 1, -1), 5):
        ranks: RankKey = combo
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        v = evaluate_five(_plain_cards(ranks), POKER_HIGH)
        plain[ranks] = v.score
        values[v.score] = v
        if len(set(ranks)) == 5:
            s = evaluate_five([Card(r, "s") for r in ranks], POKER_HIGH)
            suited[ranks] = s.score
            values[s.score] = s
    return HighTables(plain, suited, values)


def score_five(cards: Sequence[Card]) -> int:
    """Score of exactly five natural cards (same number as ``evaluate_five(cards).score``)."""
    t = tables()
    key: RankKey = tuple(sorted((c.rank for c in cards), reverse=True))
    if len({c.suit for c in cards}) == 1:
        return t.suited[key]
    return t.plain[key]


def score_any(cards: Sequence[Card]) -> int:
    """Best score of any five of five to eight cards (Hold'em, Pineapple)."""
    if not 5 <= len(cards) <= 8:
        raise CardCountError(f"a high hand is the best five of 5 to 8 cards, got {len(cards)}")
    t = tables()
    ordered = sorted(cards, key=lambda c: c.rank, reverse=True)
    ranks = [c.rank for c in ordered]
    best = 0
    plain = t.plain
    for key in combinations(ranks, 5):
        s = plain.get(key, 0)
        if s > best:
            best = s
    suits = [c.suit for c in ordered]
    for suit in SUIT_CHARS:
        if suits.count(suit) >= 5:
            suited_ranks = [r for r, s in zip(ranks, suits, strict=True) if s == suit]
            for key in combinations(suited_ranks, 5):
                s = t.suited[key]
                if s > best:
                    best = s
    return best


def score_omaha(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Best score using exactly two hole cards and three board cards."""
    if len(hole) < 2 or len(board) < 3:
        raise CardCountError(f"Omaha needs 2+ hole and 3+ board cards, got {len(hole)} and {len(board)}")
    t = tables()
    plain, suited = t.plain, t.suited
    best = 0
    triples = [
        ([c.rank for c in tri], tri[0].suit if tri[0].suit == tri[1].suit == tri[2].suit else "")
        for tri in combinations(board, 3)
    ]
    for a, b in combinations(hole, 2):
        pair_suit = a.suit if a.suit == b.suit else ""
        for tri_ranks, tri_suit in triples:
            key = tuple(sorted((a.rank, b.rank, *tri_ranks), reverse=True))
            s = suited[key] if pair_suit and pair_suit == tri_suit else plain[key]
            if s > best:
                best = s
    return best


def value_of(score: int) -> HandValue:
    """The project HandValue (category, ranks, name) behind a score."""
    return tables().values[score]


def five_for_any(cards: Sequence[Card], score: int) -> tuple[Card, ...]:
    """Five of the cards that make ``score`` (for showing which cards play)."""
    for five in combinations(cards, 5):
        if score_five(five) == score:
            return five
    raise CardCountError(f"no five of {len(cards)} cards make score {score}")


def five_for_omaha(hole: Sequence[Card], board: Sequence[Card], score: int) -> tuple[Card, ...]:
    for pair in combinations(hole, 2):
        for tri in combinations(board, 3):
            if score_five((*pair, *tri)) == score:
                return (*pair, *tri)
    raise CardCountError(f"no two hole and three board cards make score {score}")
