"""Settings: a seven-card hand split into a two-card front and a five-card back, and the foul check.

Livermore rule 50 (the same in Napa and Lucky Chances): a hand is FOUL if (a) the two-card front hand is
stronger than the five-card back hand, (b) the front does not hold exactly two cards, (c) the back does
not hold exactly five cards. Rule 50e: the front is the two-card hand and the back the five-card hand
wherever they lie, so a judge receives the two groups as placed. Cards that are not exactly the seven
dealt (a card held out, added or switched) make the hand foul as well (Livermore rule 42).

>>> from monitor.rules.cards import parse_cards
>>> dealt = parse_cards("As Ad Kc Qh 9s 5d 2c")
>>> len(all_settings(dealt))
21
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Final

from monitor.rules.cards import Card, check_count, check_distinct, format_cards
from monitor.rules.hands import HandValue, evaluate_five, evaluate_two
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

FRONT_SIZE: Final = 2
BACK_SIZE: Final = 5
HAND_SIZE: Final = FRONT_SIZE + BACK_SIZE
# The 21 ways to choose the front: index pairs into the seven dealt cards, in lexicographic order.
FRONT_INDEX_PAIRS: Final[tuple[tuple[int, int], ...]] = tuple(combinations(range(HAND_SIZE), FRONT_SIZE))


@dataclass(frozen=True, slots=True)
class Setting:
    """A well-formed setting: exactly two front cards and five back cards, all distinct."""

    front: tuple[Card, Card]
    back: tuple[Card, Card, Card, Card, Card]

    @classmethod
    def of(cls, front: Iterable[Card], back: Iterable[Card]) -> Setting:
        f = check_count(front, FRONT_SIZE, "front (two-card) hand")
        b = check_count(back, BACK_SIZE, "back (five-card) hand")
        check_distinct((*f, *b), "setting")
        return cls((f[0], f[1]), (b[0], b[1], b[2], b[3], b[4]))

    @property
    def cards(self) -> tuple[Card, ...]:
        return (*self.front, *self.back)

    def values(self, profile: PaiGowProfile = DEFAULT_PROFILE) -> tuple[HandValue, HandValue]:
        """(front value, back value)."""
        return evaluate_two(self.front, profile), evaluate_five(self.back, profile)

    def __str__(self) -> str:
        return f"{format_cards(self.front)} / {format_cards(self.back)}"


def check_seven(cards: Iterable[Card], where: str = "seven-card hand") -> tuple[Card, ...]:
    cs = check_count(cards, HAND_SIZE, where)
    check_distinct(cs, where)
    return cs


def all_settings(cards: Iterable[Card]) -> tuple[Setting, ...]:
    """The 21 ways to split seven distinct cards into a front of two and a back of five."""
    cs = check_seven(cards)
    out = []
    for i, j in FRONT_INDEX_PAIRS:
        back = tuple(c for k, c in enumerate(cs) if k != i and k != j)
        out.append(Setting((cs[i], cs[j]), (back[0], back[1], back[2], back[3], back[4])))
    return tuple(out)


class FoulKind(StrEnum):
    FRONT_COUNT = "front_count"
    BACK_COUNT = "back_count"
    CARDS_NOT_DEALT = "cards_not_dealt"
    FRONT_STRONGER = "front_stronger"


@dataclass(frozen=True, slots=True)
class Foul:
    """Why a setting is foul, with the rule it breaks."""

    kind: FoulKind
    rule: str
    message: str

    def __str__(self) -> str:
        return f"foul ({self.rule}): {self.message}"


def _multiset_diff(a: Sequence[Card], b: Sequence[Card]) -> list[Card]:
    return sorted((Counter(a) - Counter(b)).elements())


def judge_setting(
    front: Sequence[Card],
    back: Sequence[Card],
    dealt: Sequence[Card] | None = None,
    profile: PaiGowProfile = DEFAULT_PROFILE,
) -> Foul | None:
    """``None`` if the hand is set legally, else the first :class:`Foul` found (counts, cards, strength).

    ``dealt`` is the seven cards the seat received; when given, the setting must use exactly them.
    """
    if len(front) != FRONT_SIZE:
        return Foul(
            FoulKind.FRONT_COUNT,
            "seed 000 rule 50b",
            f"front hand has {len(front)} cards ({format_cards(front) or 'none'}), must have exactly 2",
        )
    if len(back) != BACK_SIZE:
        return Foul(
            FoulKind.BACK_COUNT,
            "seed 000 rule 50c",
            f"back hand has {len(back)} cards ({format_cards(back) or 'none'}), must have exactly 5",
        )
    placed = [*front, *back]
    dup = sorted(c for c, n in Counter(placed).items() if n > 1)
    if dup:
        return Foul(
            FoulKind.CARDS_NOT_DEALT,
            "seed 000 rules 42, 50",
            f"the same card appears twice in the setting: {format_cards(dup)}",
        )
    if dealt is not None:
        missing = _multiset_diff(dealt, placed)
        extra = _multiset_diff(placed, dealt)
        if missing or extra:
            parts = []
            if extra:
                parts.append(f"not dealt to this hand: {format_cards(extra)}")
            if missing:
                parts.append(f"dealt but not set: {format_cards(missing)}")
            return Foul(
                FoulKind.CARDS_NOT_DEALT,
                "seed 000 rules 42, 50",
                "setting does not use exactly the seven cards dealt (" + "; ".join(parts) + ")",
            )
    fv = evaluate_two(front, profile)
    bv = evaluate_five(back, profile)
    if fv > bv:
        return Foul(
            FoulKind.FRONT_STRONGER,
            "seed 000 rule 50a",
            f"two-card front hand ({fv.name}) is stronger than the five-card back hand ({bv.name})",
        )
    return None


def is_foul(setting: Setting, profile: PaiGowProfile = DEFAULT_PROFILE) -> bool:
    front_value, back_value = setting.values(profile)
    return front_value > back_value


def legal_settings(cards: Iterable[Card], profile: PaiGowProfile = DEFAULT_PROFILE) -> tuple[Setting, ...]:
    """The settings of seven cards that do not foul (never empty: the best five in back always holds)."""
    return tuple(s for s in all_settings(cards) if not is_foul(s, profile))
