"""Push-Nine: every row of the seed 004 table (1 = AAA ... 36 = zero points), ties and the push pot."""

import pytest

from monitor.rules.cards import parse_cards
from monitor.rules.errors import CardCountError, CardNotInDeckError, DuplicateCardError, RulesError
from monitor.rules.games.profile import GameProfile, PushNineRules
from monitor.rules.games.push_nine import ROW_NAMES, deal_structure, point_value, rank_hand, showdown

# One or more hands for each of the 36 rows of the seed's table, in its order.
ROWS: dict[int, list[str]] = {
    1: ["Ah Ad Ac"],
    2: ["Kh Kd Kc"],
    3: ["Qh Qd Qs"],
    4: ["Jh Jd Jc"],
    5: ["Th Td Tc"],
    6: ["9h 9d 9c"],
    7: ["8h 8d 8c"],
    8: ["7h 7d 7c"],
    9: ["6h 6d 6c"],
    10: ["5h 5d 5c"],
    11: ["4h 4d 4c"],
    12: ["3h 3d 3c"],
    13: ["2h 2d 2c"],
    14: ["Ah Kd Qc", "Qs As Ks"],  # aces high in A K Q; suits never matter
    15: ["Kh Qd Jc"],
    16: ["Qh Jd Tc"],
    17: ["Jh Td 9c"],
    18: ["Th 9d 8c"],
    19: ["9h 8d 7c"],
    20: ["8h 7d 6c"],
    21: ["7h 6d 5c"],
    22: ["6h 5d 4c"],
    23: ["5h 4d 3c"],
    24: ["4h 3d 2c"],
    25: ["3h 2d Ac"],  # 3 2 1: the ace low
    # "THREE FACE CARDS (KKQ, KKJ, KQQ, QQJ, JJK, JJQ)": every one the seed lists.
    26: ["Kh Kd Qc", "Kh Kd Jc", "Kh Qd Qc", "Qh Qd Jc", "Jh Jd Kc", "Jh Jd Qc"],
    # Points: units digit of the sum; "TWENTY-NINE, NINETEEN AND NINE COUNT AS 9 POINTS" and so on.
    27: ["Kh 5d 4c", "9h 6d 4c", "Ah 8d Kc"],
    28: ["Qh 6d 2c", "9h 9d Kc", "Ah Ad 6c"],
    29: ["Jh 4d 3c", "9h 8d Kc", "Ah 3d 3c"],
    30: ["Th 4d 2c", "8h 8d Kc", "7h 8d Ac", "9h 9d 8c"],
    31: ["Kh Qd 5c", "9h 4d 2c", "7h 7d Ac", "9h 9d 7c"],
    32: ["Jh Qd 4c", "8h 4d 2c", "Ah Ad 2c"],
    33: ["Kh Td 3c", "8h 3d 2c", "Ah Kd 2c"],
    34: ["Kh Qd 2c", "7h 3d 2c", "Ah Ad Kc"],
    35: ["Kh Td Ac", "9h 2d Kc", "7h 2d 2c"],
    # Row 36 uses the seed's own zero-point examples below.
}

ZERO_POINT_EXAMPLES = [
    "K K 10", "K Q 10", "K J 10", "Q Q 10", "J J 10", "A K 9", "A 10 9", "K 8 2",
    "Q 7 3", "9 9 2", "J 5 5", "Q 6 4", "5 3 2", "8 7 5",
]


def _seed_hand(text: str) -> str:
    """Turn the seed's suitless 'K K 10' into cards, giving repeated ranks different suits."""
    suits = "hdcs"
    out, seen = [], {}
    for r in text.split():
        rank = "T" if r == "10" else r
        n = seen.get(rank, 0)
        seen[rank] = n + 1
        out.append(rank + suits[n])
    return " ".join(out)


def test_table_has_the_seeds_36_rows() -> None:
    assert len(ROW_NAMES) == 36
    assert ROW_NAMES[0] == "A A A trips" and ROW_NAMES[13] == "A K Q straight"
    assert ROW_NAMES[24] == "3 2 1 straight" and ROW_NAMES[25] == "three face cards"
    assert ROW_NAMES[26] == "9 points" and ROW_NAMES[35] == "0 points"


def test_every_row_below_36_has_a_test_hand() -> None:
    assert sorted(ROWS) == list(range(1, 36))


@pytest.mark.parametrize(("row", "text"), [(r, t) for r, ts in ROWS.items() for t in ts])
def test_each_row_of_the_table(row: int, text: str) -> None:
    h = rank_hand(parse_cards(text))
    assert h.row == row, f"{text}: got {h}"
    assert h.name == ROW_NAMES[row - 1]


@pytest.mark.parametrize("text", ZERO_POINT_EXAMPLES)
def test_seed_zero_point_examples(text: str) -> None:
    h = rank_hand(parse_cards(_seed_hand(text)))
    assert h.row == 36 and h.name == "0 points", f"{text}: got {h}"


def test_point_values_aces_one_tens_and_faces_zero() -> None:
    assert [point_value(c) for c in parse_cards("Ah 2h 9h Th Jh Qh Kh")] == [1, 2, 9, 0, 0, 0, 0]


def test_ranks_are_ordered_by_row() -> None:
    hands = [rank_hand(parse_cards(ts[0])) for _, ts in sorted(ROWS.items())]
    strengths = [h.strength for h in hands]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == 35


def test_not_straights() -> None:
    # A K 9 and K Q 10 are zero points; 2 A K does not wrap around (3 points, row 33).
    assert rank_hand(parse_cards("Ad Kc 9h")).row == 36
    assert rank_hand(parse_cards("Kd Qc Th")).row == 36
    assert rank_hand(parse_cards("2d Ac Kh")).row == 33


def test_showdown_single_winner_takes_the_pot() -> None:
    hands = {"s1": "Kh Kd Qc", "s2": "9h 8d 7c", "s3": "Ah 8s Kc"}
    r = showdown({w: parse_cards(t) for w, t in hands.items()}, pot=3000)
    assert r.winner == "s2" and r.push is None
    assert r.share("s2") == 3000 and r.share("s1") == 0
    assert "9 8 7 straight" in r.reason and "rank 19" in r.reason


def test_tie_makes_a_push_pot_with_half_pot_buy_in() -> None:
    # Seed 004: "if the pot is $20.00, the amount of the buy-in is ten dollars".
    hands = {"s1": "Kh 5d 4c", "s2": "9h 6d 4s", "s3": "2h 3d 7h"}
    r = showdown({w: parse_cards(t) for w, t in hands.items()}, pot=2000)
    assert r.winner is None and r.push is not None
    assert r.push.tied == ("s1", "s2") and r.push.may_buy_in == ("s3",)
    assert r.push.buy_in == 1000
    assert r.push.total_with(["s3"]) == 3000
    assert r.share("s1") == 0
    with pytest.raises(RulesError, match="only losing players may buy in"):
        r.push.total_with(["s1"])


def test_buy_in_fraction_is_a_profile_setting() -> None:
    prof = GameProfile(push_nine=PushNineRules(buy_in_numerator=1, buy_in_denominator=3))
    r = showdown({"a": parse_cards("Ah Kd Qc"), "b": parse_cards("As Kh Qd"), "c": parse_cards("2c 2d 5h")},
                 pot=1000, profile=prof)
    assert r.push is not None and r.push.buy_in == 334  # rounded up: the push pot is never short


@pytest.mark.parametrize(
    ("hands", "error", "fragment"),
    [
        ({"a": "Ah Kd"}, CardCountError, "must have 3 cards"),
        ({"a": "Ah Kd Jk"}, CardNotInDeckError, "Jk not in the standard 52-card deck"),
        ({"a": "Ah Ah Kd"}, DuplicateCardError, "seen twice: Ah"),
        ({"a": "Ah Kd Qc", "b": "Ah 2d 3c"}, DuplicateCardError, "showdown: card(s) seen twice: Ah"),
    ],
)
def test_impossible_input(hands: dict[str, str], error: type[Exception], fragment: str) -> None:
    with pytest.raises(error, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        showdown({w: parse_cards(t) for w, t in hands.items()}, pot=100)


def test_deal_structure_three_cards_each() -> None:
    ds = deal_structure()
    c = ds.expected(10)
    assert (c.hole_per_player, c.board, c.burns, c.dealt, c.stub(ds.deck.size)) == (3, 0, 0, 30, 22)
