"""Ace-to-five low (Lo-Ball with its joker) and the eight-or-better qualifier."""

import pytest

from monitor.rules.cards import parse_cards
from monitor.rules.errors import CardCountError, DuplicateCardError
from monitor.rules.games.low import (
    LowCategory,
    best_low,
    eight_or_better_any,
    eight_or_better_omaha,
    evaluate_low,
)


def low(text: str):  # type: ignore[no-untyped-def]
    return evaluate_low(parse_cards(text))


def test_wheel_is_the_best_and_straights_flushes_do_not_count() -> None:
    wheel = low("5h 4h 3h 2h Ah")  # a straight flush in high poker
    assert wheel.name == "5-4-3-2-A" and wheel.category is LowCategory.NO_PAIR
    assert wheel > low("6d 4c 3s 2h Ah") > low("6d 5c 3s 2h Ah") > low("Kd Qc Js Th 9h")


def test_order_from_the_top_card_down() -> None:
    ordered = [
        "5c 4d 3h 2s Ac", "6c 4d 3h 2s Ac", "6c 5d 4h 3s 2c", "7c 4d 3h 2s Ac", "8c 6d 4h 2s Ac",
        "8c 7d 6h 5s 4c", "9c 2d 3h 4s 5c", "Kc Qd Jh Ts 9c",
    ]
    values = [low(h) for h in ordered]
    assert values == sorted(values, reverse=True)


def test_any_pair_loses_to_no_pair_and_pairing_order() -> None:
    assert low("Kc Qd Jh Ts 9c") > low("Ac Ad 2h 3s 4c")
    assert low("Ac Ad 2h 3s 4c") > low("2c 2d Ah 3s 4c")  # pair of aces beats pair of twos
    assert low("2c 2d Ah 3s 4c") > low("Ac Ad 2h 2s 3c")  # one pair beats two pair
    assert low("Ac Ad 2h 2s 3c") > low("Ac Ad Ah 2s 3c")
    assert low("Ac Ad Ah 2s 3c") > low("Ac Ad Ah 2s 2c")  # trips beat a full house
    assert low("Ac Ad Ah 2s 2c") > low("Ac Ad Ah As 2c")
    assert low("Ac Ad 2h 3s 4c").name == "pair of aces, 4-3-2"


@pytest.mark.parametrize(
    ("hand", "plays_as"),
    [
        ("Jk 7d 5c 3s 2h", "7c 5d 3h 2c Ac"),  # lowest card not in the hand: the ace
        ("Jk Ad 5c 3s 2h", "4c Ad 5d 3h 2c"),  # ace present: the joker is a four
        ("Jk Ad 2c 3s 4h", "5c Ad 2d 3h 4c"),  # the wheel
        ("Jk Kd Kc Ks Kh", "Ac Kd Kc Ks Kh"),
        ("Jk Ad Ac As Ah", "2c Ad Ac As Ah"),  # never a fifth ace: four aces, two
    ],
)
def test_joker_is_the_lowest_card_not_already_in_the_hand(hand: str, plays_as: str) -> None:
    assert low(hand) == low(plays_as)


def test_low_input_errors() -> None:
    with pytest.raises(CardCountError, match="a low hand is 5 cards, got 4"):
        low("Ah 2h 3h 4h")
    with pytest.raises(DuplicateCardError, match="more than one joker"):
        evaluate_low(parse_cards("Jk Jk 2h 3h 4h"))


def test_best_low_of_seven() -> None:
    v, five = best_low(parse_cards("Kc Kd 7h 5s 4c 2d Ah"))
    assert v.name == "7-5-4-2-A" and len(five) == 5


def test_eight_or_better_qualifier() -> None:
    assert low("8c 7d 6h 5s 4c").qualifies_eight
    assert not low("9c 4d 3h 2s Ac").qualifies_eight
    assert not low("Ac Ad 2h 3s 4c").qualifies_eight


def test_eight_or_better_any_cards_can_play_the_board() -> None:
    v = eight_or_better_any(parse_cards("Kc Kd Ah 2s 3c 4d 5h"))
    assert v is not None and v.name == "5-4-3-2-A"
    assert eight_or_better_any(parse_cards("Kc Kd Ah 2s 3c 9d 9h")) is None  # only four low ranks
    assert eight_or_better_any(parse_cards("Ac Ad 2h 2s 3c 3d 8h")) is None  # pairs do not help


def test_eight_or_better_omaha_needs_two_hole_and_three_board_cards() -> None:
    board = parse_cards("Ah 2s 3c 4d 5h")
    assert eight_or_better_omaha(parse_cards("Kc Kd Qc Qd"), board) is None  # no playing the board
    assert eight_or_better_omaha(parse_cards("Ac Kd Qc Qd"), board) is None  # one low hole card only
    v = eight_or_better_omaha(parse_cards("6c 8d Qc Qd"), board)
    assert v is not None and v.name == "8-6-3-2-A"
    # Two hole cards of the same rank give only one low rank: no low with a 2-card board low.
    assert eight_or_better_omaha(parse_cards("Ac Ad Kc Kd"), parse_cards("2h 3s Kh Qd 9c")) is None
    v = eight_or_better_omaha(parse_cards("Ac 2d 3c 4d"), parse_cards("2h 3s 7h Kd 9c"))
    assert v is not None and v.name == "7-4-3-2-A"  # the best two hole cards, not the first two


def test_lowball_draw_is_checked_card_by_card() -> None:
    from monitor.rules.errors import RulesError
    from monitor.rules.games.lowball import check_draw

    hand = parse_cards("Kh 7d 5c 3s 2h")
    d = check_draw("s1", hand, parse_cards("Kh"), parse_cards("Jk"), parse_cards("Jk 7d 5c 3s 2h"))
    assert d.after.name == "7-5-3-2-A"
    with pytest.raises(CardCountError, match="discarded 1 card\\(s\\) but drew 2"):
        check_draw("s1", hand, parse_cards("Kh"), parse_cards("4d 6d"), parse_cards("4d 7d 5c 3s 2h"))
    with pytest.raises(RulesError, match="discarded Qd, not in the hand"):
        check_draw("s1", hand, parse_cards("Qd"), parse_cards("4d"), parse_cards("4d 7d 5c 3s 2h"))
    with pytest.raises(RulesError, match="missing 4d, extra Kh"):
        check_draw("s1", hand, parse_cards("Kh"), parse_cards("4d"), parse_cards("Kh 7d 5c 3s 2h"))
    with pytest.raises(RulesError, match="drew 7d, already in the hand"):
        check_draw("s1", hand, parse_cards("Kh"), parse_cards("7d"), parse_cards("6d 7d 5c 3s 2h"))
