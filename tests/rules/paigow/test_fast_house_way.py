"""The compiled (numba) house way agrees with the reference interpreter hand for hand, for every built-in
house way and for a room's own rules using every operator of the condition language."""

from __future__ import annotations

import numpy as np
import pytest

from monitor.rules.cards import card_from_index
from monitor.rules.errors import CardCountError
from monitor.rules.paigow.catalog import BUILT_IN, built_in
from monitor.rules.paigow.fast_house_way import compile_house_way, set_hands_batch
from monitor.rules.paigow.house_way import HouseWay, set_hand
from monitor.rules.paigow.setting import FRONT_INDEX_PAIRS
from monitor.rules.profile import LUCKY_CHANCES, NEVADA_WHEEL, PaiGowProfile

CUSTOM = HouseWay.from_mapping({
    "name": "operators",
    "rules": [
        {"name": "chain", "when": "2 <= pair2 < pair1 <= 9 and not K in singles", "front": ["low_pair"]},
        {"name": "sum", "when": "pair1 + single1 - 3 >= 20 or A not in singles and joker", "prefer": "back"},
        {"name": "flush", "when": "flush == true", "back_min": "flush"},
        {"name": "floor", "when": "pairs == 1 and not royal_flush", "back": ["pair1"], "front_min": "K"},
        {"name": "improve", "when": "complete", "back": ["single1"], "beats_front_with": "straight"},
        {"name": "pair up", "when": "pairs >= 2", "front_min": "pair", "prefer": "back"},
        {"name": "broadway", "when": "only_ace_high_straight or royal_flush", "back": ["single1"]},
        {"name": "rest", "when": "true"},
    ],
})


def _hands(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    with_joker = [[52, *rng.choice(52, 6, replace=False)] for _ in range(n // 4)]  # plenty of jokers
    rest = [rng.choice(53, 7, replace=False) for _ in range(n - n // 4)]
    return np.array([*with_joker, *rest], dtype=np.int64)


@pytest.mark.parametrize(
    ("way", "profile"),
    [*((built_in(w), PaiGowProfile()) for w in BUILT_IN), (built_in("trump_plaza"), LUCKY_CHANCES),
     (built_in("foxwoods"), NEVADA_WHEEL), (CUSTOM, PaiGowProfile())],
    ids=[*BUILT_IN, "trump_plaza-lucky_chances", "foxwoods-nevada_wheel", "custom"],
)
def test_fast_path_equals_reference(way: HouseWay, profile: PaiGowProfile) -> None:
    hands = _hands(150, seed=len(way.name))
    split, rule = set_hands_batch(compile_house_way(way), hands, profile)
    for row, k, r in zip(hands, split, rule, strict=True):
        cards = [card_from_index(int(x)) for x in row]
        ref = set_hand(way, cards, profile)
        i, j = FRONT_INDEX_PAIRS[int(k)]
        assert {cards[i], cards[j]} == set(ref.setting.front), (cards, ref.rule)
        assert (way.rules[int(r)].name if r >= 0 else "fallback: best legal setting") == ref.rule


def test_fast_path_rejects_bad_shapes() -> None:
    cw = compile_house_way(built_in("foxwoods"))
    with pytest.raises(CardCountError, match=r"\(N, 7\)"):
        set_hands_batch(cw, np.zeros((3, 6), dtype=np.int64))
    with pytest.raises(CardCountError, match=r"0\.\.52"):
        set_hands_batch(cw, np.full((1, 7), 60))
