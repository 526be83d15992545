"""A table's rule profile: every variation between rooms as data, never as code paths.

Defaults follow the Livermore rules (seed ``000_3987c5033707fbb2.txt``); each field
says which seed a non-default choice comes from. Money is in integer cents so that
settlement is exact.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from monitor.rules.errors import ProfileError
from monitor.rules.references import rulebooks


class JokerMode(StrEnum):
    """How the joker plays (Livermore rule 47; Napa; S&K)."""

    # Ace, or completes a straight, flush or straight flush ("the bug").
    BUG = "bug"
    # Fully wild: any card, including making pairs, trips, quads.
    WILD = "wild"


class JokerInFlush(StrEnum):
    """What rank the joker takes inside a flush."""

    # Livermore and Lucky Chances rule 47: "the highest unmatched card in a flush".
    HIGHEST_UNMATCHED = "highest_unmatched"
    # Plays as an ace even when the flush already holds that suit's ace (some Nevada rooms).
    ACE = "ace"


class FiveAces(StrEnum):
    # Livermore and Napa: five aces rank first, above the royal flush.
    ABOVE_ROYAL = "above_royal"
    # Lucky Chances lists royal flush and five aces both as rank 1: they tie.
    TIES_ROYAL = "ties_royal"


class Wheel(StrEnum):
    """Rank of the straight A-2-3-4-5."""

    # Traditional ranking of the seeds: the lowest straight.
    LOWEST = "lowest"
    # Nevada rule: second-highest straight, under A-K-Q-J-T.
    SECOND_HIGHEST = "second_highest"


class Direction(StrEnum):
    CLOCKWISE = "clockwise"
    COUNTERCLOCKWISE = "counterclockwise"


class CollectionTier(BaseModel):
    """Collection (house fee) for bets up to ``up_to`` cents inclusive; ``None`` = any larger bet."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    up_to: int | None = Field(default=None, ge=0)
    fee: int = Field(ge=0)


def sk_collection_schedule() -> tuple[CollectionTier, ...]:
    """S&K Cardroom schedule: $0.50 for $5-$50, $1 for $51-$100, at most $3 above."""
    return (
        CollectionTier(up_to=5000, fee=50),
        CollectionTier(up_to=10000, fee=100),
        CollectionTier(up_to=None, fee=300),
    )


class PaiGowProfile(BaseModel):
    """Rule profile of one Pai Gow table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "livermore"
    # The room's rulebook alerts cite (monitor/rules/references/<rulebook>.yaml): "Livermore Casino Pai Gow
    # Poker, rule 55". A rulebook that shares Livermore's numbers (Lucky Chances) is cited in its own name.
    rulebook: str = "livermore"
    joker_mode: JokerMode = JokerMode.BUG
    joker_in_flush: JokerInFlush = JokerInFlush.HIGHEST_UNMATCHED
    five_aces: FiveAces = FiveAces.ABOVE_ROYAL
    wheel: Wheel = Wheel.LOWEST
    # Dice count (Livermore rule 8; Napa: "the Player/Dealer is always counted as 1, 8 or 15").
    dice_direction: Direction = Direction.COUNTERCLOCKWISE
    banker_counts_as_one: bool = True
    # Action and settlement order (Livermore rule 21: clockwise from the action button).
    action_direction: Direction = Direction.CLOCKWISE
    # Order the piles go round after the action pile (the seeds do not say; rule 21's clockwise action is the
    # default, many rooms deliver counterclockwise like the dice count).
    delivery_direction: Direction = Direction.CLOCKWISE
    # Banker rotation (Livermore rules 3, 40; S&K rotates counterclockwise).
    banker_rotation: Direction = Direction.CLOCKWISE
    banker_max_consecutive: int = Field(default=2, ge=1)
    banker_min_wagers_in_round: int = Field(default=3, ge=0)
    # S&K: "if most players do not wish to bank the game, then any one player can be the banker
    # at all times" - after every eligible seat refused, any seated player may take the bank.
    banker_volunteer_when_all_refuse: bool = False
    seats: int = Field(default=7, ge=2, le=10)
    # Spread limit in cents (Livermore rules 17-19).
    table_min: int = Field(default=500, ge=0)
    table_max: int = Field(default=50000, ge=1)
    collection: tuple[CollectionTier, ...] = Field(default_factory=sk_collection_schedule)
    # Livermore rule 63: free collection for the first four hands of a new game (0 = off).
    free_collection_hands: int = Field(default=0, ge=0)
    # The Player-Dealer's wager is a bet too (Livermore rules 13, 16): collection is taken on it as well.
    banker_pays_collection: bool = True
    house_way: str = "trump_plaza"

    @model_validator(mode="after")
    def _consistent(self) -> PaiGowProfile:
        if self.rulebook not in rulebooks():
            raise ProfileError(f"profile {self.name!r}: no rulebook {self.rulebook!r} "
                               f"(known: {', '.join(sorted(rulebooks()))})")
        if self.table_min > self.table_max:
            raise ProfileError(
                f"profile {self.name!r}: table_min {self.table_min} exceeds table_max {self.table_max}"
            )
        tiers = [t.up_to for t in self.collection]
        bounded = [t for t in tiers if t is not None]
        if bounded != sorted(bounded) or (None in tiers and tiers[-1] is not None) or tiers.count(None) > 1:
            raise ProfileError(
                f"profile {self.name!r}: collection tiers must rise and only the last may be open-ended"
            )
        return self

    def collection_fee(self, bet: int, hand_number_in_game: int | None = None) -> int:
        """Fee in cents taken in advance on ``bet`` (Livermore rule 16), free for the first hands
        (rule 63)."""
        if hand_number_in_game is not None and hand_number_in_game <= self.free_collection_hands:
            return 0
        for tier in self.collection:
            if tier.up_to is None or bet <= tier.up_to:
                return tier.fee
        return 0

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> PaiGowProfile:
        """Build from parsed YAML/JSON; errors name the field."""
        return cls.model_validate(data)


DEFAULT_PROFILE = PaiGowProfile()
LIVERMORE = DEFAULT_PROFILE
LUCKY_CHANCES = PaiGowProfile(name="lucky_chances", rulebook="lucky_chances", five_aces=FiveAces.TIES_ROYAL)
NAPA = PaiGowProfile(name="napa", rulebook="napa", joker_in_flush=JokerInFlush.ACE)
NEVADA_WHEEL = PaiGowProfile(name="nevada_wheel", wheel=Wheel.SECOND_HIGHEST)
S_AND_K = PaiGowProfile(
    name="s_and_k",
    rulebook="s_and_k",
    joker_mode=JokerMode.BUG,
    banker_rotation=Direction.COUNTERCLOCKWISE,
    banker_volunteer_when_all_refuse=True,
)
