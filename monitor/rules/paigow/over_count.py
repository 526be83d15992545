"""Duplicate cards found by count: more cards of one rank and ink turned up than one deck holds.

Livermore rule 60 ("When two identical cards are turned up, that hand will be declared a misdeal")
needs no suit to be read: a deck holds exactly two cards of each rank and ink (the red kings are the
king of hearts and the king of diamonds), so a third red king turned up in one deal is one of them
a second time, whichever it is. Vision reads a fanned hand's ranks and inks far more often than its
suits (the suit sign is ~4 px at 1080p), so a mixed-in card is often caught this way before, or
instead of, by name.

Counted so that a card read twice is never two: within one part of a hand (the two-card or the
five-card hand) cards of one rank and ink count as their distinct names, or as one where some were not
named (one index named, the other not, is one card read twice as easily as two cards); a hand read
again (the banker's setting seen twice) counts as the most any one reading of it showed. A card read
only as the rank ``J`` is not counted (the joker, a jester, reads as one: rules/paigow/partial.py).
The joker itself is one card: two named jokers are a duplicate by name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from monitor.rules.cards import INK, JOKER_TEXT, RANK_CHARS

PER_DECK = 2  # cards of one rank and ink in a 53-card deck (two suits of each ink)
JACK = "J"
RANK_NAMES = {"A": "aces", "K": "kings", "Q": "queens", "J": "jacks", "T": "tens", "9": "nines",
              "8": "eights", "7": "sevens", "6": "sixes", "5": "fives", "4": "fours", "3": "threes",
              "2": "twos"}

Key = tuple[str, str]  # (rank, ink)


@dataclass(frozen=True, slots=True)
class ReadCard:
    """One card as read: its name, else its rank and ink where read (any may be None)."""

    card: str | None = None
    rank: str | None = None
    ink: str | None = None

    def key(self) -> Key | None:
        """The card's rank and ink, or None where either is not known (or it may be the joker)."""
        if self.card is not None:
            if self.card == JOKER_TEXT or len(self.card) != 2 or self.card[0] not in RANK_CHARS:
                return None
            return self.card[0], INK[self.card[1]]
        if self.rank is None or self.ink is None or self.rank == JACK or self.rank not in RANK_CHARS:
            return None
        return self.rank, self.ink


def part_tally(cards: Iterable[ReadCard]) -> Counter[Key]:
    """The cards of one part of a hand counted by rank and ink, a card read twice never counted twice:
    per rank and ink its distinct names, or one where any was not named."""
    names: dict[Key, set[str]] = {}
    unnamed: set[Key] = set()
    for c in cards:
        k = c.key()
        if k is None:
            continue
        if c.card is not None:
            names.setdefault(k, set()).add(c.card)
        else:
            unnamed.add(k)
    out: Counter[Key] = Counter()
    for k in names.keys() | unnamed:
        out[k] = max(len(names.get(k, ())), 1 if k in unnamed else 0)
    return out


def hand_tally(parts: Sequence[Iterable[ReadCard]]) -> Counter[Key]:
    """One reading of a hand: its parts' tallies added (a card lies in one part only)."""
    out: Counter[Key] = Counter()
    for p in parts:
        out.update(part_tally(p))
    return out


def merged(before: Counter[Key] | None, now: Counter[Key]) -> Counter[Key]:
    """A hand read again: per rank and ink, the most any one reading showed."""
    return now.copy() if before is None else before | now


@dataclass(frozen=True, slots=True)
class OverCount:
    """More cards of ``rank`` and ``ink`` turned up than a deck holds, and the hands that showed them."""

    rank: str
    ink: str
    count: int
    homes: tuple[str, ...]

    @property
    def text(self) -> str:
        """As the alert names the card: ``identical red kings (3 seen; one deck holds 2)``."""
        return f"identical {self.ink} {RANK_NAMES[self.rank]} ({self.count} seen; one deck holds {PER_DECK})"


def over_counts(hands: Mapping[str, Counter[Key]]) -> list[OverCount]:
    """Every rank and ink turned up more often than one deck holds it, over the deal's hands
    (``hands``: home -> its tally)."""
    total: Counter[Key] = Counter()
    for tally in hands.values():
        total.update(tally)
    out = []
    for (rank, ink), n in sorted(total.items()):
        if n > PER_DECK:
            homes = tuple(sorted(h for h, t in hands.items() if t.get((rank, ink), 0) > 0))
            out.append(OverCount(rank, ink, n, homes))
    return out
