"""The Claridge (Atlantic City) house way: the Trump Plaza way with the published exceptions
(house_ways/claridge.yaml names the source). The Trump Plaza hands that no exception touches set the same
way; the exceptions get their own hands."""

from __future__ import annotations

import dataclasses

import pytest

from tests.rules.paigow.test_house_way_trump_plaza import CASES as TRUMP_PLAZA_CASES
from tests.rules.paigow.test_house_way_trump_plaza import R as TP
from tests.support.house_way import Case, check_case, check_fast_path_agrees, rules_not_exercised

WAY = "claridge"
FULL_HOUSE = "full house - pair in front"
QUADS_7_ACE = "four of a kind 7-10 with an ace to play in front - keep together"
QUADS_7_SPLIT = "four of a kind 7-10 - split"
QUADS_J_SPLIT = "four of a kind J-K - always split"
CHANGED = {TP["FH2AK"], TP["Q7K"], TP["QJA"]}  # Trump Plaza rules the Claridge exceptions replace
RENAMED = {TP["FH"]: FULL_HOUSE, TP["QJ"]: QUADS_J_SPLIT}

EXCEPTIONS = [
    # "Full house: Always play the pair in the low hand."
    Case("Claridge, Full house: twos with an ace and a king - the pair still in front",
         "8s 8d 8c 2h 2s Ad Kc", "2h 2s", FULL_HOUSE),
    # "7 through 10 then the only exception to splitting is if an ace can be played in front"
    Case("Claridge, Four of a kind 7 through 10: a king is no exception - split", "9s 9d 9c 9h Ks 7d 3c",
         "pair of nines", QUADS_7_SPLIT),
    Case("Claridge, Four of a kind 7 through 10: an ace can be played in front", "9s 9d 9c 9h As 7d 3c",
         "As 7d", QUADS_7_ACE),
    # "jack through king there then always split with no exceptions"
    Case("Claridge, Four of a kind jack through king: always split, even with an ace", "Js Jd Jc Jh As 5d 2c",
         "pair of jacks", QUADS_J_SPLIT),
]
CASES = [
    *(dataclasses.replace(c, rule=RENAMED.get(c.rule, c.rule))
      for c in TRUMP_PLAZA_CASES if c.rule not in CHANGED),
    *EXCEPTIONS,
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sets_each_published_statement(case: Case) -> None:
    check_case(WAY, case)


def test_every_rule_is_exercised() -> None:
    assert rules_not_exercised(WAY, CASES) == []


def test_compiled_path_sets_the_same_hands() -> None:
    check_fast_path_agrees(WAY, CASES)
