"""Settlement in action order: seed 000 rules 13, 16, 19, 21, 23, 26, 28, 49, 63; seed 004 S&K collection."""

from __future__ import annotations

import pytest

from monitor.rules.paigow.errors import SettlementError
from monitor.rules.paigow.setting import Foul, FoulKind
from monitor.rules.paigow.settlement import BankerWager, Bet, LineResult, Role, settle
from monitor.rules.paigow.showdown import Outcome, SpotResult
from monitor.rules.profile import CollectionTier, PaiGowProfile

# No collection, so the worked example's figures stand alone.
FREE = PaiGowProfile(collection=(CollectionTier(up_to=None, fee=0),), table_max=100_000)
FOUL = Foul(FoulKind.FRONT_STRONGER, "seed 000 rule 50a", "front stronger")


def spot(seat: int, outcome: Outcome, backline: Outcome | None = None, foul: bool = False) -> SpotResult:
    return SpotResult(seat, outcome, backline or outcome, foul=FOUL if foul else None)


def test_seed000_rule13_worked_example() -> None:
    """$200 bank; first player $60 loses (140 left), next $60 wins (80 left); the process continues
    until the bank is exhausted; the part of a bet the bank cannot cover, and unused bank, are returned."""
    bets = [Bet("p1", 3, 6000), Bet("p2", 4, 6000), Bet("p3", 5, 10000), Bet("p4", 6, 5000)]
    results = {3: spot(3, Outcome.LOSE), 4: spot(4, Outcome.WIN), 5: spot(5, Outcome.LOSE),
               6: spot(6, Outcome.WIN)}
    s = settle(FREE, BankerWager("bank", 1, 20000), bets, results, action_seat=3)
    lefts = [(ln.party, ln.banker_left) for ln in s.lines]
    assert lefts == [("p1", 14000), ("p2", 8000), ("p3", 0), ("p4", 0)]
    p1, p2, p3, p4 = s.lines
    assert (p1.lost, p1.won, p1.action) == (6000, 0, 6000)
    assert (p2.won, p2.action) == (6000, 6000)
    assert (p3.action, p3.lost, p3.returned) == (8000, 8000, 2000)  # partial cover, the rest returned
    assert (p4.action, p4.result, p4.returned) == (0, LineResult.NO_ACTION, 5000)
    assert s.banker.returned == 0 and s.banker.action == 20000
    assert s.nets() == {"p1": -6000, "p2": 6000, "p3": -8000, "p4": 0, "bank": 8000, "house": 0}
    assert s.total() == 0


def test_seed000_rule13_unused_bank_returned_and_rule21_order() -> None:
    # Action starts at seat 6 and goes clockwise: 6, 7, then 2 (banker at 1 is skipped).
    bets = [Bet("a", 2, 5000), Bet("b", 6, 5000), Bet("c", 7, 5000)]
    results = {2: spot(2, Outcome.WIN), 6: spot(6, Outcome.LOSE), 7: spot(7, Outcome.PUSH)}
    s = settle(FREE, BankerWager("bank", 1, 30000), bets, results, action_seat=6)
    assert [ln.party for ln in s.lines] == ["b", "c", "a"]
    assert [ln.banker_left for ln in s.lines] == [25000, 25000, 20000]  # a push takes nothing out of action
    assert s.banker.returned == 20000 and s.banker.won == 5000 and s.banker.lost == 5000
    assert s.total() == 0


def test_order_matters_when_bank_runs_out() -> None:
    bets = [Bet("w", 2, 10000), Bet("l", 3, 10000)]
    results = {2: spot(2, Outcome.WIN), 3: spot(3, Outcome.LOSE)}
    first_w = settle(FREE, BankerWager("bank", 1, 10000), bets, results, action_seat=2)
    first_l = settle(FREE, BankerWager("bank", 1, 10000), bets, results, action_seat=3)
    assert first_w.nets()["bank"] == -10000 and first_w.nets()["l"] == 0
    assert first_l.nets()["bank"] == 10000 and first_l.nets()["w"] == 0


def test_seed000_rule19_over_table_maximum_gets_no_action() -> None:
    p = PaiGowProfile(collection=(CollectionTier(up_to=None, fee=0),), table_max=10000)
    s = settle(p, BankerWager("bank", 1, 50000), [Bet("big", 2, 15000)], {2: spot(2, Outcome.WIN)}, 2)
    (line,) = s.lines
    assert (line.no_action, line.action, line.won) == (5000, 10000, 10000)
    assert line.wager == line.action + line.returned + line.no_action


def test_seed000_rules26_28_49_backline_and_active_foul() -> None:
    """The most money is the active bettor; his foul loses (49) while the backline bettors are settled
    on the hand set the house way - here the house-way hand beats the banker."""
    bets = [Bet("small", 2, 2000, seated=True), Bet("big", 2, 5000), Bet("mid", 2, 3000)]
    results = {2: spot(2, Outcome.LOSE, backline=Outcome.WIN, foul=True)}
    s = settle(FREE, BankerWager("bank", 1, 100000), bets, results, action_seat=2)
    assert [(ln.party, ln.role, ln.result) for ln in s.lines] == [
        ("big", Role.ACTIVE, LineResult.FOUL), ("mid", Role.BACKLINE, LineResult.WIN),
        ("small", Role.BACKLINE, LineResult.WIN)]
    assert s.nets() == {"big": -5000, "mid": 3000, "small": 2000, "bank": 0, "house": 0}
    assert all(ln.rule == "seed 000 rule 49" for ln in s.lines)


def test_active_bettor_tie_goes_to_seated_player() -> None:
    bets = [Bet("back", 2, 5000), Bet("seat", 2, 5000, seated=True)]
    s = settle(FREE, BankerWager("bank", 1, 100000), bets, {2: spot(2, Outcome.PUSH)}, 2)
    assert s.lines[0].party == "seat" and s.lines[0].role is Role.ACTIVE


def test_seed004_sk_collection_in_advance_per_bet() -> None:
    p = PaiGowProfile()  # S&K schedule: $0.50 for $5-$50, $1 to $100, at most $3
    bets = [Bet("a", 2, 500), Bet("b", 3, 5000), Bet("c", 4, 5100), Bet("d", 5, 40000)]
    results = {k: spot(k, Outcome.PUSH) for k in (2, 3, 4, 5)}
    s = settle(p, BankerWager("bank", 1, 100000), bets, results, action_seat=2)
    assert [ln.collected for ln in s.lines] == [50, 50, 100, 300]
    assert s.banker.collected == 300
    assert s.house.collected == 800 and s.total() == 0
    assert s.nets()["a"] == -50


def test_seed000_rule63_free_collection_first_hands() -> None:
    p = PaiGowProfile(free_collection_hands=4)
    bets, results = [Bet("a", 2, 2000)], {2: spot(2, Outcome.PUSH)}
    for hand in (1, 4):
        s = settle(p, BankerWager("bank", 1, 10000), bets, results, 2, hand_number_in_game=hand)
        assert s.house.collected == 0
    s = settle(p, BankerWager("bank", 1, 10000), bets, results, 2, hand_number_in_game=5)
    assert s.house.collected == 50 + 100  # the $20 bet and the $100 bank


def test_seed000_rule18_under_minimum_still_gets_action_but_is_flagged() -> None:
    s = settle(FREE, BankerWager("bank", 1, 10000), [Bet("a", 2, 100)], {2: spot(2, Outcome.WIN)}, 2)
    assert s.lines[0].under_minimum and s.lines[0].won == 100


def test_bad_input_named() -> None:
    with pytest.raises(SettlementError, match="no showdown result for seat 3"):
        settle(FREE, BankerWager("bank", 1, 100), [Bet("a", 3, 100)], {}, 3)
    with pytest.raises(SettlementError, match="banker's seat 1"):
        settle(FREE, BankerWager("bank", 1, 100), [Bet("a", 1, 100)], {1: spot(1, Outcome.WIN)}, 3)
    with pytest.raises(SettlementError, match="non-negative"):
        settle(FREE, BankerWager("bank", 1, 100), [Bet("a", 2, -5)], {2: spot(2, Outcome.WIN)}, 2)
