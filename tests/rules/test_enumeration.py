"""Every five-card hand of the 53-card deck, counted by category and checked against combinatorics.

The expected counts are derived here from formulas (the comments give the reasoning); they do
not come from running the engine a second way. Also: the fast paths agree with the reference
evaluator, and the seven-card category counter agrees with ``best_five`` hand by hand.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from monitor.rules.cards import card_from_index, parse_card
from monitor.rules.fast.five import (
    best_score_batch,
    categories_of_scores,
    five_card_scorer,
    score_five_batch,
    score_five_numpy,
)
from monitor.rules.fast.seven import category_of_hands, count_seven_card_categories, seven_card_tasks
from monitor.rules.fast.tables import INVALID, five_card_table, two_card_table, value_of_score
from monitor.rules.hands import (
    Category,
    HandValue,
    best_five,
    evaluate_five,
    evaluate_five_reference,
    evaluate_two,
)
from monitor.rules.profile import (
    DEFAULT_PROFILE,
    LUCKY_CHANCES,
    NAPA,
    NEVADA_WHEEL,
    JokerMode,
    PaiGowProfile,
)

WILD = PaiGowProfile(name="wild", joker_mode=JokerMode.WILD)
PROFILES = [DEFAULT_PROFILE, LUCKY_CHANCES, NAPA, NEVADA_WHEEL, WILD]
C = Category


def expected_52() -> dict[Category, int]:
    """Five-card hands of a 52-card deck, by category."""
    straights = 10  # rank sets of a straight: tops 5 (A-2-3-4-5) to ace
    return {
        C.ROYAL_FLUSH: 4,
        C.STRAIGHT_FLUSH: straights * 4 - 4,
        C.FOUR_OF_A_KIND: 13 * 48,
        C.FULL_HOUSE: 13 * comb(4, 3) * 12 * comb(4, 2),
        C.FLUSH: 4 * (comb(13, 5) - straights),
        C.STRAIGHT: straights * (4**5 - 4),
        C.THREE_OF_A_KIND: 13 * comb(4, 3) * comb(12, 2) * 4**2,
        C.TWO_PAIR: comb(13, 2) * comb(4, 2) ** 2 * 11 * 4,
        C.ONE_PAIR: 13 * comb(4, 2) * comb(12, 3) * 4**3,
        C.HIGH_CARD: (comb(13, 5) - straights) * (4**5 - 4),
    }


# Four distinct ranks the joker can complete to a straight: each of the 10 windows has 5 four-card
# subsets (50), but a run of four consecutive ranks lies in two windows unless it is A-2-3-4 or
# J-Q-K-A: 11 runs, 9 counted twice.
FOUR_TO_STRAIGHT = 10 * 5 - 9
FOUR_TO_ROYAL = 5  # the four-subsets of T-J-Q-K-A
FOUR_TO_STRAIGHT_WITH_ACE = 4 + 4  # subsets holding the ace: 4 of A-2-3-4-5, 4 of T-J-Q-K-A


def expected_joker_bug() -> dict[Category, int]:
    """Hands of four natural cards and the joker, the joker playing as the bug (seed 000 rule 47)."""
    w, w_ace = FOUR_TO_STRAIGHT, FOUR_TO_STRAIGHT_WITH_ACE
    unsuited = 4**4 - 4  # suit patterns of four distinct ranks that are not one suit
    return {
        C.FIVE_ACES: 1,  # A-A-A-A
        C.ROYAL_FLUSH: 4 * FOUR_TO_ROYAL,
        C.STRAIGHT_FLUSH: 4 * (w - FOUR_TO_ROYAL),
        # A-A-A + any other card (joker the fourth ace); quads of another rank (joker an ace kicker).
        C.FOUR_OF_A_KIND: comb(4, 3) * 48 + 12,
        # A-A + another pair (joker the third ace); trips of another rank + an ace (joker the second ace).
        C.FULL_HOUSE: comb(4, 2) * 12 * comb(4, 2) + 12 * comb(4, 3) * 4,
        # Four suited cards the joker cannot make a straight flush of.
        C.FLUSH: 4 * (comb(13, 4) - w),
        C.STRAIGHT: w * unsuited,
        # A-A + two other ranks; trips of another rank + a card that is neither that rank nor an ace.
        C.THREE_OF_A_KIND: comb(4, 2) * comb(12, 2) * 4**2 + 12 * comb(4, 3) * 11 * 4,
        # Two pairs without aces (the joker an ace kicker); a pair, an ace and one more (joker pairs the ace).
        C.TWO_PAIR: comb(12, 2) * comb(4, 2) ** 2 + 12 * comb(4, 2) * 4 * 11 * 4,
        # A pair without aces and two other non-aces; or an ace and three other ranks (joker pairs the
        # ace) less the ones the joker makes a straight (any suits) or a flush (one suit) of instead.
        C.ONE_PAIR: 12 * comb(4, 2) * comb(11, 2) * 4**2
        + comb(12, 3) * 4**4
        - w_ace * 4**4
        - (comb(12, 3) - w_ace) * 4,
        # Four distinct ranks without an ace, no straight, not one suit: ace high.
        C.HIGH_CARD: (comb(12, 4) - (w - w_ace)) * unsuited,
    }


def expected_joker_wild() -> dict[Category, int]:
    """Hands of four natural cards and a fully wild joker (the profile's WILD mode)."""
    w = FOUR_TO_STRAIGHT
    unsuited = 4**4 - 4
    return {
        C.FIVE_ACES: 1,
        C.ROYAL_FLUSH: 4 * FOUR_TO_ROYAL,
        C.STRAIGHT_FLUSH: 4 * (w - FOUR_TO_ROYAL),
        # Trips of any rank + any other card; natural quads other than aces (joker an ace kicker).
        C.FOUR_OF_A_KIND: 13 * comb(4, 3) * 48 + 12,
        C.FULL_HOUSE: comb(13, 2) * comb(4, 2) ** 2,  # two pair + joker
        C.FLUSH: 4 * (comb(13, 4) - w),
        C.STRAIGHT: w * unsuited,
        C.THREE_OF_A_KIND: 13 * comb(4, 2) * comb(12, 2) * 4**2,  # a pair + two other ranks
        C.TWO_PAIR: 0,  # the joker always makes more of a pair
        C.ONE_PAIR: (comb(13, 4) - w) * unsuited,  # four ranks, no straight, no flush: joker pairs one
        C.HIGH_CARD: 0,
    }


def test_the_derivation_itself() -> None:
    # The rank-set counts, checked by listing rank sets (no cards, no engine).
    windows = [set(range(t - 4, t + 1)) for t in range(6, 15)] + [{14, 2, 3, 4, 5}]
    fours = {frozenset(s) for w in windows for s in itertools.combinations(sorted(w), 4)}
    assert len(fours) == FOUR_TO_STRAIGHT
    assert sum(14 in s for s in fours) == FOUR_TO_STRAIGHT_WITH_ACE
    assert sum(expected_52().values()) == comb(52, 5)
    assert sum(expected_joker_bug().values()) == comb(52, 4)
    assert sum(expected_joker_wild().values()) == comb(52, 4)


@pytest.fixture(scope="module")
def all_five_53() -> np.ndarray:
    n = comb(53, 5)
    flat = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(53), 5)), np.int64, 5 * n)
    return flat.reshape(n, 5)


def test_every_five_card_hand_of_53(all_five_53: np.ndarray) -> None:
    scores = score_five_numpy(all_five_53, DEFAULT_PROFILE)
    assert len(scores) == 2_869_685 and (scores != INVALID).all()
    cats = categories_of_scores(scores)
    has_joker = all_five_53[:, 4] == 52  # combinations are sorted: the joker is last
    natural = np.bincount(cats[~has_joker], minlength=len(Category))
    joker = np.bincount(cats[has_joker], minlength=len(Category))
    want_joker = expected_joker_bug()
    want_52 = expected_52()
    for cat in Category:
        assert natural[cat] == want_52.get(cat, 0), cat
        assert joker[cat] == want_joker[cat], cat
    # Published 53-card totals: e.g. 4,368 full houses, 20,532 straights, 1,418,964 high cards.
    total = natural + joker
    assert (total[C.FULL_HOUSE], total[C.STRAIGHT], total[C.HIGH_CARD]) == (4_368, 20_532, 1_418_964)


def test_every_five_card_joker_hand_wild(all_five_53: np.ndarray) -> None:
    joker_hands = all_five_53[all_five_53[:, 4] == 52]
    cats = categories_of_scores(score_five_numpy(joker_hands, WILD))
    counts = np.bincount(cats, minlength=len(Category))
    assert {cat: int(counts[cat]) for cat in Category} == expected_joker_wild()


def test_every_two_card_hand() -> None:
    """C(53, 2) = 1,378 front hands: 78 natural pairs, plus joker-ace (4) or joker-anything (52) when wild."""
    fronts = list(itertools.combinations(range(53), 2))
    for profile, pairs in ((DEFAULT_PROFILE, 78 + 4), (WILD, 78 + 52)):
        values = [evaluate_two((card_from_index(a), card_from_index(b)), profile) for a, b in fronts]
        assert sum(v.category is C.ONE_PAIR for v in values) == pairs
        assert sum(v.category is C.HIGH_CARD for v in values) == comb(53, 2) - pairs
        # 13 pair values and C(13, 2) = 78 two-high-card values, all distinct.
        assert len(set(values)) == 13 + 78


def test_profiles_reorder_but_keep_the_hands(all_five_53: np.ndarray) -> None:
    sample = all_five_53[::7]
    default = score_five_numpy(sample, DEFAULT_PROFILE)
    lucky = score_five_numpy(sample, LUCKY_CHANCES)
    royal = evaluate_five("As Ks Qs Js Ts").score
    # Lucky Chances: five aces score exactly as a royal flush.
    assert evaluate_five("As Ah Ad Ac Jk", LUCKY_CHANCES).score == royal
    assert (categories_of_scores(lucky) == categories_of_scores(default)).mean() > 0.999
    nevada = score_five_numpy(all_five_53[::3], NEVADA_WHEEL)
    ace_high = evaluate_five("As Kd Qh Jc Ts", NEVADA_WHEEL).score
    wheel = evaluate_five("As 2d 3h 4c 5s", NEVADA_WHEEL).score
    king_high = evaluate_five("9s Kd Qh Jc Ts", NEVADA_WHEEL).score
    straight_scores = sorted(set(nevada[categories_of_scores(nevada) == C.STRAIGHT].tolist()))
    assert len(straight_scores) == 10 and straight_scores[-2:] == [wheel, ace_high]
    assert straight_scores[-3] == king_high


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_fast_paths_equal_the_reference(profile: PaiGowProfile) -> None:
    rng = np.random.default_rng(5)
    plain = np.argsort(rng.random((1000, 53)), axis=1)[:, :5]
    with_joker = np.argsort(rng.random((1000, 52)), axis=1)[:, :5]
    with_joker[:, 2] = 52  # distinct naturals plus the joker, the joker in the middle
    hands = np.concatenate([plain, with_joker])
    reference = [evaluate_five_reference(tuple(map(card_from_index, r)), profile) for r in hands.tolist()]
    want = np.array([v.score for v in reference])
    score = five_card_scorer(profile)
    assert (score_five_numpy(hands, profile) == want).all()
    assert (score_five_batch(hands, profile) == want).all()
    assert [score(*row) for row in hands.tolist()] == want.tolist()
    # The public evaluator (table-backed) gives the reference's whole value, name included.
    public = [evaluate_five(tuple(map(card_from_index, r)), profile) for r in hands.tolist()]
    def whole(v: HandValue) -> tuple[Category, tuple[int, ...], int]:
        return v.category, v.ranks, v.score

    assert list(map(whole, public)) == list(map(whole, reference))
    # A fast score names its hand again.
    assert [whole(value_of_score(int(x), profile)) for x in want] == list(map(whole, reference))
    two = two_card_table(profile)
    for a, b in hands[:300, :2].tolist():
        assert two[a * 53 + b] == evaluate_two((card_from_index(a), card_from_index(b)), profile).score


@pytest.mark.parametrize("profile", [DEFAULT_PROFILE, NEVADA_WHEEL, WILD], ids=lambda p: p.name)
def test_best_of_seven_fast_paths_equal_best_five(profile: PaiGowProfile) -> None:
    rng = np.random.default_rng(11)
    hands = np.argsort(rng.random((300, 53)), axis=1)[:, :7]
    values = []
    for row in hands.tolist():
        cards = tuple(map(card_from_index, row))
        # The reference, straight from the rules: the best of the 21 five-card subsets.
        reference = max(evaluate_five_reference(five, profile) for five in itertools.combinations(cards, 5))
        assert best_five(cards, profile)[0] == reference
        values.append(reference)
    assert best_score_batch(hands, profile).tolist() == [v.score for v in values]
    assert category_of_hands(hands, profile).tolist() == [int(v.category) for v in values]


@pytest.mark.parametrize("profile", [DEFAULT_PROFILE, WILD], ids=lambda p: p.name)
def test_seven_card_enumeration_matches_best_five(profile: PaiGowProfile) -> None:
    # A 15-card sub-deck (four aces, paired kings, a spade run, low cards, the joker): every category occurs.
    texts = ["As", "Ah", "Ad", "Ac", "Ks", "Kh", "Qs", "Js", "Ts", "9s", "5d", "4d", "3h", "2c"]
    deck = np.array(sorted([parse_card(t).index for t in texts] + [52]))
    counts = count_seven_card_categories(deck, seven_card_tasks(len(deck)), profile)
    want = np.zeros(len(Category), dtype=np.int64)
    for combo in itertools.combinations(deck.tolist(), 7):
        want[best_five(tuple(card_from_index(i) for i in combo), profile)[0].category] += 1
    assert counts.tolist() == want.tolist()
    assert counts.sum() == comb(15, 7)
    assert (counts > 0).all()


def test_fast_table_marks_impossible_input() -> None:
    t = five_card_table()
    s = 0
    for card in (52, 52, 0, 1, 2):  # two jokers
        s = int(t[s + card])
    assert s == INVALID
    s = 0
    for card in (0, 0, 4, 8, 12):  # the same suited card twice
        s = int(t[s + card])
    assert s == INVALID
