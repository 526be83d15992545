"""House way: the rule language, the built-in ways, custom ways, never fouling (seed 000 rules 50, 54)."""

from __future__ import annotations

import pytest

from monitor.rules.cards import parse_cards
from monitor.rules.paigow.catalog import BUILT_IN, built_in, house_way_for
from monitor.rules.paigow.errors import HouseWayError
from monitor.rules.paigow.house_way import HouseWay, set_hand
from monitor.rules.profile import LUCKY_CHANCES, NEVADA_WHEEL, PaiGowProfile


def hw(way: str, hand: str) -> tuple[str, str, str]:
    r = set_hand(built_in(way), parse_cards(hand))
    return (" ".join(sorted(c.text for c in r.setting.front)), r.front.name, r.rule)


@pytest.mark.parametrize("way", BUILT_IN)
def test_builtins_load_and_cover_basic_shapes(way: str) -> None:
    # no pair: highest card back, next two front
    assert hw(way, "As Kd Qc 9h 7s 5d 2c")[:2] == ("Kd Qc", "king-queen high")
    # one pair: pair back, two highest singles front
    assert hw(way, "7s 7d 9s 4c 2s Kd 3c")[0] == "9s Kd"
    # two pair with aces: always split, small pair in front
    assert hw(way, "As Ad Kc Kh 7s 5d 2c")[0] == "Kc Kh"
    # three pair: highest pair in front
    assert hw(way, "Qs Qd 9c 9h 4s 4d 2c")[0] == "Qd Qs"
    # full house: pair in front
    assert hw(way, "8s 8d 8c 3h 3s Kd 2c")[0] == "3h 3s"
    # five aces with a pair of kings: kings in front
    assert hw(way, "Jk Ad Ac As Ah Kd Kc")[0] == "Kc Kd"
    # trips with a straight: straight in back, pair in front
    assert hw(way, "5s 5d 5c 6h 7s 8d 9c")[1] == "pair of fives"


@pytest.mark.parametrize("way", BUILT_IN)
def test_builtins_name_their_published_source_and_cite_a_line_per_rule(way: str) -> None:
    w = built_in(way)
    assert "wizardofodds.com" in w.source  # every built-in way is one the Wizard of Odds published
    assert [r.name for r in w.rules if not r.cite] == []


def test_two_pair_rules_differ_between_houses() -> None:
    """Low and low pair with a king: Trump Plaza keeps them together (K front), Foxwoods too;
    medium pair with a low pair and only a king: Trump Plaza keeps together, Foxwoods splits."""
    assert hw("trump_plaza", "4s 4d 3c 3h Ks 9d 8c")[0] == "9d Ks"
    assert hw("foxwoods", "4s 4d 3c 3h Ks 9d 8c")[0] == "9d Ks"
    tp = hw("trump_plaza", "9s 9d 3c 3h Ks 7d 6c")
    fx = hw("foxwoods", "9s 9d 3c 3h Ks 7d 6c")
    assert tp[0] == "7d Ks" and fx[0] == "3c 3h"
    # Trump Plaza: medium and high pair always split even with an ace (Foxwoods: big pair J+ splits too).
    assert hw("trump_plaza", "Js Jd 8c 8h As 5d 2c")[0] == "8c 8h"


def test_three_aces_split_and_quads_by_rank() -> None:
    front, name, _ = hw("trump_plaza", "As Ah Ad 9h 8s 4d 3c")
    assert front.startswith("9h A") and name == "ace-nine high"
    assert hw("trump_plaza", "5s 5d 5c 5h Ks 9d 8c")[0] == "9d Ks"  # 2-6 never split
    assert hw("trump_plaza", "Qs Qd Qc Qh Ks 9d 8c")[1] == "pair of queens"  # J-A split
    assert hw("foxwoods", "9s 9d 9c 9h Ks 7d 3c")[0] == "7d Ks"  # 7-10 with a king up front: together


def test_joker_completes_straight_and_plays_as_ace() -> None:
    front, _, rule = hw("trump_plaza", "Jk 2d 3c 4h 5s 9d Tc")
    assert front == "9d Tc" and "straight" in rule
    # Joker with no straight or flush is an ace: it stays in back as the high card.
    assert "Jk" not in hw("trump_plaza", "Jk Kd Qc 9h 7s 5d 2c")[0]


def test_room_defines_its_own_house_way_and_profile_selects_it() -> None:
    mine = {
        "name": "my_room",
        "rules": [
            {"name": "low pair in front", "when": "pairs >= 1", "front": ["low_pair"]},
            {"name": "otherwise best back", "when": "true", "prefer": "back"},
        ],
    }
    p = PaiGowProfile(house_way="my_room")
    way = house_way_for(p, {"my_room": mine})
    r = set_hand(way, parse_cards("7s 7d 9s 4c 2s Kd 3c"))
    # A pair of sevens in front would foul (back king high), so the rule cannot be met: the next applies.
    assert r.rule == "otherwise best back" and r.back.name.startswith("pair of sevens")
    r = set_hand(way, parse_cards("7s 7d 9s 9c 2s Kd 3c"))
    assert r.rule == "low pair in front" and r.front.name == "pair of sevens"
    assert house_way_for(PaiGowProfile(house_way="foxwoods")).name == "foxwoods"


@pytest.mark.parametrize(
    ("data", "msg"),
    [
        ({"rules": []}, "non-empty 'name'"),
        ({"name": "x", "rules": []}, "'rules' must be a non-empty list"),
        ({"name": "x", "rules": [{"name": "r", "when": "pairz == 1"}]}, "rule 1 .*unknown name 'pairz'"),
        ({"name": "x", "rules": [{"name": "r", "when": "__import__('os')"}]}, "Call is not part"),
        ({"name": "x", "rules": [{"name": "r", "when": "pairs =="}]}, "cannot parse"),
        ({"name": "x", "rules": [{"name": "r", "front": ["pair9"]}]}, "unknown group 'pair9'"),
        ({"name": "x", "rules": [{"name": "r", "back_min": "stright"}]}, "unknown back_min 'stright'"),
        ({"name": "x", "rules": [{"name": "r", "prefer": "middle"}]}, "prefer must be"),
        ({"name": "x", "rules": [{"name": "r", "colour": "red"}]}, "unknown key"),
        ({"name": "x", "rules": [{"name": "r", "front": [{"group": "trips", "count": 3}]}]}, "1 or 2"),
        ({"name": "x", "rules": [{"name": "r", "front_min": "2"}]}, "front_min '2' must be 'pair', a rank"),
        ({"name": "x", "rules": [{"name": "r", "front_min": "pears"}]}, "front_min 'pears'"),
        ({"name": "x", "rules": [{"name": "r", "front_min": "A1"}]}, "two ranks"),
        ({"name": "x", "rules": [{"name": "r", "beats_front_with": "strait"}]}, "unknown beats_front_with"),
        ({"name": "x", "rules": [{"name": "r", "cite": 12}]}, "cite must be text"),
        ({"name": "x", "sources": "y", "rules": [{"name": "r"}]}, "unknown key"),
    ],
)
def test_bad_definitions_get_clear_errors(data: dict[str, object], msg: str) -> None:
    with pytest.raises(HouseWayError, match=msg):
        HouseWay.from_mapping(data)


@pytest.mark.parametrize(("spec", "least"), [("pair", "2c 2d"), ("j", "Jc 2d"), ("AJ", "Ac Jd"),
                                              ("ja", "Ac Jd"), ("77", "7c 7d"), ("T9", "Tc 9d"),
                                              ("23", "3c 2d")])
def test_front_min_forms(spec: str, least: str) -> None:
    way = HouseWay.from_mapping({"name": "r", "rules": [{"name": "r", "front_min": spec}]})
    assert way.rules[0].front_min == least


def test_front_min_and_beats_front_with() -> None:
    """front_min: the front must reach a rank (or a pair); beats_front_with: the front must beat the best
    front any setting with a back of that category allows - else the rule is skipped."""
    way = HouseWay.from_mapping({"name": "r", "rules": [
        {"name": "pair in back, queen-high front", "when": "pairs == 1", "back": ["pair1"], "front_min": "Q"},
        {"name": "one pair, better than the straight's front", "when": "pairs == 1", "back": ["pair1"],
         "beats_front_with": "straight"},
        {"name": "rest", "when": "true"},
    ]})
    assert set_hand(way, parse_cards("7s 7d Qs 4c 2s 9d 3c")).rule == "pair in back, queen-high front"
    # J-9 front: below queen-high; no straight at all, so any front beats "the straight's best front".
    r = set_hand(way, parse_cards("7s 7d Js 4c 2s 9d 3c"))
    assert r.rule == "one pair, better than the straight's front"
    # 3-4-5-6-7 with 7-7: the straight leaves J-7 in front, the pair in back leaves J-6: not better.
    assert set_hand(way, parse_cards("7s 7d Js 3c 4s 5d 6c")).rule == "rest"


@pytest.mark.parametrize("profile", [PaiGowProfile(), NEVADA_WHEEL, LUCKY_CHANCES],
                         ids=["default", "nevada", "lucky"])
@pytest.mark.parametrize(("hand", "expected"), [
    ("As Kd Qc Jh Ts 3c 2d", True),   # broadway only
    ("Ah Kh Qh Jh Th 3c 2d", True),   # a royal flush is ace-high too
    ("As 2d 3c 4h 5s Kd 9c", False),  # the wheel is a lower straight, whatever its rank
    ("Jk Kd Qc Jh Ts 9c 2d", False),  # the joker also makes king-high
    ("As Kd Qc Jh 9s 3c 2d", False),  # no straight at all
])
def test_only_ace_high_straight_feature(hand: str, expected: bool, profile: PaiGowProfile) -> None:
    way = HouseWay.from_mapping({"name": "r", "rules": [
        {"name": "ace-high only", "when": "only_ace_high_straight", "prefer": "back"},
        {"name": "rest", "when": "true"},
    ]})
    assert (set_hand(way, parse_cards(hand), profile).rule == "ace-high only") is expected


def test_unknown_house_way_name() -> None:
    with pytest.raises(HouseWayError, match="no built-in house way 'caesars'"):
        house_way_for(PaiGowProfile(house_way="caesars"))
