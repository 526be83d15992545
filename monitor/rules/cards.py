"""Cards and decks.

A card is a small immutable value: rank 2..14 (ace = 14) and suit, or the joker.
Text form is two characters: rank ``23456789TJQKA`` then suit ``cdhs`` (``As``, ``Td``),
and ``Jk`` for the joker. ``10`` is accepted on input for ten and printed as ``T``.

>>> parse_card("As")
Card('As')
>>> parse_cards("Td 9h Jk")
(Card('Td'), Card('9h'), Card('Jk'))
>>> parse_card("Xs")
Traceback (most recent call last):
...
monitor.rules.errors.CardParseError: unknown rank 'X' in card 'Xs' (ranks: 23456789TJQKA, joker: Jk)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from monitor.rules.errors import CardCountError, CardParseError, DuplicateCardError

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "cdhs"
SUIT_NAMES: Final = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
INK: Final = {"c": "black", "d": "red", "h": "red", "s": "black"}  # each suit's colour of print
RANK_NAMES: Final = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
RANK_PLURALS: Final = {r: (n + "es" if n == "six" else n + "s") for r, n in RANK_NAMES.items()}
JOKER_RANK: Final = 15
_SUIT_INDEX: Final = {s: i for i, s in enumerate(SUIT_CHARS)}
JOKER_TEXT: Final = "Jk"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card. ``rank`` 2..14 (ace high) or 15 for the joker; ``suit`` one of ``cdhs`` ('' for joker)."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if self.rank == JOKER_RANK:
            if self.suit != "":
                raise CardParseError(f"the joker has no suit (got suit {self.suit!r})")
        elif not (2 <= self.rank <= 14) or self.suit not in SUIT_CHARS or len(self.suit) != 1:
            raise CardParseError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @property
    def is_ace(self) -> bool:
        return self.rank == 14

    @property
    def index(self) -> int:
        """Dense index 0..52: 0..51 for (rank-2)*4 + suit, 52 for the joker."""
        r = self.rank  # written flat: the hand evaluator reads this for every card
        return 52 if r == JOKER_RANK else (r - 2) * 4 + _SUIT_INDEX[self.suit]

    @property
    def text(self) -> str:
        return JOKER_TEXT if self.is_joker else RANK_CHARS[self.rank - 2] + self.suit

    @property
    def name(self) -> str:
        """'ace of spades', 'the joker'."""
        return "the joker" if self.is_joker else f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"


JOKER: Final = Card(JOKER_RANK, "")


def parse_card(text: str) -> Card:
    """Parse ``As``, ``Td``, ``10d``, ``Jk`` (case-insensitive rank, lower-case suit accepted in any case)."""
    if not isinstance(text, str):
        raise CardParseError(f"a card must be text like 'As', got {type(text).__name__} {text!r}")
    raw = text
    t = text.strip()
    if t != text:
        raise CardParseError(f"card {raw!r} has surrounding whitespace")
    if t.lower() in ("jk", "jo", "joker", "xx"):
        return JOKER
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2:
        raise CardParseError(f"card {raw!r} is not two characters of rank and suit (e.g. 'As', 'Td', 'Jk')")
    r, s = t[0].upper(), t[1].lower()
    if r not in RANK_CHARS:
        raise CardParseError(f"unknown rank {t[0]!r} in card {raw!r} (ranks: {RANK_CHARS}, joker: Jk)")
    if s not in SUIT_CHARS:
        raise CardParseError(f"unknown suit {t[1]!r} in card {raw!r} (suits: {SUIT_CHARS})")
    return Card(RANK_CHARS.index(r) + 2, s)


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse a space/comma separated string ('As Kd Jk') or an iterable of card strings.

    A run-together string of two-character cards ('AsKdJk') is accepted too.
    """
    if isinstance(text, str):
        parts = text.replace(",", " ").split()
        if len(parts) == 1 and len(parts[0]) > 3 and len(parts[0]) % 2 == 0:
            s = parts[0]
            parts = [s[i : i + 2] for i in range(0, len(s), 2)]
    else:
        parts = list(text)
    return tuple(parse_card(p) for p in parts)


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(c.text for c in cards)


def card_from_index(i: int) -> Card:
    if i == 52:
        return JOKER
    if not 0 <= i < 52:
        raise CardParseError(f"card index {i} out of range 0..52")
    return Card(i // 4 + 2, SUIT_CHARS[i % 4])


STANDARD_52: Final[tuple[Card, ...]] = tuple(card_from_index(i) for i in range(52))
PAI_GOW_53: Final[tuple[Card, ...]] = (*STANDARD_52, JOKER)


def check_distinct(cards: Iterable[Card], where: str = "hand") -> None:
    """Raise DuplicateCardError naming every card that appears more than once."""
    cs = cards if isinstance(cards, (tuple, list)) else list(cards)
    if len(set(cs)) == len(cs):  # the common case, without counting
        return
    counts = Counter(cs)
    dups = sorted(c for c, n in counts.items() if n > 1)
    if dups:
        raise DuplicateCardError(f"duplicate card(s) in {where}: {format_cards(dups)}")


def check_count(cards: Iterable[Card], n: int, where: str = "hand") -> tuple[Card, ...]:
    cs = tuple(cards)
    if len(cs) != n:
        raise CardCountError(f"{where} must have {n} cards, got {len(cs)}: {format_cards(cs) or '(none)'}")
    return cs
