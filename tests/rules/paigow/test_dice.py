"""Dice count and pile delivery: seed 000 rules 6-9, 21; seed 001 (banker is 1, 8, 15; misdeal 4)."""

from __future__ import annotations

import pytest

from monitor.rules.paigow.dice import action_order, action_seat, check_dice, delivery_map, expected_seat
from monitor.rules.paigow.errors import DiceError, SeatError
from monitor.rules.profile import DEFAULT_PROFILE, Direction, PaiGowProfile

CW = PaiGowProfile(dice_direction=Direction.CLOCKWISE)


@pytest.mark.parametrize("total", [1, 8, 15])
def test_seed001_banker_counts_as_1_8_15(total: int) -> None:
    if total == 1:
        with pytest.raises(DiceError, match="impossible"):
            action_seat(total, banker_seat=3, profile=DEFAULT_PROFILE)
    else:
        assert action_seat(total, banker_seat=3, profile=DEFAULT_PROFILE) == 3


def test_seed000_rule8_count_goes_in_profile_direction() -> None:
    # Counterclockwise (default): banker 3 is 1, seat 2 is 2, seat 1 is 3, seat 7 is 4.
    assert action_seat(4, banker_seat=3, profile=DEFAULT_PROFILE) == 7
    # Clockwise: seat 4 is 2, 5 is 3, 6 is 4.
    assert action_seat(4, banker_seat=3, profile=CW) == 6
    assert action_seat((1, 1, 2), banker_seat=3, profile=CW) == 6


def test_banker_not_counted_as_one_shifts_by_one() -> None:
    p = PaiGowProfile(banker_counts_as_one=False, dice_direction=Direction.CLOCKWISE)
    assert action_seat(7, banker_seat=3, profile=p) == 3  # the seat after the banker counts 1
    assert action_seat(3, banker_seat=3, profile=p) == 6


@pytest.mark.parametrize(
    ("dice", "msg"),
    [((0, 3, 4), "die 1"), ((1, 7, 2), "die 2 .* shows 7"), ((1, 2), "three dice"),
     ((1, 2, 3, 4), "three dice"),
     ((1, 2, "3"), "not an integer"), ((1, 2, True), "not an integer")],
)
def test_bad_dice_rejected_naming_the_die(dice: tuple[object, ...], msg: str) -> None:
    with pytest.raises(DiceError, match=msg):
        check_dice(dice)  # type: ignore[arg-type]


@pytest.mark.parametrize("total", [2, 19, -1])
def test_impossible_totals_rejected(total: int) -> None:
    with pytest.raises(DiceError, match=str(total)):
        action_seat(total, banker_seat=1, profile=DEFAULT_PROFILE)


def test_bad_seat_and_pile_rejected() -> None:
    with pytest.raises(SeatError, match="banker seat 8"):
        action_seat(9, banker_seat=8, profile=DEFAULT_PROFILE)
    with pytest.raises(SeatError, match="action pile 0"):
        delivery_map(0, 9, banker_seat=1, profile=DEFAULT_PROFILE)


def test_delivery_map_rules_8_9_21_every_pile_to_one_seat() -> None:
    m = delivery_map(action_pile=6, dice=10, banker_seat=5, profile=DEFAULT_PROFILE)
    # 10 counterclockwise from banker 5: 5,4,3,2,1,7,6,5,4,3 -> seat 3 gets the action pile.
    assert next(iter(m.items())) == (6, 3)
    assert sorted(m) == list(range(1, 8)) and sorted(m.values()) == list(range(1, 8))
    # The next pile in order (7) goes to the next seat clockwise (4), then pile 1 to seat 5.
    assert m[7] == 4 and m[1] == 5 and m[5] == 2


def test_seed001_misdeal4_wrong_seat_detectable() -> None:
    m = delivery_map(1, (2, 2, 3), banker_seat=1, profile=DEFAULT_PROFILE)
    for pile, seat in m.items():
        assert expected_seat(pile, 1, (2, 2, 3), 1, DEFAULT_PROFILE) == seat
    wrong = {p: (s % 7) + 1 for p, s in m.items()}
    assert all(wrong[p] != expected_seat(p, 1, (2, 2, 3), 1, DEFAULT_PROFILE) for p in m)


def test_action_order_rule21_clockwise_from_button_without_banker() -> None:
    assert action_order(6, banker_seat=2, profile=DEFAULT_PROFILE) == [6, 7, 1, 3, 4, 5]
    ccw = PaiGowProfile(action_direction=Direction.COUNTERCLOCKWISE)
    assert action_order(6, banker_seat=2, profile=ccw) == [6, 5, 4, 3, 1, 7]
    # The banker's own pile may be the action pile: settlement starts at the next seat.
    assert action_order(2, banker_seat=2, profile=DEFAULT_PROFILE) == [3, 4, 5, 6, 7, 1]


def test_delivery_direction_is_a_profile_setting() -> None:
    ccw = PaiGowProfile(delivery_direction=Direction.COUNTERCLOCKWISE)
    m = delivery_map(action_pile=6, dice=10, banker_seat=5, profile=ccw)
    assert m[6] == 3 and m[7] == 2 and m[1] == 1 and m[5] == 4
