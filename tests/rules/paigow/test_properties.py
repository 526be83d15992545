"""Hypothesis properties: a house way never fouls and uses exactly the dealt cards (seed 000 rules 50, 54);
settlement conserves money (rules 13, 16, 19, 23)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.rules.cards import PAI_GOW_53, Card
from monitor.rules.paigow.catalog import BUILT_IN, built_in
from monitor.rules.paigow.house_way import GROUPS, HouseWay, set_hand
from monitor.rules.paigow.setting import judge_setting
from monitor.rules.paigow.settlement import BankerWager, Bet, Role, settle
from monitor.rules.paigow.showdown import Outcome, SpotResult
from monitor.rules.profile import LUCKY_CHANCES, NEVADA_WHEEL, PaiGowProfile

seven_cards = st.lists(st.sampled_from(PAI_GOW_53), min_size=7, max_size=7, unique=True)


@settings(max_examples=150, deadline=None)
@given(cards=seven_cards, way=st.sampled_from(BUILT_IN),
       profile=st.sampled_from([PaiGowProfile(), LUCKY_CHANCES, NEVADA_WHEEL]))
def test_house_way_never_fouls_and_uses_exactly_the_dealt_cards(
    cards: list[Card], way: str, profile: PaiGowProfile
) -> None:
    r = set_hand(built_in(way), cards, profile)
    assert sorted(r.setting.cards) == sorted(cards)
    assert judge_setting(r.setting.front, r.setting.back, cards, profile) is None
    assert r.front <= r.back


outcomes = st.sampled_from(list(Outcome))


@st.composite
def hands(draw: st.DrawFn) -> tuple[PaiGowProfile, BankerWager, list[Bet], dict[int, SpotResult], int, int]:
    table_max = draw(st.integers(100, 100_000))
    profile = PaiGowProfile(table_min=0, table_max=table_max, free_collection_hands=draw(st.integers(0, 4)))
    banker_seat = draw(st.integers(1, 7))
    banker = BankerWager("bank", banker_seat, draw(st.integers(0, 300_000)))
    seats = [s for s in range(1, 8) if s != banker_seat]
    bets = [
        Bet(f"p{i}", draw(st.sampled_from(seats)), draw(st.integers(0, 200_000)), seated=draw(st.booleans()))
        for i in range(draw(st.integers(0, 12)))
    ]
    results = {
        s: SpotResult(s, draw(outcomes), draw(outcomes)) for s in {b.seat for b in bets}
    }
    return profile, banker, bets, results, draw(st.integers(1, 7)), draw(st.integers(1, 10))


@settings(max_examples=300, deadline=None)
@given(h=hands())
def test_settlement_conserves_money(
    h: tuple[PaiGowProfile, BankerWager, list[Bet], dict[int, SpotResult], int, int],
) -> None:
    profile, banker, bets, results, action_seat, hand_no = h
    s = settle(profile, banker, bets, results, action_seat, hand_no)
    assert s.total() == 0
    assert sum(s.nets().values()) == 0
    assert len(s.lines) == len(bets)
    for line in s.lines:
        assert line.wager == line.action + line.returned + line.no_action  # chips add up
        assert line.won <= line.action and line.lost <= line.action  # rule 23
        assert line.won == 0 or line.lost == 0
        assert line.action <= profile.table_max  # rule 19
    assert s.banker.wager == s.banker.action + s.banker.returned
    assert s.banker.won == sum(ln.lost for ln in s.lines) and s.banker.lost == sum(ln.won for ln in s.lines)
    assert s.banker.action == s.banker.won + s.banker.lost <= banker.amount  # rule 13
    assert s.house.collected == sum(ln.collected for ln in s.all_lines if ln.role is not Role.HOUSE)
    lefts = [ln.banker_left for ln in s.lines]
    assert lefts == sorted(lefts, reverse=True)  # the bank in action only shrinks


CONDITIONS = ["true", "pairs == 1", "pairs >= 2 and A in singles", "trips or quads", "complete",
              "pair1 + pair2 <= 15", "not flush", "single1 >= K", "five_aces or joker"]


@st.composite
def room_house_ways(draw: st.DrawFn) -> HouseWay:
    rules = []
    for i in range(draw(st.integers(1, 6))):
        rule: dict[str, object] = {"name": f"r{i}", "when": draw(st.sampled_from(CONDITIONS))}
        if draw(st.booleans()):
            rule["front"] = draw(st.lists(st.sampled_from(GROUPS), max_size=2, unique=True))
        if draw(st.booleans()):
            rule["back"] = draw(st.lists(st.sampled_from(GROUPS), max_size=2, unique=True))
        if draw(st.booleans()):
            rule["back_min"] = draw(st.sampled_from(["one_pair", "straight", "flush", "full_house"]))
        if draw(st.booleans()):
            rule["front_min"] = draw(st.sampled_from(["pair", "A", "K", "J", "9", "3"]))
        if draw(st.booleans()):
            rule["beats_front_with"] = draw(st.sampled_from(["high_card", "one_pair", "straight", "flush"]))
        rule["prefer"] = draw(st.sampled_from(["front", "back"]))
        rules.append(rule)
    return HouseWay.from_mapping({"name": "room", "rules": rules})


@settings(max_examples=100, deadline=None)
@given(cards=seven_cards, way=room_house_ways())
def test_any_room_house_way_never_fouls(cards: list[Card], way: HouseWay) -> None:
    """Even a room's own, arbitrary rules cannot make the house way foul (seed 000 rules 50, 54)."""
    r = set_hand(way, cards)
    assert sorted(r.setting.cards) == sorted(cards)
    assert judge_setting(r.setting.front, r.setting.back, cards) is None
