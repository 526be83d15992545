"""The Foxwoods house way against its published text (house_ways/foxwoods.yaml names the source): one or
more hands per statement of the text, the front each statement prescribes."""

from __future__ import annotations

import pytest

from tests.support.house_way import Case, check_case, check_fast_path_agrees, rules_not_exercised

WAY = "foxwoods"
R = {
    "5AK": "five aces with a pair of kings - kings in front",
    "5A": "five aces - pair of aces in front",
    "Q3": "four of a kind with three of a kind - pair in front",
    "Q2": "four of a kind with a pair - pair in front",
    "Q6": "four of a kind 6s and below - never split",
    "Q7K": "four of a kind 7s-10s with at least a king to play in front - in back",
    "Q7": "four of a kind 7s-10s - split",
    "QJ": "four of a kind jacks to aces - always split",
    "TS": "two sets - pair from the higher set in front",
    "FH": "full house - highest permissible pair in front",
    "2PJ": "two pair, big pair jacks to aces - small pair in front",
    "2P7A": "two pair, big pair 7s to 10s with an ace to play in front - both pairs in back",
    "2P7": "two pair, big pair 7s to 10s - split",
    "2P3K": "two pair, big pair 3s to 6s with a king or higher to play in front - both pairs in back",
    "2P3": "two pair, big pair 3s to 6s - split",
    "3P": "three pair - high pair in front",
    "S3": "straight or flush with three of a kind - complete hand in back, pair in front",
    "SX": "straight or flush with an ace and a pair of tens to kings - ace in front, pair in back if that "
          "improves the front",
    "S": "straight, flush or straight flush - highest two cards in front that leave a complete hand in back",
    "3A": "three aces - an ace and the next highest card in front",
    "3K": "three of a kind - in back, two highest cards in front",
    "1P": "one pair - pair in back, highest two other cards in front",
    "0P": "no pair - second and third highest cards in front",
}

CASES = [
    Case("No Pair: second and third highest cards in front", "As Kd Qc 9h 7s 5d 2c", "Kd Qc", R["0P"]),
    Case("One Pair: pair in back, highest two other cards in front", "7s 7d 9s 4c 2s Kd 3c", "Kd 9s",
         R["1P"]),
    # Two Pair
    Case("Big pair aces: small pair in front", "As Ad 4c 4h Ks 9d 2c", "4c 4h", R["2PJ"]),
    Case("Big pair jacks: small pair in front, even with an ace", "Js Jd 4c 4h As 9d 2c", "4c 4h", R["2PJ"]),
    Case("Big pair 10s-7s: both pair in back with an ace in front", "9s 9d 3c 3h As Kd 2c", "As Kd",
         R["2P7A"]),
    Case("Big pair 10s-7s: no ace - split", "9s 9d 3c 3h Ks 7d 6c", "3c 3h", R["2P7"]),
    Case("Big pair 6s-3s: both pair in back with a king in front", "6s 6d 3c 3h Ks 9d 2c", "Ks 9d",
         R["2P3K"]),
    Case("Big pair 6s-3s: no king or higher - split", "6s 6d 3c 3h Qs 9d 2c", "3c 3h", R["2P3"]),
    Case("Three Pair: high pair in front", "Qs Qd 9c 9h 4s 4d 2c", "Qs Qd", R["3P"]),
    # Three of a kind
    Case("Three of a Kind, aces: an ace and the next highest card in front", "As Ah Ad 9h 8s 4d 3c",
         "ace-nine high", R["3A"]),
    Case("Three of a Kind, kings and below: two highest cards in front", "8s 8h 8d Kh Qs 4d 3c", "Kh Qs",
         R["3K"]),
    Case("Two Sets: pair from higher set in front", "Ks Kd Kc 5h 5s 5d 2c", "pair of kings", R["TS"]),
    # Straight, Flush, Straight Flush
    Case("With No Pair: two highest cards that leave a complete hand", "4s 5d 6c 7h 8s 9d Kc", "Kc 9d",
         R["S"]),
    Case("With One Pair: highest two cards - the pair", "5s 6d 7c 8h 9s Qd Qc", "Qd Qc", R["S"]),
    Case("With One Pair: highest two cards - no pair", "5s 6d 7c 8h 9s 9d Kc", "king-nine high", R["S"]),
    Case("Exception: ace and pair of 10s, the front improves - ace in front, pair in back",
         "Ah Kh Qd Jc Ts Td 3c", "Ah Kh", R["SX"]),
    Case("Exception: ace and pair of kings - a pair of kings in front cannot be improved",
         "As 2d 3c 4h 5s Kd Kc", "Kd Kc", R["S"]),
    Case("Exception: ace and pair of jacks with a flush - ace-jack in front is not improved",
         "2h 5h 7h 9h Jh Jd Ad", "Ad Jd", R["S"]),
    Case("With Two Pair: play according to two-pair strategy", "5s 6d 7c 7h 8s 8d 9c", "7c 7h", R["2P7"]),
    Case("With Three of a Kind: complete hand in back, pair in front", "5s 5d 5c 6h 7s 8d 9c",
         "pair of fives", R["S3"]),
    # Full House: "Put highest permissible pair in front."
    Case("Full House: the pair in front", "8s 8d 8c 3h 3s Ad Kc", "3h 3s", R["FH"]),
    Case("Full House: twos with ace-king - the pair still in front", "8s 8d 8c 2h 2s Ad Kc", "2h 2s",
         R["FH"]),
    Case("Full House with two pairs: the highest pair", "8s 8d 8c Ks Kd 3h 3s", "Ks Kd", R["FH"]),
    Case("Full House: a pair from the trips, when permissible and higher", "Ac Ad As Kh Kd 2c 2h",
         "pair of aces", R["FH"]),
    # Four of a Kind
    Case("Jacks: always split", "Js Jd Jc Jh As 5d 2c", "pair of jacks", R["QJ"]),
    Case("Aces: always split", "As Ad Ac Ah Ks 5d 2c", "pair of aces", R["QJ"]),
    Case("10s-7s: in back with at least a king up front", "9s 9d 9c 9h Ks 7d 3c", "Ks 7d", R["Q7K"]),
    Case("10s-7s: otherwise split", "9s 9d 9c 9h Qs 7d 3c", "pair of nines", R["Q7"]),
    Case("6s and below: never split", "6s 6d 6c 6h Qs 7d 3c", "Qs 7d", R["Q6"]),
    Case("Four of a Kind with a Pair: play the pair in front", "Js Jd Jc Jh 2s 2d 7c", "2s 2d", R["Q2"]),
    Case("Four of a Kind with Three of a Kind: play the pair in front", "9s 9d 9c 9h 4s 4d 4c",
         "pair of fours", R["Q3"]),
    # Five Aces
    Case("Five Aces: pair of aces in front", "Jk As Ah Ad Ac Qd 7c", "pair of aces", R["5A"]),
    Case("Five Aces: unless a pair of kings can be played in front", "Jk As Ah Ad Ac Kd Kc", "Kd Kc",
         R["5AK"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sets_each_published_statement(case: Case) -> None:
    check_case(WAY, case)


def test_every_rule_is_exercised() -> None:
    assert rules_not_exercised(WAY, CASES) == []


def test_compiled_path_sets_the_same_hands() -> None:
    check_fast_path_agrees(WAY, CASES)
