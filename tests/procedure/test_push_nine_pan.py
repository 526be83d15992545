"""Push-Nine and Pan (seed 004): the monitor follows the deal and judges the pot with the rules engine."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from monitor.alerts.model import Severity
from monitor.procedure.history import PokerHistory
from monitor.procedure.synth import Clock, EventDict, pan_round, push_nine_round
from monitor.rules.cards import STANDARD_52, Card, parse_cards
from tests.support.procedure import codes, find, find_all, only, run

SEED_004 = "004_de25eb682010f199.txt"


def stacked(hands: list[str], players: int) -> list[Card]:
    """A deck that deals ``hands`` (one per seat in deal order) one card at a time in rotation."""
    cards = [parse_cards(h) for h in hands]
    assert len(cards) == players
    dealt = [cards[p][k] for k in range(3) for p in range(players)]
    rest = [c for c in STANDARD_52 if c not in dealt]
    return rest + dealt[::-1]  # dealt from the end


def push_nine(hands: list[str], pot: int = 2000) -> list[EventDict]:
    """Two players, no folds, deal order as given (``rng`` chosen so nobody folds)."""
    events = push_nine_round(random.Random(0), Clock(), players=2, deck=stacked(hands, 2), pot=pot)
    assert not find_all(events, "player_folded")
    return events


def shown_seats(events: list[EventDict]) -> list[int]:
    return [events[i]["seat"] for i in find_all(events, "hand_shown")]


# ---- Push-Nine -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_clean_push_nine_round_raises_no_alert(seed: int) -> None:
    m = run(push_nine_round(random.Random(seed), Clock(), players=6))
    assert codes(m) == []
    h = m.histories[0]
    assert isinstance(h, PokerHistory) and h.game.value == "push_nine"
    assert all(len(s.hole) == 3 for s in h.seats)
    shown = [s for s in h.seats if s.shown]
    assert shown and all(s.hand and "rank" in s.hand for s in shown)
    if h.pot is not None:  # a single best hand took the pot
        assert all(s.awarded == s.expected for s in h.seats)


def test_push_nine_pot_paid_to_the_lower_rank() -> None:
    # K Q J is a straight (rank 15); A 5 2 is eight points (rank 28): the straight wins.
    events = push_nine(["Ah 5d 2c", "Kh Qd Jc"])
    straight, points = shown_seats(events)[1], shown_seats(events)[0]
    i = find(events, "pot_awarded")
    assert events[i]["awards"] == [{"seat": straight, "amount": 2000}]
    events[i]["awards"] = [{"seat": points, "amount": 2000}]
    a = only(run(events), "push_nine_wrong_winner")
    assert a.severity is Severity.INTEGRITY
    assert a.rule.seed == SEED_004 and a.rule.rule == "Push-Nine"
    assert f"paid seat {points} $20; the rules give seat {straight} $20" in a.message
    assert "K Q J straight (Push-Nine rank 15)" in a.message
    assert a.details["expected"] == {straight: 2000}


def test_push_nine_aces_are_low_except_in_aaa_and_akq() -> None:
    # A 2 3 is the 3-2-1 straight (rank 25) and beats nine points; A A A (rank 1) beats K K K (rank 2).
    m = run(push_nine(["Ac 2d 3h", "4c 5d Kh"]))
    assert codes(m) == []
    hands = {s.seat: s.hand for s in m.histories[0].seats}
    assert sorted(h or "" for h in hands.values()) == ["3 2 1 straight (rank 25)", "9 points (rank 27)"]
    events = push_nine(["Kc Kd Kh", "Ac Ad Ah"])
    aces = shown_seats(events)[1]
    expected = {s.seat: s.expected for s in run(events).histories[0].seats}
    assert expected[aces] == 2000 and sum(v or 0 for v in expected.values()) == 2000


def test_push_nine_tie_is_a_push_pot_with_no_award() -> None:
    # 4 5 K and 3 6 Q both count nine points (rank 27): a push pot, carried to the next hand.
    events = push_nine(["4c 5d Kh", "3s 6h Qd"])
    assert find_all(events, "pot_awarded") == []
    m = run(events)
    assert codes(m) == []
    note = m.histories[0].showdown_note
    assert note is not None and "push pot" in note and "tie on 9 points (rank 27)" in note


def test_push_nine_tie_paid_out_instead_of_a_push_pot() -> None:
    events = push_nine(["4c 5d Kh", "3s 6h Qd"])
    seat = shown_seats(events)[0]
    award = {**events[-1], "type": "pot_awarded", "pot": 2000, "awards": [{"seat": seat, "amount": 2000}]}
    events.insert(len(events) - 1, award)
    a = only(run(events), "push_pot_paid")
    assert a.severity is Severity.INTEGRITY and "push pot" in a.rule.text
    assert f"paid seat {seat} $20" in a.message and "losing players may buy in for 1000 each" in a.message


def test_push_nine_three_cards_each_against_the_deal_structure() -> None:
    events = push_nine_round(random.Random(2), Clock(), players=4)
    seat = events[find(events, "hole_dealt")]["seat"]
    del events[find(events, "hole_dealt")]
    m = run(events)
    a = only(m, "hole_count_wrong")
    assert a.severity is Severity.MISDEAL
    assert f"seat {seat} has 2 hole cards; push_nine deals 3" in a.message


# ---- Pan -----------------------------------------------------------------------------------------


def pan(seed: int = 1, players: int = 5, passing: int = 1) -> list[EventDict]:
    return pan_round(random.Random(seed), Clock(), players=players, passing=passing)


@pytest.mark.parametrize("seed", range(6))
def test_clean_pan_round_raises_no_alert(seed: int) -> None:
    m = run(pan_round(random.Random(seed), Clock(), players=3 + seed % 5))
    assert codes(m) == []
    h = m.histories[0]
    assert isinstance(h, PokerHistory) and h.game.value == "pan"
    assert all(len(s.hole) == 10 for s in h.seats)
    assert all(s.awarded == s.expected for s in h.seats)
    assert h.showdown_note is not None and "is out" in h.showdown_note


def test_pan_collection_reserved_antes_and_two_chips_from_each_player() -> None:
    # Five players, one passes: the house rate for five is 2 chips (seed 004 Pan rule 3), so 3 antes are
    # reserved; the winner collects them and 2 chips from each of the 3 others who played: 9 chips.
    events = pan(players=5, passing=1)
    i = find(events, "pot_awarded")
    winner = events[i]["awards"][0]["seat"]
    assert events[i]["awards"][0]["amount"] == 9
    events[i]["awards"] = [{"seat": winner, "amount": 8}]
    a = only(run(events), "pan_wrong_collection")
    assert a.severity is Severity.INTEGRITY and a.rule.rule == "Pan rules 3, 5"
    assert f"paid seat {winner} 8 chips; the rules give seat {winner} 9 chips" in a.message
    assert "house rate of 2" in a.message


def test_pan_collection_paid_to_a_player_who_did_not_go_out() -> None:
    events = pan(seed=3)
    i = find(events, "pot_awarded")
    winner = events[i]["awards"][0]["seat"]
    other = next(e["seat"] for e in events if e["type"] == "hole_dealt" and e["seat"] != winner)
    events[i]["awards"] = [{"seat": other, "amount": events[i]["awards"][0]["amount"]}]
    a = only(run(events), "pan_wrong_collection")
    assert f"paid seat {other}" in a.message and f"the rules give seat {winner}" in a.message


def test_pan_out_on_an_invalid_condition() -> None:
    events = pan(seed=4)
    i = find(events, "melds_shown")
    melds = events[i]["melds"]
    melds[0] = ["Kh", "Ah", "2h"]  # K A 2 is not a run: aces are low (A 2 3 ... 7 J Q K)
    events[i]["melds"] = melds
    m = run(events)
    a = only(m, "pan_invalid_meld")
    assert a.rule.rule == "Pan definitions"
    assert "K A 2 of hearts is not in sequence" in a.message
    # Nobody went out, so the collection paid is wrong too.
    assert "no player has shown eleven cards melded" in only(m, "pan_wrong_collection").message


def test_pan_foul_hand_more_than_ten_cards() -> None:
    events = pan(seed=5)
    winner = events[find(events, "melds_shown")]["seat"]
    other = next(e["seat"] for e in events if e["type"] == "hole_dealt" and e["seat"] != winner
                 and not any(f["type"] == "player_folded" and f["seat"] == e["seat"] for f in events))
    check = {**events[find(events, "melds_shown")], "seat": other,
             "melds": [["4h", "4h", "4h"]], "held": ["2c", "3c", "5d", "6d", "7s", "Js", "Qs", "Kc"]}
    events.insert(find(events, "pot_awarded"), check)
    m = run(events)
    a = only(m, "pan_foul_hand")
    assert a.severity is Severity.PROCEDURE
    assert f"seat {other} has 11 cards in all (8 held, 3 melded)" in a.message
    assert "pan_wrong_collection" not in codes(m)  # a fouled hand still pays the winner


def test_pan_deck_has_no_eights_nines_or_tens() -> None:
    events = pan(seed=6)
    i = find(events, "melds_shown")
    events[i]["melds"][0] = ["6s", "7s", "8s"]
    m = run(events)
    assert "card_not_in_deck" in codes(m)
    assert "8s seen at seat" in only(m, "card_not_in_deck").message


def test_pan_ten_cards_each() -> None:
    events = pan(seed=7)
    seat = events[find(events, "hole_dealt")]["seat"]
    del events[find(events, "hole_dealt")]
    assert f"seat {seat} has 9 hole cards; pan deals 10" in only(run(events), "hole_count_wrong").message


# ---- a real event stream -------------------------------------------------------------------------


def test_replay_of_a_jsonl_stream_judges_both_games(tmp_path: Path) -> None:
    """Both games one after another at one table, as a JSONL file through ``table-monitor replay``."""
    from monitor.cli import app

    clock = Clock(table_id="CARD-7")
    events = push_nine_round(random.Random(11), clock, players=5)
    events += pan_round(random.Random(12), clock, players=4)
    wrong = find(events, "pot_awarded")
    events[wrong]["awards"] = [{"seat": events[wrong]["awards"][0]["seat"],
                                "amount": events[wrong]["awards"][0]["amount"] - 100}]
    path = tmp_path / "card7.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert [a["code"] for a in doc["alerts"]] == ["push_nine_wrong_winner"]
    assert [h["game"] for h in doc["histories"]] == ["push_nine", "pan"]
    assert doc["histories"][1]["showdown_note"].startswith("seat ")
