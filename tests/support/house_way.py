"""Checking a built-in house way against its published text: concrete hands taken from the text's own
statements, each set by the reference interpreter and by the compiled batch path, plus coverage (every
rule of the way is the one that sets at least one of the cases)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from monitor.rules.cards import parse_cards
from monitor.rules.errors import CardParseError
from monitor.rules.paigow.catalog import built_in
from monitor.rules.paigow.fast_house_way import compile_house_way, set_hands_batch
from monitor.rules.paigow.house_way import set_hand
from monitor.rules.paigow.setting import FRONT_INDEX_PAIRS


@dataclass(frozen=True)
class Case:
    """``front``: the two cards the text puts in front (any order), or the front's name when which of
    equal cards goes there is not the text's concern (e.g. 'pair of aces');
    ``rule``: the rule that sets it."""

    line: str  # the published statement the hand illustrates
    hand: str
    front: str
    rule: str

    @property
    def id(self) -> str:
        return f"{self.hand} | {self.line}"


def _front_cards(text: str) -> frozenset[str] | None:
    try:
        cards = parse_cards(text)
    except CardParseError:
        return None
    return frozenset(c.text for c in cards) if len(cards) == 2 else None


def check_case(way_name: str, case: Case) -> None:
    r = set_hand(built_in(way_name), parse_cards(case.hand))
    got = " ".join(sorted(c.text for c in r.setting.front))
    want = _front_cards(case.front)
    if want is None:
        assert r.front.name == case.front, (case.line, got, r.front.name, r.rule)
    else:
        assert frozenset(got.split()) == want, (case.line, got, r.rule)
    assert r.rule == case.rule, (case.line, got)
    assert not r.front > r.back  # never a foul (seed 000 rules 50, 54)


def check_fast_path_agrees(way_name: str, cases: Sequence[Case]) -> None:
    way = built_in(way_name)
    hands = [parse_cards(c.hand) for c in cases]
    split, rule = set_hands_batch(compile_house_way(way), np.array([[c.index for c in h] for h in hands]))
    for cards, k, ri in zip(hands, split, rule, strict=True):
        ref = set_hand(way, cards)
        i, j = FRONT_INDEX_PAIRS[int(k)]
        assert {cards[i], cards[j]} == set(ref.setting.front), cards
        assert way.rules[int(ri)].name == ref.rule, cards


def rules_not_exercised(way_name: str, cases: Sequence[Case]) -> list[str]:
    way = built_in(way_name)
    hit = {set_hand(way, parse_cards(c.hand)).rule for c in cases}
    return [r.name for r in way.rules if r.name not in hit]
