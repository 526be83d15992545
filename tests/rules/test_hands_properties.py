"""Property tests: hand values form a total order consistent with the seeds' ranking lists."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from treys import Card as TreysCard
from treys import Evaluator

from monitor.rules.cards import PAI_GOW_53, STANDARD_52, Card
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

C = Category
WILD = PaiGowProfile(name="wild", joker_mode=JokerMode.WILD)
WILD_ACE = PaiGowProfile(name="wild_ace", joker_mode=JokerMode.WILD, joker_in_flush=JokerInFlush.ACE)
PROFILES = [DEFAULT_PROFILE, LUCKY_CHANCES, NAPA, NEVADA_WHEEL, WILD]

# The ranking lists of the seeds, strongest first; categories on one line rank equal.
LIVERMORE_LIST = [  # seed 000 (and seed 001, Napa)
    [C.FIVE_ACES], [C.ROYAL_FLUSH], [C.STRAIGHT_FLUSH], [C.FOUR_OF_A_KIND], [C.FULL_HOUSE], [C.FLUSH],
    [C.STRAIGHT], [C.THREE_OF_A_KIND], [C.TWO_PAIR], [C.ONE_PAIR], [C.HIGH_CARD],
]
LUCKY_CHANCES_LIST = [[C.ROYAL_FLUSH, C.FIVE_ACES], *LIVERMORE_LIST[2:]]  # seed 002: both listed first


def ranking_position(profile: PaiGowProfile, category: Category) -> int:
    ranking = LUCKY_CHANCES_LIST if profile is LUCKY_CHANCES else LIVERMORE_LIST
    return next(i for i, line in enumerate(ranking) if category in line)


def hands(k: int, deck: tuple[Card, ...] = PAI_GOW_53) -> st.SearchStrategy[tuple[Card, ...]]:
    return st.lists(st.sampled_from(deck), min_size=k, max_size=k, unique=True).map(tuple)


def with_joker(k: int) -> st.SearchStrategy[tuple[Card, ...]]:
    return hands(k - 1, STANDARD_52).map(lambda h: (*h, PAI_GOW_53[-1]))


profiles = st.sampled_from(PROFILES)
five_hands = st.one_of(hands(5), with_joker(5))


@settings(max_examples=250, deadline=None)
@given(profiles, five_hands, five_hands, five_hands)
def test_total_order_consistent_with_the_ranking_list(
    profile: PaiGowProfile, a: tuple[Card, ...], b: tuple[Card, ...], c: tuple[Card, ...]
) -> None:
    va, vb, vc = (evaluate_five(h, profile) for h in (a, b, c))
    # Exactly one of <, ==, > holds, and == agrees with the hash.
    assert [va < vb, va == vb, va > vb].count(True) == 1
    assert (va == vb) == (va.score == vb.score) and (va != vb or hash(va) == hash(vb))
    assert (va <= vb) == (not va > vb) and (va >= vb) == (not va < vb)
    # Transitivity over three values.
    if va <= vb and vb <= vc:
        assert va <= vc
    # Categories in the seeds' order; equal lines tie only for Lucky Chances' royal flush vs five aces.
    pa, pb = ranking_position(profile, va.category), ranking_position(profile, vb.category)
    if pa < pb:
        assert va > vb
    elif pa > pb:
        assert va < vb
    elif va.category is not vb.category:
        assert va == vb


NAME_PATTERNS = {
    C.FIVE_ACES: r"five aces",
    C.ROYAL_FLUSH: r"royal flush",
    C.STRAIGHT_FLUSH: r"\w+-high straight flush( \(wheel\))?",
    C.FOUR_OF_A_KIND: r"four \w+, \w+ high",
    C.FULL_HOUSE: r"\w+ full of \w+",
    C.FLUSH: r"\w+-high flush: \w+, \w+, \w+, \w+",
    C.STRAIGHT: r"\w+-high straight( \(wheel\))?",
    C.THREE_OF_A_KIND: r"three \w+, \w+ high",
    C.TWO_PAIR: r"two pair, \w+ and \w+, \w+ high",
    C.ONE_PAIR: r"pair of \w+(, \w+ high)?",
    C.HIGH_CARD: r"\w+(-\w+ high| high: \w+, \w+, \w+, \w+)",
}


def test_every_category_has_a_name_pattern_and_an_example() -> None:
    examples = {
        C.FIVE_ACES: "As Ah Ad Ac Jk", C.ROYAL_FLUSH: "Jk Ks Qs Js Ts", C.STRAIGHT_FLUSH: "Ad 2d 3d 4d 5d",
        C.FOUR_OF_A_KIND: "7s 7h 7d 7c 2s", C.FULL_HOUSE: "Ks Kh Kd 5c 5s", C.FLUSH: "As Js 9s 5s 2s",
        C.STRAIGHT: "As 2h 3d 4c 5s", C.THREE_OF_A_KIND: "6s 6h 6d Kc 2s", C.TWO_PAIR: "Ks Kh 5d 5c As",
        C.ONE_PAIR: "Kh Kd As 9c 5d", C.HIGH_CARD: "As Kd 9h 5c 3s",
    }
    assert set(NAME_PATTERNS) == set(Category) == set(examples)
    for cat, text in examples.items():
        v = evaluate_five(text)
        assert v.category is cat and re.fullmatch(NAME_PATTERNS[cat], v.name), (cat, v.name)


@settings(max_examples=200, deadline=None)
@given(profiles, five_hands, hands(2))
def test_every_value_has_a_readable_name(
    profile: PaiGowProfile, five: tuple[Card, ...], two: tuple[Card, ...]
) -> None:
    v = evaluate_five(five, profile)
    assert re.fullmatch(NAME_PATTERNS[v.category], v.name), v.name
    assert str(v) == v.name
    w = evaluate_two(two, profile)
    assert w.category in (C.ONE_PAIR, C.HIGH_CARD)
    assert re.fullmatch(r"pair of \w+|\w+-\w+ high", w.name), w.name


def brute_force_joker(others: tuple[Card, ...], profile: PaiGowProfile) -> HandValue:
    """The joker by substitution: every card it could stand for, evaluated as a natural hand."""
    absent = [c for c in STANDARD_52 if c not in others]
    if sum(c.is_ace for c in others) == 4:
        return evaluate_five((*others, PAI_GOW_53[-1]), profile)  # five aces: no natural hand has it
    completes = (C.STRAIGHT, C.FLUSH, C.STRAIGHT_FLUSH, C.ROYAL_FLUSH)
    options = []
    for card in absent:
        v = evaluate_five((*others, card), profile)
        if profile.joker_mode is JokerMode.WILD or card.is_ace or v.category in completes:
            options.append(v)
    return max(options)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([DEFAULT_PROFILE, NEVADA_WHEEL, WILD, LUCKY_CHANCES]), with_joker(5))
def test_joker_equals_the_best_substitute(profile: PaiGowProfile, hand: tuple[Card, ...]) -> None:
    """Bug: the best of an ace or any card completing a straight/flush; wild: the best of any card.

    (Rule 47's "highest unmatched card in a flush" is the best absent card of the suit, so the
    substitution covers it; a natural four-of-a-kind with the joker beside it keeps an ace kicker.)
    """
    others = hand[:4]
    assert evaluate_five(hand, profile) == brute_force_joker(others, profile)


@settings(max_examples=200, deadline=None)
@given(with_joker(5))
def test_joker_as_ace_in_a_flush(hand: tuple[Card, ...]) -> None:
    """JokerInFlush.ACE: the joker is an ace inside a flush even beside the suit's own ace."""
    v = evaluate_five(hand, NAPA)
    if v.category is C.FLUSH:
        assert v.ranks[0] == 14 and sorted(v.ranks, reverse=True) == list(v.ranks)
        assert v.ranks.count(14) == 1 + sum(c.is_ace for c in hand)
    # An ace is never below the highest unmatched card, so the ACE option only ever helps.
    assert evaluate_five(hand, WILD_ACE) >= evaluate_five(hand, WILD)


EVALUATOR = Evaluator()


@settings(max_examples=250, deadline=None)
@given(hands(5, STANDARD_52), hands(5, STANDARD_52))
def test_natural_hands_order_as_treys(a: tuple[Card, ...], b: tuple[Card, ...]) -> None:
    ours = evaluate_five(a).score - evaluate_five(b).score
    ta, tb = ([TreysCard.new(c.text) for c in h] for h in (a, b))
    theirs = EVALUATOR.evaluate(tb[:2], tb[2:]) - EVALUATOR.evaluate(ta[:2], ta[2:])  # lower is better
    assert (ours > 0) == (theirs > 0) and (ours == 0) == (theirs == 0)


@settings(max_examples=200, deadline=None)
@given(profiles, hands(7))
def test_front_and_back_on_one_scale(profile: PaiGowProfile, seven: tuple[Card, ...]) -> None:
    """Seed 000 rule 50a is a plain comparison; a five-card hand beats a front of the same shape."""
    front, back = evaluate_two(seven[:2], profile), evaluate_five(seven[2:], profile)
    if back.category >= C.TWO_PAIR:
        assert back > front
    if front.category is C.HIGH_CARD and back.category is C.ONE_PAIR:
        assert back > front
    if front.category is back.category and front.ranks == back.ranks[: len(front.ranks)]:
        assert back > front  # the same leading ranks: the five-card hand has kickers beyond them
    best, five = best_five(seven, profile)
    assert best >= back and sorted(five) == sorted(set(five)) and set(five) <= set(seven)
    assert best == evaluate_five(five, profile)
