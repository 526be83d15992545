"""The Bally's Atlantic City house way against its published text (house_ways/ballys_atlantic_city.yaml
names the source): one or more hands per statement of the text, the front each statement prescribes."""

from __future__ import annotations

import pytest

from tests.support.house_way import Case, check_case, check_fast_path_agrees, rules_not_exercised

WAY = "ballys_atlantic_city"
R = {
    "5AK": "five aces with a pair of kings - kings in the low hand",
    "5A": "five aces - always split, two aces in the low hand",
    "4AK": "four aces with a pair of kings - kings in the low hand",
    "4A": "four aces - always split",
    "Q3": "four of a kind with three of a kind - pair in the low hand",
    "Q2": "four of a kind with a pair - pair in the low hand",
    "Q29": "four of a kind 2-9 - never split",
    "QTA": "four of a kind 10-K with an ace for the low hand - in the high hand",
    "QT": "four of a kind 10-K - split",
    "TT": "two three-of-a-kinds - pair of the highest in the low hand",
    "FH2P": "three of a kind and two pairs - highest pair in the low hand",
    "FH2AK": "full house with a pair of 2s and ace-king - ace-king in the low hand",
    "FH": "full house - pair in the low hand",
    "2PA": "two pairs with aces - always split",
    "2PHM": "two pairs, mid and high or high and high - always split",
    "2PLHA": "two pairs, low and high with an ace - both in the high hand",
    "2PLH": "two pairs, low and high - split",
    "2PMMA": "two pairs, mid and mid with an ace - both in the high hand",
    "2PMM": "two pairs, mid and mid - split",
    "2PLLK": "two pairs, low and low or low and mid with a king or ace - both in the high hand",
    "2PLL": "two pairs, low and low or low and mid - split",
    "3P": "three pairs - highest pair in the low hand",
    "SJ": "ace-high straight with an ace and the joker - pair of aces in the high hand",
    "S3": "straight or flush with three of a kind - pair in the low hand",
    "S1": "straight or flush with one pair - pair in the low hand",
    "S": "straight, flush or straight flush - highest two cards in the low hand that keep it",
    "3A": "three aces - pair of aces in the high hand, one ace in the low hand",
    "3K": "three of a kind - in the high hand",
    "1P": "one pair - pair in the high hand, two highest cards in the low hand",
    "0P": "no pair - highest card in the high hand, second and third in the low hand",
}

CASES = [
    Case("No Pair", "As Kd Qc 9h 7s 5d 2c", "Kd Qc", R["0P"]),
    Case("One Pair", "7s 7d 9s 4c 2s Kd 3c", "Kd 9s", R["1P"]),
    # Two Pairs: low 2-6, mid 7-10, high J-K
    Case("Low Pair - Low Pair: split", "4s 4d 3c 3h Qs 9d 8c", "3c 3h", R["2PLL"]),
    Case("Low Pair - Low Pair: except when the hand contains King", "4s 4d 3c 3h Ks 9d 8c", "Ks 9d",
         R["2PLLK"]),
    Case("Low Pair - Mid Pair: except when the hand contains Ace", "9s 9d 3c 3h As 7d 6c", "As 7d",
         R["2PLLK"]),
    Case("Low Pair - High Pair: split", "Js Jd 6c 6h Ks 9d 2c", "6c 6h", R["2PLH"]),
    Case("Low Pair - High Pair: except when the hand contains an Ace", "Js Jd 6c 6h As 9d 2c", "As 9d",
         R["2PLHA"]),
    Case("Mid Pair - Mid Pair: split", "9s 9d 7c 7h Ks 5d 2c", "7c 7h", R["2PMM"]),
    Case("Mid Pair - Mid Pair: except when the hand contains an Ace", "9s 9d 7c 7h As 5d 2c", "As 5d",
         R["2PMMA"]),
    Case("Mid Pair - High Pair: always split", "Js Jd 7c 7h As 9d 2c", "7c 7h", R["2PHM"]),
    Case("High Pair - High Pair: always split", "Ks Kd Jc Jh As 9d 2c", "Jc Jh", R["2PHM"]),
    Case("Aces - any other pair: always split", "As Ad 4c 4h Ks 9d 2c", "4c 4h", R["2PA"]),
    Case("Three Pairs", "Qs Qd 9c 9h 4s 4d 2c", "Qs Qd", R["3P"]),
    Case("Three-of-a-kind: high hand", "8s 8h 8d Kh Qs 4d 3c", "Kh Qs", R["3K"]),
    Case("Three-of-a-kind: three Aces - one Ace in the low hand", "As Ah Ad 9h 8s 4d 3c", "ace-nine high",
         R["3A"]),
    Case("Two three-of-a-kinds", "Ks Kd Kc 5h 5s 5d 2c", "pair of kings", R["TT"]),
    # Straights, Flushes, Straight Flushes and Royal Flushes
    Case("Choice of straight: the highest two cards in the low hand", "4s 5d 6c 7h 8s 9d Kc", "Kc 9d",
         R["S"]),
    Case("Choice of flush or straight flush: the highest two cards", "5h 6h 7h 8h 9h Kh 2c", "Kh 2c", R["S"]),
    Case("Exception: ace-high straight with the joker - pair of aces in the high hand",
         "As Jk Kd Qc Th 5s 2c", "Kd Qc", R["SJ"]),
    Case("Exception with a flush too: still the pair of aces", "As Jk Kh Qh Th 5h 2h", "Kh Qh", R["SJ"]),
    Case("Unless Ace and Joker make A,2,3,4,5: play the straight", "As Jk 2d 3c 4h 9s Kc", "Kc 9s", R["S"]),
    Case("If the hand can be played as a lower Straight, play the Straight", "As Jk Kd Qc Th 9s 2c", "As 2c",
         R["S"]),
    Case("With One Pair: pair in the front", "5s 6d 7c 8h 9s Kd Kc", "Kd Kc", R["S1"]),
    Case("With One Pair: no straight with the pair in front - straight, highest front",
         "5s 6d 7c 8h 9s 9d 2c", "nine-two high", R["S"]),
    Case("With Two Pairs: refer to the two pairs rule", "9s Td Jc Jh Qs Qd Kc", "Jc Jh", R["2PHM"]),
    Case("With Three-of-a-kind: pair in the low hand", "5s 5d 5c 6h 7s 8d 9c", "pair of fives", R["S3"]),
    Case("With Full House: refer to the full house rule", "Jk Ah Ad 7h 7d 4h 2h", "7h 7d", R["FH"]),
    # Full House
    Case("Full House: pair in the low hand", "8s 8d 8c 3h 3s Ad Kc", "3h 3s", R["FH"]),
    Case("Full House exception: pair of 2's and an Ace and King", "8s 8d 8c 2h 2s Ad Kc", "Ad Kc",
         R["FH2AK"]),
    Case("Three-of-a-kind and two pairs: highest pair", "8s 8d 8c Ks Kd 3h 3s", "Ks Kd", R["FH2P"]),
    # Four-of-a-kind
    Case("Four-of-a-kind twos thru nines: never split", "9s 9d 9c 9h As 2d 3c", "As 3c", R["Q29"]),
    Case("Four-of-a-kind tens thru kings: an Ace for the low hand", "Ts Td Tc Th As 2d 3c", "As 3c",
         R["QTA"]),
    Case("Four-of-a-kind tens thru kings: split", "Ts Td Tc Th Ks 2d 3c", "pair of tens", R["QT"]),
    Case("Four Aces: always split", "As Ad Ac Ah Qs Qd 2c", "pair of aces", R["4A"]),
    Case("Four Aces and a pair of Kings: Kings in the low hand", "As Ad Ac Ah Ks Kd 2c", "Ks Kd", R["4AK"]),
    Case("Four-of-a-kind with a pair: pair in the low hand", "Js Jd Jc Jh 2s 2d 7c", "2s 2d", R["Q2"]),
    Case("Four-of-a-kind with three-of-a-kind: pair in the low hand", "9s 9d 9c 9h 4s 4d 4c",
         "pair of fours", R["Q3"]),
    # Five Aces
    Case("Five Aces: always split, two Aces in the low hand", "Jk As Ah Ad Ac Qd 7c", "pair of aces",
         R["5A"]),
    Case("Five Aces and a pair of Kings: Kings in the low hand", "Jk As Ah Ad Ac Kd Kc", "Kd Kc", R["5AK"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sets_each_published_statement(case: Case) -> None:
    check_case(WAY, case)


def test_every_rule_is_exercised() -> None:
    assert rules_not_exercised(WAY, CASES) == []


def test_compiled_path_sets_the_same_hands() -> None:
    check_fast_path_agrees(WAY, CASES)
