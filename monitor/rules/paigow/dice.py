"""Dice count and pile delivery (Livermore rules 6-9, 21; Napa: "the Player/Dealer is always counted
as 1, 8 or 15").

Conventions (the procedure monitor and the table geometry use the same ones):

* **Seats** are numbered ``1..profile.seats`` clockwise as seen from above, seat 1 at the
  house dealer's left. "Clockwise" from seat ``s`` is ``s + 1`` (wrapping), counterclockwise ``s - 1``.
  The Player-Dealer (banker) occupies one of these seats and receives a pile like everyone else.
* **Dice count**: the banker's seat counts 1 (and so 8 and 15 at a seven-seat table), the next seat in
  ``profile.dice_direction`` counts 2, and so on; the seat the count ends on receives the action pile
  (rule 8). With ``banker_counts_as_one=False`` the count starts at the seat after the banker.
* **Piles** are numbered ``1..profile.seats`` in the order they lie in the middle of the table,
  left to right as the house dealer sees them (the order of the deal, rule 6). The Player-Dealer picks
  the action pile (rule 7). Delivery then continues in pile order, wrapping from the last pile to pile 1,
  while the seats advance in ``profile.delivery_direction`` (default clockwise, as rule 21 has all action
  go clockwise starting with the action button; the seeds do not fix the delivery order itself).
  Every seat receives a pile, including seats without a wager,
  whose hands the dealer then collects (rule 9).

>>> from monitor.rules.profile import DEFAULT_PROFILE
>>> action_seat(3, banker_seat=4, profile=DEFAULT_PROFILE)  # 4 counts 1, 3 counts 2, 2 counts 3
2
>>> delivery_map(action_pile=5, dice=(1, 1, 1), banker_seat=4, profile=DEFAULT_PROFILE)
{5: 2, 6: 3, 7: 4, 1: 5, 2: 6, 3: 7, 4: 1}
"""

from __future__ import annotations

from collections.abc import Sequence

from monitor.rules.paigow.errors import DiceError, SeatError
from monitor.rules.profile import Direction, PaiGowProfile

DICE_COUNT = 3
MIN_TOTAL = 3
MAX_TOTAL = 18


def check_dice(values: Sequence[int]) -> tuple[int, int, int]:
    """Validate one roll of three standard dice; each die must be an integer 1..6."""
    vals = tuple(values)
    if len(vals) != DICE_COUNT:
        raise DiceError(f"a roll is three dice (seed 000 rule 8), got {len(vals)} values: {vals!r}")
    for i, v in enumerate(vals, start=1):
        if isinstance(v, bool) or not isinstance(v, int):
            raise DiceError(f"die {i} of {vals!r} is not an integer: {v!r}")
        if not 1 <= v <= 6:
            raise DiceError(f"die {i} of {vals!r} shows {v}, outside 1..6")
    return (vals[0], vals[1], vals[2])


def check_total(total: int) -> int:
    if isinstance(total, bool) or not isinstance(total, int):
        raise DiceError(f"dice total must be an integer, got {total!r}")
    if not MIN_TOTAL <= total <= MAX_TOTAL:
        raise DiceError(
            f"dice total {total} is impossible with three dice (must be {MIN_TOTAL}..{MAX_TOTAL})"
        )
    return total


def check_seat(seat: int, profile: PaiGowProfile, what: str = "seat") -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= profile.seats:
        raise SeatError(f"{what} {seat!r} is not a seat of this table (1..{profile.seats})")
    return seat


def step(seat: int, n: int, direction: Direction, seats: int) -> int:
    """The seat ``n`` places from ``seat`` going ``direction`` around a table of ``seats`` seats."""
    delta = n if direction is Direction.CLOCKWISE else -n
    return (seat - 1 + delta) % seats + 1


def action_seat(total_or_dice: int | Sequence[int], banker_seat: int, profile: PaiGowProfile) -> int:
    """The seat receiving the action pile for a dice total or three dice (Livermore rule 8, Napa)."""
    if isinstance(total_or_dice, int):
        total = check_total(total_or_dice)
    else:
        d1, d2, d3 = check_dice(total_or_dice)
        total = d1 + d2 + d3
    check_seat(banker_seat, profile, "banker seat")
    # Banker is count 1: count k lands k-1 seats on; otherwise count 1 is the seat after the banker.
    offset = total - 1 if profile.banker_counts_as_one else total
    return step(banker_seat, offset, profile.dice_direction, profile.seats)


def delivery_map(
    action_pile: int, dice: int | Sequence[int], banker_seat: int, profile: PaiGowProfile
) -> dict[int, int]:
    """Which seat each pile must go to: ``{pile: seat}`` in delivery order, the action pile first.

    A pile seen arriving at any other seat is a misdeal (Livermore rules 8, 9, 21; Napa misdeal 4).
    """
    check_seat(action_pile, profile, "action pile")
    first = action_seat(dice, banker_seat, profile)
    n = profile.seats
    return {
        (action_pile - 1 + k) % n + 1: step(first, k, profile.delivery_direction, n) for k in range(n)
    }


def expected_seat(
    pile: int, action_pile: int, dice: int | Sequence[int], banker_seat: int, profile: PaiGowProfile
) -> int:
    """The seat ``pile`` must be delivered to."""
    check_seat(pile, profile, "pile")
    return delivery_map(action_pile, dice, banker_seat, profile)[pile]


def action_order(first_seat: int, banker_seat: int, profile: PaiGowProfile) -> list[int]:
    """Seats in settlement order: from the seat holding the action button, in ``action_direction``,
    the banker's own seat left out (Livermore rule 21)."""
    check_seat(first_seat, profile, "action seat")
    check_seat(banker_seat, profile, "banker seat")
    seats = [step(first_seat, k, profile.action_direction, profile.seats) for k in range(profile.seats)]
    return [s for s in seats if s != banker_seat]
