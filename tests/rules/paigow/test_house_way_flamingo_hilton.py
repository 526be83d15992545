"""The Flamingo Hilton (Las Vegas) house way against its published text (house_ways/flamingo_hilton.yaml
names the source): one or more hands per statement of the text, the front each statement prescribes."""

from __future__ import annotations

import pytest

from tests.support.house_way import Case, check_case, check_fast_path_agrees, rules_not_exercised

WAY = "flamingo_hilton"
R = {
    "5AK": "five aces with a pair of kings - five aces in back, kings in front",
    "5A": "five aces - split, two aces in front",
    "Q26": "four of a kind 2-6 - keep together",
    "Q7A": "four of a kind 7-10 with ace-face or better to play in front - keep together",
    "Q7": "four of a kind 7-10 - split",
    "QJT": "four of a kind J-K with a pair of 10s or higher - keep together, pair in front",
    "QJ": "four of a kind J-K - split",
    "QA7": "four aces with a pair of 7s or higher - keep together, pair in front",
    "QA": "four aces - split",
    "TT": "three of a kind twice - pair from the higher set in front",
    "FH2P": "full house with two pairs - highest pair in front",
    "FH2AK": "full house with a pair of 2s and ace-king - keep the full house, ace-king in front",
    "FH": "full house - split, pair in front",
    "2P6": "two pair, both 6s or less - both pairs in back",
    "2PTA": "two pair, both 10s or less with an ace - both pairs in back",
    "2PF5A": "two pair, face cards and 5s or less with an ace - both pairs in back",
    "2P": "two pair - split",
    "RFK": "royal flush leaving a king-high front - royal flush in back",
    "RFS": "royal flush - broken up for a straight or flush in back and king-high or better in front",
    "RF": "royal flush - in back",
    "SFA": "straight flush leaving ace-face or better in front - straight flush in back",
    "SFS": "straight flush - a straight or flush in back to play ace-face or a pair in front",
    "SF": "straight flush - in back",
    "SKF": "straight and flush - the one leaving king-high or better in front",
    "SFL": "straight and flush - otherwise the flush in back",
    "S": "straight or flush - in back, highest front that keeps it",
    "3P": "three pair - highest pair in front",
    "3A": "three aces - break up, one ace in front",
    "3K": "three of a kind - in back",
    "1P": "one pair - pair in back, two highest singletons in front",
    "0P": "no pair - second and third highest cards in front",
}

CASES = [
    Case("No pair: second and third highest cards in front", "As Kd Qc 9h 7s 5d 2c", "Kd Qc", R["0P"]),
    Case("One pair: two highest singletons in front", "7s 7d 9s 4c 2s Kd 3c", "Kd 9s", R["1P"]),
    # Two pair: "Split the two pair except for the following three situations"
    Case("Two pair except: both pairs are 6's or less", "6s 6d 5c 5h Qs 9d 2c", "Qs 9d", R["2P6"]),
    Case("Two pair except: both pairs are 10's or less plus ace singleton", "9s 9d 5c 5h As 8d 2c", "As 8d",
         R["2PTA"]),
    Case("Two pair except: a pair of face cards, a pair of 5's or less, an ace", "Qs Qd 4c 4h As 8d 2c",
         "As 8d", R["2PF5A"]),
    Case("Two pair: queens and 7s with an ace - split", "Qs Qd 7c 7h As 8d 2c", "7c 7h", R["2P"]),
    Case("Two pair: aces and any pair - split", "As Ad 4c 4h Ks 8d 2c", "4c 4h", R["2P"]),
    Case("Two pair: 9s and 7s, no ace - split", "9s 9d 7c 7h Ks 8d 2c", "7c 7h", R["2P"]),
    Case("Three pair: highest pair in front", "Qs Qd 9c 9h 4s 4d 2c", "Qs Qd", R["3P"]),
    Case("Three of a kind: in back", "8s 8h 8d Kh Qs 4d 3c", "Kh Qs", R["3K"]),
    Case("Three of a kind: break up three aces", "As Ah Ad 9h 8s 4d 3c", "ace-nine high", R["3A"]),
    Case("Three of a kind twice: higher pair in front", "Ks Kd Kc 5h 5s 5d 2c", "pair of kings", R["TT"]),
    # Straights and flushes
    Case("Straight: always in the high hand", "5s 6d 7c 7h 8s 8d 9c", "eight-seven high", R["S"]),
    Case("Six-card straight: highest hand possible in front", "4s 5d 6c 7h 8s 9d Kc", "Kc 9d", R["S"]),
    Case("Straight with three of a kind: in the high hand", "5s 5d 5c 6h 7s 8d 9c", "pair of fives", R["S"]),
    Case("Straight as two pair: aces and any other pair", "As Ad Kc Kh Qd Js Tc", "Kc Kh", R["2P"]),
    Case("Straight as two pair: both pairs 10's or over", "9s Td Jc Jh Qs Qd Kc", "Jc Jh", R["2P"]),
    Case("Straight as two pair: both pairs 10's or under with an ace singleton", "As 2d 3c 3h 4s 4d 5c",
         "As 5c", R["2P6"]),
    Case("Flush with queens, 4s and an ace: not an exception - flush in back", "Qh Qd 4h 4c Ah 7h 9h",
         "Qd 4c", R["S"]),
    Case("Straight and flush: king-high or better in front", "4h 5h 6h 7c 8h Kh 9d", "Kh 9d", R["SKF"]),
    Case("Straight and flush: otherwise the flush in back", "4h 5h 6h 7c 8h Qh 9d", "9d 7c", R["SFL"]),
    # Straight flush
    Case("Straight flush: in back, ace-jack already in front", "5h 6h 7h 8h 9h Ad Jc", "Ad Jc", R["SFA"]),
    Case("Straight flush: a straight instead puts ace-queen in front", "8h 9h Th Jh Qh Ad 7c", "Ad Qh",
         R["SFS"]),
    Case("Straight flush: no ace-face to gain - in back", "5h 6h 7h 8h 9h Ah 3c", "Ah 3c", R["SF"]),
    # Royal flush
    Case("Royal flush: in back, ace-high already in front", "Ts Js Qs Ks As Ad 2c", "Ad 2c", R["RFK"]),
    Case("Royal flush: broken up for a straight flush and ace-high in front", "Ts Js Qs Ks As 9s 2d",
         "As 2d", R["RFS"]),
    Case("Royal flush: nothing king-high to gain - in back", "Ts Js Qs Ks As 3d 2d", "3d 2d", R["RF"]),
    # Full house
    Case("Full house: split", "8s 8d 8c 3h 3s Ad Kc", "3h 3s", R["FH"]),
    Case("Full house: pair of 2's and ace/king - keep together", "8s 8d 8c 2h 2s Ad Kc", "Ad Kc",
         R["FH2AK"]),
    Case("Full house with three of a kind and two pairs", "8s 8d 8c Ks Kd 3h 3s", "Ks Kd", R["FH2P"]),
    # Four of a kind
    Case("Four of a kind 2 through 6: always keep together", "6s 6d 6c 6h As Kd 2c", "As Kd", R["Q26"]),
    Case("Four of a kind 7 through 10: ace and a face card in front", "9s 9d 9c 9h As Qd 2c", "As Qd",
         R["Q7A"]),
    Case("Four of a kind 7 through 10: an ace without a face card - split", "9s 9d 9c 9h As 8d 2c",
         "pair of nines", R["Q7"]),
    Case("Four of a kind jack through king: a pair of 10's - keep together", "Ks Kd Kc Kh Ts Td 2c", "Ts Td",
         R["QJT"]),
    Case("Four of a kind jack through king: split", "Js Jd Jc Jh As 5d 2c", "pair of jacks", R["QJ"]),
    Case("Four aces: a pair of 7's in front", "As Ad Ac Ah 7s 7d 2c", "7s 7d", R["QA7"]),
    Case("Four aces: split", "As Ad Ac Ah Ks 6d 2c", "pair of aces", R["QA"]),
    # Five aces
    Case("Five aces: split", "Jk As Ah Ad Ac Qd 7c", "pair of aces", R["5A"]),
    Case("Five aces: unless a pair of kings can be played in front", "Jk As Ah Ad Ac Kd Kc", "Kd Kc",
         R["5AK"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sets_each_published_statement(case: Case) -> None:
    check_case(WAY, case)


def test_every_rule_is_exercised() -> None:
    assert rules_not_exercised(WAY, CASES) == []


def test_compiled_path_sets_the_same_hands() -> None:
    check_fast_path_agrees(WAY, CASES)
