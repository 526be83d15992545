"""Showdowns of the seed 004 poker games: winners, hi-lo halves, ties, odd chips, side pots, errors."""

import pytest

from monitor.rules.cards import parse_cards
from monitor.rules.errors import CardCountError, CardNotInDeckError, DuplicateCardError, RulesError
from monitor.rules.games.poker import GAMES, Pot, showdown
from monitor.rules.games.profile import (
    GameProfile,
    HoleCardUse,
    OddChipHalf,
    OddChipTie,
    PokerRules,
)
from monitor.rules.hands import Category


def sd(game: str, board: str, pot: int | None = 1000, profile: GameProfile | None = None,
       pots: list[Pot] | None = None, **hands: str):  # type: ignore[no-untyped-def]
    kwargs = {"profile": profile} if profile is not None else {}
    return showdown(game, parse_cards(board), {w: parse_cards(h) for w, h in hands.items()}, pot=pot,
                    pots=pots, **kwargs)


def test_holdem_board_plays_and_ties_split() -> None:
    r = sd("holdem", "As Ks Qs Js Ts", s1="2c 3d", s2="4h 5h")
    assert r.won == {"s1": 500, "s2": 500}
    assert r.pots[0].high_winners == ("s1", "s2")
    assert "royal flush" in r.reason and "(tie)" in r.reason


def test_holdem_best_hand_wins_and_names_the_five_cards() -> None:
    r = sd("holdem", "2c 7d 9h Jc Kd", s1="Ah Ad", s2="Kh Qc", s3="3s 4s")
    assert r.won == {"s1": 1000}
    assert r.hands["s1"].high is not None and r.hands["s1"].high.category is Category.ONE_PAIR
    assert r.reason == "pot 1000: high to s1 with pair of aces, king high (Ah Ad 9h Jc Kd) 1000"


def test_hilo_no_qualifying_low_high_scoops() -> None:
    r = sd("holdem_hilo", "Kh Qd 9c 9s 2h", s1="Ah 3c", s2="Kc Kd")
    assert r.won == {"s2": 1000} and r.pots[0].low_winners == ()
    assert "no qualifying low" in r.reason


def test_hilo_split_and_quartered_low_with_odd_chip_left_of_button() -> None:
    # Low half 500 split in $1 chips between two tied lows: 300 to the first left of the button.
    r = sd("holdem_hilo", "Ah 2d 7c Kd 9s", s1="3c 4c", s2="3d 4d", s3="Kc Ks")
    p = r.pots[0]
    assert p.high_winners == ("s3",) and p.low_winners == ("s1", "s2")
    assert r.won == {"s3": 500, "s1": 300, "s2": 200}
    assert "low to s1 with 7-4-3-2-A" in r.reason


def test_odd_chip_by_high_card_and_suit_is_a_profile_setting() -> None:
    prof = GameProfile(poker=PokerRules(odd_chip_tie=OddChipTie.HIGH_CARD_BY_SUIT))
    r = sd("holdem_hilo", "Ah 2d 7c Kd 9s", profile=prof, s1="3c 4c", s2="3d 4d", s3="Kc Ks")
    assert r.won == {"s3": 500, "s2": 300, "s1": 200}  # the four of diamonds outranks the four of clubs


@pytest.mark.parametrize(("half", "high", "low"), [(OddChipHalf.HIGH, 400, 300), (OddChipHalf.LOW, 300, 400)])
def test_odd_chip_between_the_halves(half: OddChipHalf, high: int, low: int) -> None:
    prof = GameProfile(poker=PokerRules(odd_chip_half=half))
    r = sd("holdem_hilo", "Ah 2d 7c Kd 9s", pot=700, profile=prof, s1="3c 4c", s3="Kc Ks")
    assert r.won == {"s3": high, "s1": low}


def test_amounts_below_one_chip_ride_with_the_odd_chip() -> None:
    r = sd("holdem_hilo", "Ah 2d 7c Kd 9s", pot=750, s1="3c 4c", s3="Kc Ks")
    assert r.won == {"s3": 450, "s1": 300} and sum(r.won.values()) == 750


def test_side_pots() -> None:
    pots = [Pot(300, ("s1", "s2", "s3")), Pot(600, ("s2", "s3"))]
    r = sd("holdem", "2c 7d 9h Jc Kd", pot=None, pots=pots, s1="Ah Ad", s2="Kh Qc", s3="3s 4s")
    assert r.won == {"s1": 300, "s2": 600}
    assert r.reason.startswith("main pot 300: high to s1") and "side pot 1 600: high to s2" in r.reason


def test_omaha_uses_exactly_two_hole_cards() -> None:
    # Hold'em rules would give s1 a royal flush; in Omaha one heart in the hand makes no flush.
    r = sd("omaha", "Ah Kh Qh Jh 2c", s1="Th 3c 4d 5s", s2="9h 8h 3d 3s")
    h1 = r.hands["s1"].high
    assert h1 is not None and h1.category is Category.HIGH_CARD
    assert r.won == {"s2": 1000} and "flush" in r.reason
    assert sd("holdem", "Ah Kh Qh Jh 2c", s1="Th 3c").hands["s1"].high.category is Category.ROYAL_FLUSH


def test_omaha_hilo_scoop_with_a_wheel() -> None:
    r = sd("omaha_hilo", "Ah 2d 5c Kd 9s", s1="3c 4c Qd Qs", s2="Kc Ks 7h 7d")
    p = r.pots[0]
    assert p.high_winners == ("s1",) and p.low_winners == ("s1",)
    assert r.won == {"s1": 1000} and "(s1 scoops)" in r.reason
    assert r.hands["s2"].low is None  # one low rank in the hand: no low


def test_holdem_hilo_hole_card_rule_is_a_profile_setting() -> None:
    board = "Ah 2d 3c 4d 5h"
    assert sd("holdem_hilo", board, s1="Kc Kd").hands["s1"].low is not None  # plays the board
    two = GameProfile(poker=PokerRules(holdem_hilo_hole_cards=HoleCardUse.EXACTLY_TWO))
    assert sd("holdem_hilo", board, profile=two, s1="Kc Kd").hands["s1"].low is None


def test_pineapple_any_five_of_eight_and_playing_the_board() -> None:
    r = sd("pineapple", "As Ks Qs Js Ts", s1="2c 3d 4h", s2="9s 5h 6h")
    assert r.won == {"s1": 500, "s2": 500}
    r = sd("pineapple", "2c 7d 9h Jc Kd", s1="Ah Ad As", s2="Kh Kc 3s")
    assert r.won == {"s1": 1000} and "three aces" in r.reason


def test_lowball_lowest_hand_wins_joker_lowest_card() -> None:
    r = sd("lowball", "", pot=900, s1="Jk 7d 5c 3s 2h", s2="6d 5h 4c 3d 2c")
    assert r.won == {"s2": 900} and "low to s2 with 6-5-4-3-2" in r.reason
    r = sd("lowball", "", pot=900, s1="Jk 7d 5c 3s 2h", s2="7h 5h 3c 2d Ac")
    assert r.pots[0].low_winners == ("s1", "s2")
    no_joker = GameProfile(poker=PokerRules(lowball_jokers=0))
    with pytest.raises(CardNotInDeckError, match="Jk not in the standard 52-card deck"):
        showdown("lowball", (), {"s1": parse_cards("Jk 7d 5c 3s 2h")}, pot=100, profile=no_joker)


@pytest.mark.parametrize(
    ("game", "board", "hands", "error", "fragment"),
    [
        ("holdem", "2c 7d 9h Jc Kd", {"a": "Ah Ad", "b": "Ah Kc"}, DuplicateCardError,
         "the same card in two places: Ah in a's hand and b's hand"),
        ("holdem", "2c 7d 9h Jc Kd", {"a": "Ah Kd"}, DuplicateCardError, "Kd in the board and a's hand"),
        ("holdem", "2c 7d 9h Jc 2c", {"a": "Ah Kd"}, DuplicateCardError, "Texas Hold'em board: card"),
        ("holdem", "2c 7d 9h Jc Kd", {"a": "Ah Jk"}, CardNotInDeckError, "a's Texas Hold'em hand: Jk"),
        ("holdem", "2c 7d 9h Jc", {"a": "Ah Ad"}, CardCountError, "board of 5 cards, got 4"),
        ("omaha", "2c 7d 9h Jc Kd", {"a": "Ah Ad Kh"}, CardCountError, "a shows 3 cards, Omaha hands are 4"),
        ("pineapple", "2c 7d 9h Jc Kd", {"a": "Ah Ad"}, CardCountError, "Pineapple hands are 3"),
        ("lowball", "", {"a": "Ah Ad 2c 3c"}, CardCountError, "Lo-Ball hands are 5"),
        ("stud", "", {"a": "Ah Ad"}, RulesError, "unknown poker game 'stud'"),
    ],
)
def test_impossible_input(game: str, board: str, hands: dict[str, str], error: type[Exception],
                          fragment: str) -> None:
    with pytest.raises(error, match=fragment.replace("(", r"\(").replace("'", "'")):
        showdown(game, parse_cards(board), {w: parse_cards(h) for w, h in hands.items()}, pot=100)


def test_pot_input_errors() -> None:
    board, hands = parse_cards("2c 7d 9h Jc Kd"), {"a": parse_cards("Ah Ad")}
    with pytest.raises(RulesError, match="either one pot amount or a list of pots"):
        showdown("holdem", board, hands)
    with pytest.raises(RulesError, match="eligible players zz have no hand"):
        showdown("holdem", board, hands, pots=[Pot(100, ("a", "zz"))])
    with pytest.raises(RulesError, match="must not be negative"):
        showdown("holdem", board, hands, pot=-5)


def test_every_game_is_listed_with_its_seed_reference() -> None:
    assert set(GAMES) == {"holdem", "holdem_hilo", "omaha", "omaha_hilo", "pineapple", "lowball"}
    assert all(g.seed_ref.startswith("seed 004") for g in GAMES.values())


def test_check_payout_names_the_wrong_award() -> None:
    r = sd("holdem_hilo", "Ah 2d 7c Kd 9s", s1="3c 4c", s2="3d 4d", s3="Kc Ks")
    assert r.check_payout({"s3": 500, "s1": 300, "s2": 200}) == ()
    # The whole pot pushed to the high hand: the low half was not paid.
    wrong = r.check_payout({"s3": 1000})
    assert wrong[:3] == (
        "s1 was paid 0, the showdown gives 300",
        "s2 was paid 0, the showdown gives 200",
        "s3 was paid 1000, the showdown gives 500",
    )
    assert wrong[3].startswith("showdown: pot 1000: high to s3")
    extra = r.check_payout({"s3": 500, "s1": 300, "s2": 200, "s9": 5})
    assert extra[0] == "s9 was paid 5 but has no hand at the showdown"
