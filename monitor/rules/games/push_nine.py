"""Push-Nine (Poker Games "PUSH-9: THE BEST HAND IN PUSH-9 GAME"): three cards, the seed's 36 ranks.

Rank 1 is the best hand (AAA), rank 36 the worst (zero points). Suits never matter.
Aces are low (one point, and 3-2-1 is a straight) except in AAA and AKQ, where they are high.
Tens and face cards count zero. Tied best hands do not split: they make a *push pot* that the
losing players may buy into for half its amount (Poker Games: "if the pot is $20.00, the amount
of the buy-in is ten dollars").

>>> from monitor.rules.cards import parse_cards
>>> rank_hand(parse_cards("Ah Kd Qc")).name
'A K Q straight'
>>> rank_hand(parse_cards("Kh 8d 2c")).name
'0 points'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from monitor.rules.cards import RANK_CHARS, Card, check_count, format_cards
from monitor.rules.errors import CardCountError, RulesError
from monitor.rules.games.deal import DealStep, DealStructure, StepKind
from monitor.rules.games.deck import STANDARD_DECK
from monitor.rules.games.profile import DEFAULT_GAME_PROFILE, GameProfile

_TEXT: Final = {14: "A", 13: "K", 12: "Q", 11: "J", 10: "10"}


def _t(rank: int) -> str:
    return _TEXT.get(rank, RANK_CHARS[rank - 2] if rank >= 2 else "1")


# Seed table rows 1-13: trips, AAA down to 222.
TRIPS_ORDER: Final[tuple[int, ...]] = tuple(range(14, 1, -1))
# Rows 14-25: straights by their top card in the seed's own order: AKQ (ace high), KQJ ... 432, 321.
# Stored as the set of ranks with the ace as 14 for AKQ and 1 for 3-2-1.
STRAIGHTS_ORDER: Final[tuple[tuple[int, int, int], ...]] = (
    (14, 13, 12),
    *((top, top - 1, top - 2) for top in range(13, 2, -1)),
)
# Row 26: three face cards that are neither trips nor the K Q J straight.
FACE_RANKS: Final = frozenset((11, 12, 13))
FIRST_POINTS_ROW: Final = 27  # row 27 is 9 points ... row 36 is 0 points


def _row_names() -> tuple[str, ...]:
    names = [f"{_t(r)} {_t(r)} {_t(r)} trips" for r in TRIPS_ORDER]
    names += [" ".join(_t(r) for r in s) + " straight" for s in STRAIGHTS_ORDER]
    names.append("three face cards")
    names += [f"{p} points" if p != 1 else "1 point" for p in range(9, -1, -1)]
    return tuple(names)


ROW_NAMES: Final[tuple[str, ...]] = _row_names()
assert len(ROW_NAMES) == 36


def point_value(card: Card) -> int:
    """Points of a card: ace 1, two to nine face value, ten and faces 0 ("ALL FACE CARDS COUNT AS TEN")."""
    if card.rank == 14:
        return 1
    return card.rank if card.rank <= 9 else 0


@dataclass(frozen=True, slots=True)
class PushNineHand:
    """A ranked three-card hand. ``row`` is the seed table's number: 1 best, 36 worst."""

    row: int
    cards: tuple[Card, ...]

    @property
    def name(self) -> str:
        return ROW_NAMES[self.row - 1]

    @property
    def strength(self) -> int:
        """Greater is better (37 - row)."""
        return 37 - self.row

    def __str__(self) -> str:
        return f"{format_cards(self.cards)}: {self.name} (Push-Nine rank {self.row})"


def _row(cards: Sequence[Card]) -> int:
    ranks = sorted((c.rank for c in cards), reverse=True)
    if ranks[0] == ranks[1] == ranks[2]:
        return 1 + TRIPS_ORDER.index(ranks[0])
    as_set = tuple(ranks)
    if as_set in STRAIGHTS_ORDER:  # A K Q, and every straight without an ace
        return 14 + STRAIGHTS_ORDER.index(as_set)
    if as_set == (14, 3, 2):  # 3 2 1: the ace low
        return 25
    if all(r in FACE_RANKS for r in ranks):
        return 26
    points = sum(point_value(c) for c in cards) % 10
    return FIRST_POINTS_ROW + (9 - points)


def rank_hand(cards: Sequence[Card], where: str = "Push-Nine hand") -> PushNineHand:
    """Rank three cards of a standard deck (no joker) by the seed's 36-row table."""
    cs = check_count(cards, 3, where)
    STANDARD_DECK.check(cs, where)
    return PushNineHand(_row(cs), cs)


@dataclass(frozen=True, slots=True)
class PushPot:
    """Tied best hands: the pot is pushed to a new hand among ``tied`` (Poker Games Push-Nine)."""

    amount: int
    tied: tuple[str, ...]
    # Losing players who may buy in, and the price for each.
    may_buy_in: tuple[str, ...]
    buy_in: int

    def total_with(self, buyers: Sequence[str]) -> int:
        """Amount of the push pot once ``buyers`` (each among ``may_buy_in``) have bought in."""
        unknown = [b for b in buyers if b not in self.may_buy_in]
        if unknown:
            raise RulesError(f"push pot buy-in by {', '.join(unknown)}: only losing players may buy in "
                             f"({', '.join(self.may_buy_in) or 'nobody'})")
        if len(set(buyers)) != len(buyers):
            raise RulesError(f"push pot buy-in: a player is listed twice in {', '.join(buyers)}")
        return self.amount + self.buy_in * len(buyers)


@dataclass(frozen=True, slots=True)
class PushNineResult:
    hands: Mapping[str, PushNineHand]
    pot: int
    winner: str | None
    push: PushPot | None
    reason: str

    def share(self, player: str) -> int:
        """What the player takes from the pot now (a push pot pays nobody yet)."""
        return self.pot if self.push is None and self.winner == player else 0


def showdown(
    hands: Mapping[str, Sequence[Card]], pot: int, profile: GameProfile = DEFAULT_GAME_PROFILE
) -> PushNineResult:
    """Judge a Push-Nine showdown: the best row wins the pot; tied best rows make a push pot."""
    if len(hands) < 1:
        raise CardCountError("Push-Nine showdown needs at least one hand")
    if pot < 0:
        raise RulesError(f"Push-Nine pot must not be negative, got {pot}")
    rules = profile.push_nine
    if len(hands) > rules.max_players:
        raise CardCountError(f"Push-Nine seats at most {rules.max_players} players, got {len(hands)} hands")
    ranked = {who: rank_hand(cs, f"{who}'s Push-Nine hand") for who, cs in hands.items()}
    STANDARD_DECK.check([c for h in ranked.values() for c in h.cards], "the Push-Nine showdown")
    best = min(h.row for h in ranked.values())
    top = tuple(w for w, h in ranked.items() if h.row == best)
    if len(top) == 1:
        w = top[0]
        reason = f"{w} wins with {ranked[w]}"
        return PushNineResult(ranked, pot, w, None, reason)
    losers = tuple(w for w in ranked if w not in top)
    # Round the buy-in up to a whole unit so the push pot is never short.
    buy_in = -(-pot * rules.buy_in_numerator // rules.buy_in_denominator)
    reason = (
        f"tie on {ROW_NAMES[best - 1]} (rank {best}) between {', '.join(top)}: push pot of {pot}; "
        f"losing players may buy in for {buy_in} each"
    )
    return PushNineResult(ranked, pot, None, PushPot(pot, top, losers, buy_in), reason)


def deal_structure(profile: GameProfile = DEFAULT_GAME_PROFILE) -> DealStructure:
    """Poker Games Push-Nine: antes, three cards each face down, a betting round, the showdown."""
    steps = (
        DealStep(StepKind.HOLE, 1, label="card 1"),
        DealStep(StepKind.HOLE, 1, label="card 2"),
        DealStep(StepKind.HOLE, 1, label="card 3"),
        DealStep(StepKind.BET, label="betting"),
        DealStep(StepKind.SHOWDOWN, label="showdown"),
    )
    return DealStructure("push_nine", STANDARD_DECK, steps, 2, profile.push_nine.max_players,
                         "seed 004 Push-Nine")

