"""Deciding one spot against the Player-Dealer (banker).

* Livermore rule 2: the player wins only if both hands are higher; if both are the same or lower the
  Player-Dealer wins; one higher and one lower is a push.
* Livermore rule 62 ("copy"): a hand of the same value as the banker's goes to the banker.
* Livermore rule 49: a foul hand loses for the player who set it; every other player betting on that spot
  is settled on the hand set the house way.
* Livermore rule 54 (Napa likewise): the banker may not set his hand foul; it is reset the house way
  and play continues.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from monitor.rules.cards import Card
from monitor.rules.hands import HandValue, evaluate_five, evaluate_two
from monitor.rules.paigow.setting import Foul, Setting, judge_setting
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

# A house way as the showdown needs it: seven cards -> a legal setting.
HouseWayFn = Callable[[Sequence[Card]], Setting]


class Outcome(StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


@dataclass(frozen=True, slots=True)
class HandComparison:
    """One spot's hands against the banker's: ``front``/``back`` are +1 player higher, -1 banker wins."""

    front: int
    back: int
    front_copy: bool
    back_copy: bool

    @property
    def outcome(self) -> Outcome:
        if self.front > 0 and self.back > 0:
            return Outcome.WIN
        if self.front < 0 and self.back < 0:
            return Outcome.LOSE
        return Outcome.PUSH


def compare_values(
    player: tuple[HandValue, HandValue], banker: tuple[HandValue, HandValue]
) -> HandComparison:
    """Compare (front, back) values; a copy counts as the banker's (rule 62)."""
    (pf, pb), (bf, bb) = player, banker
    return HandComparison(
        front=1 if pf > bf else -1,
        back=1 if pb > bb else -1,
        front_copy=pf == bf,
        back_copy=pb == bb,
    )


def compare_settings(
    player: Setting, banker: Setting, profile: PaiGowProfile = DEFAULT_PROFILE
) -> HandComparison:
    return compare_values(player.values(profile), banker.values(profile))


@dataclass(frozen=True, slots=True)
class BankerHand:
    """The banker's setting that plays, and the foul that forced a house-way reset (rule 54), if any."""

    setting: Setting
    reset_foul: Foul | None = None


def banker_hand(
    front: Sequence[Card],
    back: Sequence[Card],
    dealt: Sequence[Card],
    house_way: HouseWayFn,
    profile: PaiGowProfile = DEFAULT_PROFILE,
) -> BankerHand:
    """The banker's hand as it plays: as set, or reset the house way if the setting fouls (rule 54)."""
    foul = judge_setting(front, back, dealt, profile)
    if foul is None:
        return BankerHand(Setting.of(front, back))
    return BankerHand(house_way(dealt), foul)


@dataclass(frozen=True, slots=True)
class SpotResult:
    """How one spot ends.

    ``outcome`` is the active bettor's result (he set the hand, rules 26, 28); ``backline_outcome`` is the
    result for everyone else betting on the spot - the same unless the active setting fouled, in which
    case it is the house-way setting's result (rule 49).
    """

    seat: int
    outcome: Outcome
    backline_outcome: Outcome
    foul: Foul | None = None
    comparison: HandComparison | None = None
    house_way_setting: Setting | None = None
    house_way_comparison: HandComparison | None = None

    @property
    def rule(self) -> str:
        if self.foul is not None:
            return "seed 000 rule 49"
        return "seed 000 rules 2, 62"


def decide_spot(
    seat: int,
    front: Sequence[Card],
    back: Sequence[Card],
    dealt: Sequence[Card],
    banker: Setting,
    house_way: HouseWayFn,
    profile: PaiGowProfile = DEFAULT_PROFILE,
) -> SpotResult:
    """Judge one spot's setting (as placed) against the banker's playing setting."""
    banker_values = banker.values(profile)
    foul = judge_setting(front, back, dealt, profile)
    if foul is None:
        cmp = compare_values((evaluate_two(front, profile), evaluate_five(back, profile)), banker_values)
        return SpotResult(seat, cmp.outcome, cmp.outcome, comparison=cmp)
    hw = house_way(dealt)
    hw_cmp = compare_values(hw.values(profile), banker_values)
    return SpotResult(
        seat,
        Outcome.LOSE,
        hw_cmp.outcome,
        foul=foul,
        house_way_setting=hw,
        house_way_comparison=hw_cmp,
    )
