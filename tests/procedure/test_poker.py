"""Poker procedure monitor (seed 004): deal structure, burns, exposed and duplicate cards, the pot."""

from __future__ import annotations

import random

import pytest

from monitor.alerts.model import Severity
from monitor.procedure.history import PokerHistory
from monitor.procedure.synth import Clock, EventDict, holdem_round, lowball_round
from monitor.rules.cards import parse_cards
from monitor.rules.games.low import eight_or_better_omaha
from tests.support.procedure import codes, find, find_all, only, run

BOARD_GAMES = ("holdem", "holdem_hilo", "omaha", "omaha_hilo", "pineapple")


def poker(game: str = "holdem", seed: int = 1, players: int = 5) -> list[EventDict]:
    return holdem_round(random.Random(seed), Clock(), players=players, game=game)


@pytest.mark.parametrize("game", BOARD_GAMES)
@pytest.mark.parametrize("seed", range(4))
def test_clean_round_raises_no_alert(game: str, seed: int) -> None:
    m = run(poker(game, seed))
    assert codes(m) == []
    h = m.histories[0]
    assert isinstance(h, PokerHistory)
    assert h.burns == 3 and len(h.board) == 5
    assert all(s.awarded == s.expected for s in h.seats)


def test_hole_card_count_against_the_deal_structure() -> None:
    events = poker("omaha")
    seat = events[find(events, "hole_dealt")]["seat"]
    del events[find(events, "hole_dealt")]
    m = run(events)
    a = only(m, "hole_count_wrong")
    assert a.severity is Severity.MISDEAL
    assert f"seat {seat} has 3 hole cards; omaha deals 4" in a.message


def test_missing_burn_before_the_turn() -> None:
    events = poker()
    burns = find_all(events, "burn")
    del events[burns[1]]
    m = run(events)
    a = only(m, "burn_missing")
    assert "before the turn" in a.message and a.rule.seed.startswith("004")


def test_flop_of_two_cards() -> None:
    events = poker()
    i = find(events, "board_dealt")
    events[i]["cards"] = events[i]["cards"][:2]
    m = run(events)
    assert "flop turned 2 card(s); the flop is 3 cards" in only(m, "board_count_wrong").message


def test_two_cards_exposed_on_the_deal_is_a_misdeal() -> None:
    events = poker()
    holes = find_all(events, "hole_dealt")
    events[holes[0]]["face_up"] = True
    events[holes[3]]["face_up"] = True
    m = run(events)
    assert only(m, "poker_cards_exposed").severity is Severity.MISDEAL
    assert only(m, "poker_card_exposed").severity is Severity.PROCEDURE  # the first one, when it happened


def test_same_card_on_board_and_in_a_hand() -> None:
    events = poker()
    hole = events[find(events, "hole_dealt")]["card"]
    i = find(events, "board_dealt")
    events[i]["cards"] = [hole, *events[i]["cards"][1:]]
    m = run(events)
    a = only(m, "poker_duplicate_card")
    assert a.severity is Severity.MISDEAL and hole in a.message


def test_joker_in_holdem_is_not_in_the_deck() -> None:
    events = poker()
    events[find(events, "burn")]["card"] = "Jk"
    m = run(events)
    assert "played without it" in only(m, "card_not_in_deck").message


def test_pot_paid_to_the_wrong_hand() -> None:
    events = poker(seed=2)
    i = find(events, "pot_awarded")
    shown = [events[j]["seat"] for j in find_all(events, "hand_shown")]
    award = events[i]["awards"]
    winners = {a["seat"] for a in award}
    loser = next(s for s in shown if s not in winners)
    events[i]["awards"] = [{"seat": loser, "amount": events[i]["pot"]}]
    m = run(events)
    a = only(m, "pot_wrong_winner")
    assert a.severity is Severity.INTEGRITY and f"seat {loser}" in a.message


def _hilo_with_low(seed_from: int) -> list[EventDict]:
    """An Omaha hi-lo round where a low qualifies and the high and low go to different players."""
    for seed in range(seed_from, seed_from + 400):
        events = poker("omaha_hilo", seed, players=6)
        board = [c for i in find_all(events, "board_dealt") for c in events[i]["cards"]]
        lows = [events[i]["seat"] for i in find_all(events, "hand_shown")
                if eight_or_better_omaha(parse_cards(events[i]["cards"]), parse_cards(board)) is not None]
        award = events[find(events, "pot_awarded")]["awards"]
        if lows and len({a["seat"] for a in award}) >= 2:
            return events
    raise AssertionError("no hi-lo split in 400 seeds")


def test_hilo_split_done_wrong() -> None:
    events = _hilo_with_low(0)
    i = find(events, "pot_awarded")
    high = max(events[i]["awards"], key=lambda a: a["amount"])["seat"]
    events[i]["awards"] = [{"seat": high, "amount": events[i]["pot"]}]  # the high hand scooped
    m = run(events)
    a = only(m, "hilo_split_wrong")
    assert a.severity is Severity.INTEGRITY and "low to" in a.message


@pytest.mark.parametrize("seed", range(4))
def test_clean_lowball_round_raises_no_alert(seed: int) -> None:
    m = run(lowball_round(random.Random(seed), Clock(), players=5))
    assert codes(m) == []
    h = m.histories[0]
    assert isinstance(h, PokerHistory) and h.burns == 1
    assert all(len(s.hole) == 5 for s in h.seats)
    assert all(s.awarded == s.expected for s in h.seats)


def test_lowball_pot_paid_to_the_higher_hand() -> None:
    events = lowball_round(random.Random(5), Clock(), players=4)
    shown = [events[i]["seat"] for i in find_all(events, "hand_shown")]
    i = find(events, "pot_awarded")
    winners = {a["seat"] for a in events[i]["awards"]}
    loser = next(s for s in shown if s not in winners)
    events[i]["awards"] = [{"seat": loser, "amount": events[i]["pot"]}]
    a = only(run(events), "pot_wrong_winner")
    assert f"paid seat {loser}" in a.message and a.rule.seed.startswith("004")


def test_lowball_six_cards_to_a_seat() -> None:
    events = lowball_round(random.Random(6), Clock(), players=3)
    i = find(events, "hole_dealt")
    events.insert(i, {**events[i], "card": "Jk" if events[i]["card"] != "Jk" else "2c"})
    a = only(run(events), "hole_count_wrong")
    assert f"seat {events[i]['seat']} has 6 hole cards; lowball deals 5" in a.message
