"""Hand values: the seeds' ranking list, every profile variation, two-card values, input errors."""

from __future__ import annotations

import pytest

from monitor.rules.errors import CardCountError, CardParseError, DuplicateCardError, RulesError
from monitor.rules.hands import Category, HandValue, best_five, evaluate_five, evaluate_two
from monitor.rules.profile import (
    DEFAULT_PROFILE,
    LUCKY_CHANCES,
    NAPA,
    NEVADA_WHEEL,
    JokerInFlush,
    JokerMode,
    PaiGowProfile,
)

WILD = PaiGowProfile(name="wild", joker_mode=JokerMode.WILD)


def five(text: str, profile: PaiGowProfile = DEFAULT_PROFILE) -> HandValue:
    return evaluate_five(text, profile)


# One hand per rank of seed 000's list, strongest first.
LADDER = [
    ("As Ah Ad Ac Jk", Category.FIVE_ACES, "five aces"),
    ("As Ks Qs Js Ts", Category.ROYAL_FLUSH, "royal flush"),
    ("9h Th Jh Qh Kh", Category.STRAIGHT_FLUSH, "king-high straight flush"),
    ("Ac 2c 3c 4c 5c", Category.STRAIGHT_FLUSH, "five-high straight flush (wheel)"),
    ("7s 7h 7d 7c 2s", Category.FOUR_OF_A_KIND, "four sevens, two high"),
    ("Ks Kh Kd 5c 5s", Category.FULL_HOUSE, "kings full of fives"),
    ("As Js 9s 5s 2s", Category.FLUSH, "ace-high flush: jack, nine, five, two"),
    ("Ts Jh Qd Kc As", Category.STRAIGHT, "ace-high straight"),
    ("As 2h 3d 4c 5s", Category.STRAIGHT, "five-high straight (wheel)"),
    ("6s 6h 6d Kc 2s", Category.THREE_OF_A_KIND, "three sixes, king high"),
    ("Ks Kh 5d 5c As", Category.TWO_PAIR, "two pair, kings and fives, ace high"),
    ("Kh Kd As 9c 5d", Category.ONE_PAIR, "pair of kings, ace high"),
    ("As Kd 9h 5c 3s", Category.HIGH_CARD, "ace high: king, nine, five, three"),
]


@pytest.mark.parametrize(("text", "category", "name"), LADDER)
def test_categories_and_names(text: str, category: Category, name: str) -> None:
    v = five(text)
    assert v.category is category
    assert v.name == name


def test_ladder_is_strictly_descending() -> None:
    scores = [five(t).score for t, _, _ in LADDER]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)


@pytest.mark.parametrize(
    ("text", "category", "name"),
    [
        ("As Ks Qs Js Jk", Category.ROYAL_FLUSH, "royal flush"),
        ("Jk Ks Qs Js Ts", Category.ROYAL_FLUSH, "royal flush"),
        ("9s Ts Js Qs Jk", Category.STRAIGHT_FLUSH, "king-high straight flush"),
        ("2d 3d 4d 5d Jk", Category.STRAIGHT_FLUSH, "six-high straight flush"),
        ("Ad 2d 3d 5d Jk", Category.STRAIGHT_FLUSH, "five-high straight flush (wheel)"),
        ("As Ah Ad 9c Jk", Category.FOUR_OF_A_KIND, "four aces, nine high"),
        ("Ks Kh Kd Kc Jk", Category.FOUR_OF_A_KIND, "four kings, ace high"),
        ("As Ah Kd Kc Jk", Category.FULL_HOUSE, "aces full of kings"),
        ("Ks Kh Kd Ac Jk", Category.FULL_HOUSE, "kings full of aces"),
        ("Ks Kh Qd Qc Jk", Category.TWO_PAIR, "two pair, kings and queens, ace high"),
        ("2c 3d 4h 5s Jk", Category.STRAIGHT, "six-high straight"),
        ("Jk Qd Kh 9s Tc", Category.STRAIGHT, "king-high straight"),
        ("Kh Kd 9s 5c Jk", Category.ONE_PAIR, "pair of kings, ace high"),
        ("Ah 9d 7s 5c Jk", Category.ONE_PAIR, "pair of aces, nine high"),
        ("Kh Jd 9s 5c Jk", Category.HIGH_CARD, "ace high: king, jack, nine, five"),
    ],
)
def test_the_bug(text: str, category: Category, name: str) -> None:
    """Seed 000 rule 47, seed 001, seed 004 S&K: an ace, or completes a straight, flush, straight flush."""
    v = five(text)
    assert (v.category, v.name) == (category, name)


def test_joker_in_flush_highest_unmatched_vs_ace() -> None:
    # Rule 47: the highest unmatched card. With the ace present, the joker is a king.
    assert five("As Qs 9s 5s Jk").ranks == (14, 13, 12, 9, 5)
    assert five("Ks Qs 9s 5s Jk").ranks == (14, 13, 12, 9, 5)
    assert five("As Ks 9s 5s Jk").ranks == (14, 13, 12, 9, 5)
    # Napa profile: always an ace, so A-A-K-9-5 beats the natural A-K-Q-9-5 flush.
    napa = five("As Ks 9s 5s Jk", NAPA)
    assert napa.ranks == (14, 14, 13, 9, 5)
    assert napa > five("As Ks Qs 9s 5s", NAPA)
    # S&K example (seed 004): 2s 4s Js Qs + joker completes the flush.
    assert five("2s 4s Js Qs Jk").category is Category.FLUSH


def test_five_aces_above_or_tying_royal() -> None:
    aces, royal = "As Ah Ad Ac Jk", "Ah Kh Qh Jh Th"
    assert five(aces) > five(royal)
    assert five(aces, NAPA) > five(royal, NAPA)
    tie_a, tie_r = five(aces, LUCKY_CHANCES), five(royal, LUCKY_CHANCES)
    assert tie_a == tie_r and hash(tie_a) == hash(tie_r)
    assert (tie_a.name, tie_r.name) == ("five aces", "royal flush")
    assert tie_a > five("Kh Qh Jh Th 9h", LUCKY_CHANCES)


def test_wheel_lowest_or_second_highest() -> None:
    wheel, six_high, k_high, a_high = "As 2h 3d 4c 5s", "2s 3h 4d 5c 6s", "9s Th Jd Qc Ks", "Ts Jh Qd Kc As"
    assert five(wheel) < five(six_high)
    nv = NEVADA_WHEEL
    assert five(k_high, nv) < five(wheel, nv) < five(a_high, nv)
    assert five(six_high, nv) < five(wheel, nv)
    # Straight flushes follow the same rule, under the royal.
    sf_wheel, sf_k = "Ad 2d 3d 4d 5d", "9d Td Jd Qd Kd"
    assert five(sf_wheel) < five(sf_k)
    assert five(sf_k, nv) < five(sf_wheel, nv) < five("Ad Kd Qd Jd Td", nv)
    # The joker picks the wheel over the six-high straight only when the wheel ranks higher.
    assert five("2s 3h 4d 5c Jk").ranks == (6,)
    assert five("2s 3h 4d 5c Jk", nv).ranks == (5,)


def test_wild_joker() -> None:
    assert five("Ks Kh Qd Qc Jk", WILD).name == "kings full of queens"
    assert five("7s 7h 7d 2c Jk", WILD).name == "four sevens, two high"
    assert five("Ks Kh Kd Kc Jk", WILD).name == "four kings, ace high"
    assert five("9h 9d 5s 3c Jk", WILD).name == "three nines, five high"
    assert five("As Ah Ad Ac Jk", WILD).category is Category.FIVE_ACES
    assert five("2c 3d 4h 5s Jk", WILD).name == "six-high straight"
    assert evaluate_two("Jk 7h", WILD).name == "pair of sevens"


def test_two_card_values_share_the_scale() -> None:
    """Seed 000 rule 50a: the foul check is a plain comparison."""
    assert evaluate_two("Kh Kd") > five("Qs Qc 9d 5h 3c")
    assert not evaluate_two("Ah Kd") > five("As Kc 9d 5h 3c")
    assert evaluate_two("Ah Kd") < five("2s 2c 3d 4h 6c")
    assert evaluate_two("Ah Qd") > five("Ks Jc 9d 5h 3c")
    assert evaluate_two("Jk As") == evaluate_two("Ad Ac")
    assert evaluate_two("Jk As").name == "pair of aces"
    assert evaluate_two("Jk 2s").name == "ace-two high"
    assert evaluate_two("9c 7d").name == "nine-seven high"
    assert evaluate_two("2c 2d") > evaluate_two("As Kd")


def test_best_five() -> None:
    v, cards = best_five("As Ks Qs Js 2d 3c Jk")
    assert v.category is Category.ROYAL_FLUSH and len(cards) == 5
    v, _ = best_five("Ah Ad Ac As Jk 2c 3c")
    assert v.category is Category.FIVE_ACES
    v, _ = best_five("6h 7d 8c 9s Th 2d 3c Jk")
    assert v.name == "jack-high straight"
    assert best_five("Kh Kd 9s 5c 2d")[0] == five("Kh Kd 9s 5c 2d")


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: evaluate_five("As Kd Qh Js"), CardCountError, "got 4: As Kd Qh Js"),
        (lambda: evaluate_five("As Kd Qh Js Ts 9s"), CardCountError, "got 6"),
        (lambda: evaluate_five("As Kd Qh Js Kd"), DuplicateCardError, "Kd"),
        (lambda: evaluate_five("Jk Kd Qh Js Jk"), DuplicateCardError, "Jk"),
        (lambda: evaluate_two("As"), CardCountError, "two-card hand must have 2 cards, got 1: As"),
        (lambda: evaluate_two("As Zs"), CardParseError, "unknown rank 'Z'"),
        (lambda: evaluate_five(["As", "Kd", "Qh", "Js", "Ts"]), RulesError, "item 1 is str"),
        (lambda: best_five("As Kd Qh Js"), CardCountError, "5 to 8 cards, got 4"),
        (lambda: best_five("As Kd Qh Js Ts 9s 8s 7s 6s"), CardCountError, "got 9"),
    ],
)
def test_bad_input_is_named(call: object, error: type[Exception], fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        call()  # type: ignore[operator]


def test_values_are_immutable_and_hashable() -> None:
    v = five("Kh Kd As 9c 5d")
    with pytest.raises(AttributeError):
        v.score = 0  # type: ignore[misc]
    assert {v, five("Ks Kc Ad 9h 5s")} == {v}
    assert "pair of kings" in repr(v)


def test_values_pickle_copy_and_refuse_other_types() -> None:
    import copy
    import pickle

    v = five("Jk Ks 9s 5s 2s")
    assert pickle.loads(pickle.dumps(v)) == v and copy.deepcopy(v).name == v.name
    with pytest.raises(TypeError):
        _ = v < 3  # type: ignore[operator]


def test_joker_in_flush_option_reaches_profile() -> None:
    p = PaiGowProfile(joker_in_flush=JokerInFlush.ACE)
    assert five("As Ks 9s 5s Jk", p).ranks == (14, 14, 13, 9, 5)
