"""Rule profile of the room's other games (seed ``004_de25eb682010f199.txt``): every variation as data.

Each field names the seed text it comes from, or says the seed is silent and which common
cardroom practice the default follows. Amounts are integers in the table's smallest unit
(cents for the poker games, chips for Pan).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from monitor.rules.errors import ProfileError


class OddChipHalf(StrEnum):
    """Which half of a hi-lo pot gets the odd chip when the pot does not split evenly (seed silent)."""

    HIGH = "high"  # the usual cardroom rule
    LOW = "low"


class OddChipTie(StrEnum):
    """Who gets the odd chip when tied hands split a pot (or a half) (seed silent)."""

    # The tied player first to the left of the button (players are given in that order).
    LEFT_OF_BUTTON = "left_of_button"
    # The tied player holding the highest hole card by rank, then suit (spades, hearts, diamonds, clubs).
    HIGH_CARD_BY_SUIT = "high_card_by_suit"


class HoleCardUse(StrEnum):
    """How hole and board cards make a hand."""

    # Any five of the player's and the board's cards (Hold'em, Pineapple; Poker Games "ANY COMBINATION").
    ANY = "any"
    # Exactly two hole cards and three board cards (Omaha; Poker Games "2, and only 2 of these 4 cards").
    EXACTLY_TWO = "exactly_two"


class PanMixedSet(StrEnum):
    """What a set of mixed suits must look like (Poker Games Pan definition (a))."""

    # The seed's words: "in 3 or more suits" (e.g. 4d 4h 4s 4d is a set: three suits among them).
    THREE_SUITS = "three_suits"
    # Traditional Panguingue: no suit repeated in a mixed set (so at most four cards).
    ALL_DIFFERENT = "all_different"


class HouseRateTier(BaseModel):
    """House rate (chips) taken from the Pan antes when ``players`` is at most ``up_to_players``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    up_to_players: int = Field(ge=1)
    chips: int = Field(ge=0)


def pan_house_rate_first() -> tuple[HouseRateTier, ...]:
    """Poker Games, first Pan section rule 3: 1 chip for 4 or fewer, 2 for 5, 3 for 6 or 7 players."""
    return (
        HouseRateTier(up_to_players=4, chips=1),
        HouseRateTier(up_to_players=5, chips=2),
        HouseRateTier(up_to_players=7, chips=3),
    )


def pan_house_rate_second() -> tuple[HouseRateTier, ...]:
    """Poker Games, second Pan section rule 3: 1 chip for fewer than 5, 2 chips for 5, 6 or 7 players."""
    return (HouseRateTier(up_to_players=4, chips=1), HouseRateTier(up_to_players=7, chips=2))


class PokerRules(BaseModel):
    """Hold'em, Omaha, Pineapple and Lo-Ball."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    # Smallest chip in play (cents): pots split in whole chips, the odd chip goes by the rules below.
    smallest_chip: int = Field(default=100, ge=1)
    odd_chip_half: OddChipHalf = OddChipHalf.HIGH
    odd_chip_tie: OddChipTie = OddChipTie.LEFT_OF_BUTTON
    # Poker Games Hold'em order of play 3-5: one burn before the flop, the turn and the river.
    # The Omaha and Pineapple sections are silent; the room deals them the same way.
    burn_before_board: bool = True
    # Poker Games Lo-Ball is silent on a burn before the draw; California draw games burn one.
    burn_before_draw: bool = True
    # Poker Games first Hold'em section: "PLAYERS' CARDS MAY BE USED FOR BOTH HIGH AND LOW" (any cards).
    # Its later "Texas Hold-em Hi-Lo Split" page says "exactly two hole cards" (Omaha wording): a setting.
    holdem_hilo_hole_cards: HoleCardUse = HoleCardUse.ANY
    # Poker Games Lo-Ball: "THE GAME IS PLAYED WITH (1) JOKER" (0 for a room that deals it without).
    lowball_jokers: int = Field(default=1, ge=0, le=1)
    # Lo-Ball: how many cards a player may draw (seed silent; 5 = may replace the whole hand).
    lowball_max_draw: int = Field(default=5, ge=0, le=5)


class PushNineRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    # Poker Games Push-Nine: "if the pot is $20.00, the amount of the buy-in is ten dollars" (half).
    buy_in_numerator: int = Field(default=1, ge=0)
    buy_in_denominator: int = Field(default=2, ge=1)
    # Poker Games: "There can be 10 players at each individual table".
    max_players: int = Field(default=10, ge=2, le=17)


class PanRules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    # Number of 40-card decks shuffled together (seed silent; rooms use 5 to 8, commonly 8).
    decks: int = Field(default=8, ge=1, le=12)
    mixed_set: PanMixedSet = PanMixedSet.THREE_SUITS
    # Poker Games Pan rule 2: "EACH PLAYER IS DEALT (10) CARDS"; rule 5: eleven melded cards win.
    hand_size: int = 10
    winning_meld: int = 11
    ante: int = Field(default=1, ge=0)  # rule 1: one chip
    win_chips: int = Field(default=2, ge=0)  # rule 5: two chips from each player in the hand
    house_rate: tuple[HouseRateTier, ...] = Field(default_factory=pan_house_rate_first)

    @model_validator(mode="after")
    def _consistent(self) -> PanRules:
        ups = [t.up_to_players for t in self.house_rate]
        if not ups or ups != sorted(set(ups)):
            raise ProfileError(f"Pan house_rate tiers must have rising up_to_players, got {ups}")
        if self.winning_meld != self.hand_size + 1:
            raise ProfileError(
                f"Pan winning_meld {self.winning_meld} must be hand_size + 1 = {self.hand_size + 1}"
            )
        return self

    @property
    def max_players(self) -> int:
        return self.house_rate[-1].up_to_players


class GameProfile(BaseModel):
    """The rule profile of one table dealing the Poker Games rulebook's games."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str = "seed004"
    # The rulebook the table's alerts cite (monitor/rules/references/<rulebook>.yaml).
    rulebook: Literal["poker_games"] = "poker_games"
    poker: PokerRules = Field(default_factory=PokerRules)
    push_nine: PushNineRules = Field(default_factory=PushNineRules)
    pan: PanRules = Field(default_factory=PanRules)

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> GameProfile:
        """Build from parsed YAML/JSON; pydantic's errors name the offending field."""
        return cls.model_validate(data)


DEFAULT_GAME_PROFILE = GameProfile()
# The second Pan page of Poker Games: two chips for a 5, 6 or 7 handed game.
PAN_SECOND_SCHEDULE = GameProfile(name="seed004_pan_second", pan=PanRules(house_rate=pan_house_rate_second()))
