"""The Golden Nugget (Las Vegas) house way against its published text (house_ways/golden_nugget.yaml
names the source): one or more hands per statement of the text, the front each statement prescribes."""

from __future__ import annotations

import pytest

from tests.support.house_way import Case, check_case, check_fast_path_agrees, rules_not_exercised

WAY = "golden_nugget"
R = {
    "5AK": "five aces with a pair of kings - five aces in back, kings in front",
    "5A": "five aces - split, two aces in front",
    "Q26": "four of a kind 2-6 - keep together",
    "Q7A": "four of a kind 7-10 with an ace or better to play in front - keep together",
    "Q7": "four of a kind 7-10 - split",
    "QJT": "four of a kind J-K with a pair of 10s or higher - keep together, pair in front",
    "QJ": "four of a kind J-K - split",
    "QA7": "four aces with a pair of 7s or higher - keep together, pair in front",
    "QA": "four aces - split",
    "TT": "three of a kind twice - pair from the higher set in front",
    "FH2P": "full house with two pairs - highest pair in front",
    "FH2AK": "full house with a pair of 2s and ace-king - keep the full house, ace-king in front",
    "FH": "full house - split, pair in front",
    "2PA": "two pair with aces - split",
    "2PJ6A": "two pair, jacks or better and 6s or better with an ace - split",
    "2P7": "two pair, 7s or better without an ace - split",
    "2PB": "two pair - both pairs in back",
    "RFK": "royal flush leaving a king-high front - royal flush in back",
    "RFS": "royal flush - straight or flush in back to play king-high or better in front",
    "RF": "royal flush - in back",
    "SFJ": "straight flush leaving a jack-high front - straight flush in back",
    "SFS": "straight flush - straight or flush in back to play jack-high or better in front",
    "SF": "straight flush - in back",
    "S": "straight or flush - in back, highest front that keeps it",
    "3P": "three pair - highest pair in front",
    "3A": "three aces - break up, one ace in front",
    "3K": "three of a kind - in back",
    "1P": "one pair - pair in back, next two highest in front",
    "0P": "no pair - highest card in back, next two in front",
}

CASES = [
    # No pair: "Place the highest card in the back and the next two highest cards in the front."
    Case("No pair", "As Kd Qc 9h 7s 5d 2c", "Kd Qc", R["0P"]),
    # One pair: "Place the pair in back and the next two highest cards in the front."
    Case("One pair", "7s 7d 9s 4c 2s Kd 3c", "Kd 9s", R["1P"]),
    # Two pair: "Play two pair in back, except split in the following situations: ..."
    Case("Two pair: no exception (6s and 5s, no ace) - in back", "6s 6d 5c 5h Ks 9d 4c", "Ks 9d", R["2PB"]),
    Case("Two pair: jacks and 5s with an ace - not an exception", "Js Jd 5c 5h As 9d 2c", "As 9d", R["2PB"]),
    Case("Two pair: 9s and 3s with an ace - not an exception", "9s 9d 3c 3h As Kd 2c", "As Kd", R["2PB"]),
    Case("Two pair, split: one pair is 7's or greater and no ace singleton", "7s 7d 2c 2h Ks 9d 4c",
         "2c 2h", R["2P7"]),
    Case("Two pair, split: pair of jacks or better and 6's or better and an ace singleton",
         "Js Jd 6c 6h As 9d 2c", "6c 6h", R["2PJ6A"]),
    Case("Two pair, split: pair of aces and any other pair", "As Ad 4c 4h Ks 9d 2c", "4c 4h", R["2PA"]),
    # Three pair: "Always play highest pair in front."
    Case("Three pair", "Qs Qd 9c 9h 4s 4d 2c", "Qs Qd", R["3P"]),
    # Three of a kind: "Always play three of a kind in back except break up three aces."
    Case("Three of a kind in back", "8s 8h 8d Kh Qs 4d 3c", "Kh Qs", R["3K"]),
    Case("Three of a kind: break up three aces", "As Ah Ad 9h 8s 4d 3c", "ace-nine high", R["3A"]),
    # Full house: "Split except with pair of 2's and an ace/king can be played in front."
    Case("Full house: split", "8s 8d 8c 3h 3s Ad Kc", "3h 3s", R["FH"]),
    Case("Full house: pair of 2's without ace-king - split", "8s 8d 8c 2h 2s Ad Qc", "2h 2s", R["FH"]),
    Case("Full house: pair of 2's and ace/king - keep together", "8s 8d 8c 2h 2s Ad Kc", "Ad Kc", R["FH2AK"]),
    # Full house with three of a kind and two pairs: "Play the highest pair in front."
    Case("Full house with two pairs", "8s 8d 8c Ks Kd 3h 3s", "Ks Kd", R["FH2P"]),
    # Three of a kind twice: "Always play highest pair in front."
    Case("Three of a kind twice", "Ks Kd Kc 5h 5s 5d 2c", "pair of kings", R["TT"]),
    # Straights and flushes: "Always play straight or flush in the high hand except play as a two pair if ..."
    Case("Straight with one pair: straight in back, pair in front", "5s 6d 7c 8h 9s Kd Kc", "Kd Kc", R["S"]),
    Case("Straight with three of a kind: straight in back", "5s 5d 5c 6h 7s 8d 9c", "pair of fives", R["S"]),
    Case("Straight with 8s and 7s, no ace: straight in back", "5s 6d 7c 7h 8s 8d 9c", "eight-seven high",
         R["S"]),
    Case("Six-card straight: the lower straight in back, highest front", "4s 5d 6c 7h 8s 9d Kc", "Kc 9d",
         R["S"]),
    Case("Seven-card straight: the lower straight in back", "3s 4d 5c 6h 7s 8d 9c", "9c 8d", R["S"]),
    Case("Straight played as two pair: any two pair and an ace singleton", "As 2d 3c 3h 4s 4d 5c", "As 5c",
         R["2PB"]),
    Case("Straight played as two pair: pair of jacks and pair of 6's (or better)", "9s Td Jc Jh Qs Qd Kc",
         "Jc Jh", R["2P7"]),
    # "Play staight or flush over straight flush to improve front hand to jack or better."
    Case("Straight flush leaving a queen-high front: kept", "5h 6h 7h 8h 9h Qd 2c", "Qd 2c", R["SFJ"]),
    Case("Straight flush: a flush in back improves the front to jack-high", "7h 8h 9h Th Jh 2h 3d", "Jh 3d",
         R["SFS"]),
    Case("Straight flush: nothing improves the front to jack - kept", "5h 6h 7h 8h 9h 3d 2c", "3d 2c",
         R["SF"]),
    # "Play staight or flush over royal flush to improve front hand to king or better."
    Case("Royal flush leaving an ace-high front: kept", "Ts Js Qs Ks As Ad 2c", "Ad 2c", R["RFK"]),
    Case("Royal flush: a straight flush in back improves the front to ace-high", "Ts Js Qs Ks As 9s 2d",
         "As 2d", R["RFS"]),
    Case("Royal flush: nothing improves the front to king - kept", "Ts Js Qs Ks As 3d 2d", "3d 2d", R["RF"]),
    # Four of a kind
    Case("Four of a kind 2 through 6: always keep together", "6s 6d 6c 6h As Kd 2c", "As Kd", R["Q26"]),
    Case("Four of a kind 7 through 10: an ace can be played in front", "9s 9d 9c 9h As 5d 2c", "As 5d",
         R["Q7A"]),
    Case("Four of a kind 7 through 10: a pair (better than an ace) in front", "9s 9d 9c 9h 4s 4d 2c", "4s 4d",
         R["Q7A"]),
    Case("Four of a kind 7 through 10: split", "9s 9d 9c 9h Ks 5d 2c", "pair of nines", R["Q7"]),
    Case("Four of a kind jack through king: a pair of 10's - keep together", "Ks Kd Kc Kh Ts Td 2c", "Ts Td",
         R["QJT"]),
    Case("Four of a kind jack through king: a pair of 9s - split", "Ks Kd Kc Kh 9s 9d 2c", "pair of kings",
         R["QJ"]),
    Case("Four of a kind jack through king: an ace is no exception - split", "Js Jd Jc Jh As 5d 2c",
         "pair of jacks", R["QJ"]),
    Case("Four aces: a pair of 7's in front", "As Ad Ac Ah 7s 7d 2c", "7s 7d", R["QA7"]),
    Case("Four aces: a pair of 6s - split", "As Ad Ac Ah 6s 6d 2c", "pair of aces", R["QA"]),
    # Five aces: "Split unless pair of kings can be played in front."
    Case("Five aces with a pair of kings", "Jk As Ah Ad Ac Kd Kc", "Kd Kc", R["5AK"]),
    Case("Five aces: split", "Jk As Ah Ad Ac Qd 7c", "pair of aces", R["5A"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sets_each_published_statement(case: Case) -> None:
    check_case(WAY, case)


def test_every_rule_is_exercised_and_cites_its_line() -> None:
    assert rules_not_exercised(WAY, CASES) == []


def test_compiled_path_sets_the_same_hands() -> None:
    check_fast_path_agrees(WAY, CASES)
