"""The Trump Plaza (Atlantic City) house way against its published text (house_ways/trump_plaza.yaml
names the source): one or more hands per statement of the text, the front each statement prescribes."""

from __future__ import annotations

import pytest

from tests.support.house_way import Case, check_case, check_fast_path_agrees, rules_not_exercised

WAY = "trump_plaza"
R = {
    "5AK": "five aces with a pair of kings - five aces in back, kings in front",
    "5A": "five aces - split, three aces in back and two in front",
    "Q3": "four of a kind and three of a kind - pair from the three of a kind in front",
    "Q2": "four of a kind and a pair - pair in front",
    "Q26": "four of a kind 2-6 - keep together",
    "Q7K": "four of a kind 7-10 with a king or better to play in front - keep together",
    "Q7": "four of a kind 7-10 - split",
    "QJA": "four of a kind J-K with an ace to play in front - keep together",
    "QJ": "four of a kind J-K - split",
    "QA": "four aces - always split",
    "TT": "three of a kind twice - pair from the higher set in front",
    "FH2P": "full house with two pairs - highest pair in front",
    "FH2AK": "full house with a pair of 2s and ace-king - keep the full house, ace-king in front",
    "FH": "full house - split, pair in front",
    "2PA": "two pair with aces - always split",
    "2PHM": "two pair, high and medium or high and high - always split",
    "2PLHA": "two pair, low and high with an ace - both pairs in back",
    "2PLH": "two pair, low and high - split",
    "2PMMA": "two pair, medium and medium with an ace - both pairs in back",
    "2PMM": "two pair, medium and medium - split",
    "2PLLK": "two pair, low and low or low and medium with a king or better - both pairs in back",
    "2PLL": "two pair, low and low or low and medium - split",
    "3P": "three pair - highest pair in front",
    "S3": "straight or flush with three of a kind - complete hand in back, pair in front",
    "S1": "straight or flush with one pair - pair in front, complete hand in back",
    "S": "straight, flush or straight flush - highest two cards in front that keep it",
    "3A": "three aces - pair of aces in back, one ace in front",
    "3K": "three of a kind - in back",
    "1P": "one pair - pair in back, next two highest in front",
    "0P": "no pair - highest card in back, next two in front",
}

CASES = [
    Case("No pair", "As Kd Qc 9h 7s 5d 2c", "Kd Qc", R["0P"]),
    Case("One pair", "7s 7d 9s 4c 2s Kd 3c", "Kd 9s", R["1P"]),
    # Two pair: low 2-6, medium 7-10, high J-K
    Case("Low pair and low pair: split unless holding a king or better", "4s 4d 3c 3h Qs 9d 8c", "3c 3h",
         R["2PLL"]),
    Case("Low pair and low pair: a king - two pair in back", "4s 4d 3c 3h Ks 9d 8c", "Ks 9d", R["2PLLK"]),
    Case("Low pair and medium pair: split unless holding a king or better", "9s 9d 3c 3h Qs 7d 6c", "3c 3h",
         R["2PLL"]),
    Case("Low pair and medium pair: a king - two pair in back", "9s 9d 3c 3h Ks 7d 6c", "Ks 7d", R["2PLLK"]),
    Case("Low pair and high pair: split unless holding an ace", "Js Jd 6c 6h Ks 9d 2c", "6c 6h", R["2PLH"]),
    Case("Low pair and high pair: an ace - two pair in back", "Js Jd 6c 6h As 9d 2c", "As 9d", R["2PLHA"]),
    Case("Medium pair and medium pair: split unless holding an ace", "9s 9d 7c 7h Ks 5d 2c", "7c 7h",
         R["2PMM"]),
    Case("Medium pair and medium pair: an ace - two pair in back", "9s 9d 7c 7h As 5d 2c", "As 5d",
         R["2PMMA"]),
    Case("Medium pair and high pair: always split", "Js Jd 7c 7h As 9d 2c", "7c 7h", R["2PHM"]),
    Case("High pair and high pair: always split", "Ks Kd Jc Jh As 9d 2c", "Jc Jh", R["2PHM"]),
    Case("Pair of aces and any other pair: always split", "As Ad 4c 4h Ks 9d 2c", "4c 4h", R["2PA"]),
    Case("Three pair", "Qs Qd 9c 9h 4s 4d 2c", "Qs Qd", R["3P"]),
    Case("Three of a kind: in back", "8s 8h 8d Kh Qs 4d 3c", "Kh Qs", R["3K"]),
    Case("Three of a kind: aces - a pair of aces in back, one ace in front", "As Ah Ad 9h 8s 4d 3c",
         "ace-nine high", R["3A"]),
    Case("Three of a kind twice", "Ks Kd Kc 5h 5s 5d 2c", "pair of kings", R["TT"]),
    # Straights, flushes, straight flushes and royal flush
    Case("Straights with no pair: the highest two cards in front", "4s 5d 6c 7h 8s 9d Kc", "Kc 9d", R["S"]),
    Case("With 6th or 7th card: the lower straight in back", "3s 4d 5c 6h 7s 8d 9c", "9c 8d", R["S"]),
    Case("Flush or straight flush: the category that allows the highest front", "5h 6h 7h 8h 9h Kh 2c",
         "Kh 2c", R["S"]),
    Case("With one pair: pair in front when a straight can be played in back", "5s 6d 7c 8h 9s Kd Kc",
         "Kd Kc", R["S1"]),
    Case("With one pair: only if - otherwise the straight with the highest front", "5s 6d 7c 8h 9s 9d 2c",
         "nine-two high", R["S"]),
    Case("With two pair: use two pair rule", "9s Td Jc Jh Qs Qd Kc", "Jc Jh", R["2PHM"]),
    Case("With three of a kind: play pair in front", "5s 5d 5c 6h 7s 8d 9c", "pair of fives", R["S3"]),
    Case("With full house: use full house rule", "Jk Ah Ad 7h 7d 4h 2h", "7h 7d", R["FH"]),
    # Full house
    Case("Full house: always split", "8s 8d 8c 3h 3s Ad Kc", "3h 3s", R["FH"]),
    Case("Full house: twos with an ace and a king - keep together", "8s 8d 8c 2h 2s Ad Kc", "Ad Kc",
         R["FH2AK"]),
    Case("Full house with three of a kind and two pairs", "8s 8d 8c Ks Kd 3h 3s", "Ks Kd", R["FH2P"]),
    # Four of a kind
    Case("Four of a kind 2 through 6: always keep together", "5s 5d 5c 5h Ks 9d 8c", "Ks 9d", R["Q26"]),
    Case("Four of a kind 7 through 10: a king can be played in front", "9s 9d 9c 9h Ks 7d 3c", "Ks 7d",
         R["Q7K"]),
    Case("Four of a kind 7 through 10: split", "9s 9d 9c 9h Qs 7d 3c", "pair of nines", R["Q7"]),
    Case("Four of a kind jack through king: an ace can be played in front", "Js Jd Jc Jh As 5d 2c", "As 5d",
         R["QJA"]),
    Case("Four of a kind jack through king: split", "Ks Kd Kc Kh Qs 5d 2c", "pair of kings", R["QJ"]),
    Case("Four of a kind aces: always split", "As Ad Ac Ah Ks 5d 2c", "pair of aces", R["QA"]),
    Case("Four of a kind and a pair: play pair in front", "As Ad Ac Ah 2s 2d 7c", "2s 2d", R["Q2"]),
    Case("Four of a kind and three of a kind: pair from the three of a kind", "9s 9d 9c 9h 4s 4d 4c",
         "pair of fours", R["Q3"]),
    # Five aces
    Case("Five aces: three aces in back and two aces in front", "Jk As Ah Ad Ac Qd 7c", "pair of aces",
         R["5A"]),
    Case("Five aces with a pair of kings: kings in front", "Jk As Ah Ad Ac Kd Kc", "Kd Kc", R["5AK"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sets_each_published_statement(case: Case) -> None:
    check_case(WAY, case)


def test_every_rule_is_exercised() -> None:
    assert rules_not_exercised(WAY, CASES) == []


def test_compiled_path_sets_the_same_hands() -> None:
    check_fast_path_agrees(WAY, CASES)
