"""The decks of the Poker Games rulebook's games and the strict checks of cards against them.

A deck is a set of distinct card faces and a number of copies of each: one for the poker
games, several for Pan, which shuffles many 40-card decks together so that the same card
may legitimately be seen several times (but never more often than there are decks).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from monitor.rules.cards import JOKER, STANDARD_52, Card, format_cards
from monitor.rules.errors import CardNotInDeckError, DuplicateCardError

# Poker Games Pan: "THERE ARE NO (8's), (9's), OR (10's) IN THE PAN DECK".
PAN_RANKS: tuple[int, ...] = (14, 2, 3, 4, 5, 6, 7, 11, 12, 13)


@dataclass(frozen=True, slots=True)
class Deck:
    """A deck: its distinct faces and how many copies of each the shoe holds."""

    name: str
    faces: frozenset[Card]
    copies: int = 1

    @property
    def size(self) -> int:
        return len(self.faces) * self.copies

    def check(self, cards: Iterable[Card], where: str) -> tuple[Card, ...]:
        """Return the cards, or raise naming each card the deck does not hold or holds fewer times.

        ``where`` names the place being checked, e.g. "seat 3 hole cards" or "the table".
        """
        cs = tuple(cards)
        distinct = set(cs)
        # The common case first: every card in the deck and none repeated (one hash per card).
        if self.copies == 1 and len(distinct) == len(cs) and distinct <= self.faces:
            return cs
        foreign = sorted(distinct - self.faces)
        if foreign:
            raise CardNotInDeckError(
                f"{where}: {format_cards(foreign)} not in the {self.name} deck ({self.describe()})"
            )
        over = sorted(c for c, n in Counter(cs).items() if n > self.copies)
        if over:
            if self.copies == 1:
                raise DuplicateCardError(f"{where}: card(s) seen twice: {format_cards(over)}")
            counts = Counter(cs)
            detail = ", ".join(f"{c} x{counts[c]}" for c in over)
            raise DuplicateCardError(
                f"{where}: more copies than the {self.copies} decks hold: {detail}"
            )
        return cs

    def describe(self) -> str:
        if self.copies == 1:
            return f"{len(self.faces)} cards"
        return f"{self.copies} x {len(self.faces)} cards"


STANDARD_DECK = Deck("standard 52-card", frozenset(STANDARD_52))
LOWBALL_DECK = Deck("52-card plus joker", frozenset((*STANDARD_52, JOKER)))
PAN_FACES: frozenset[Card] = frozenset(c for c in STANDARD_52 if c.rank in PAN_RANKS)


def pan_deck(decks: int) -> Deck:
    return Deck("Pan (no 8, 9, 10)", PAN_FACES, decks)
