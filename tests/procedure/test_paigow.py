"""Pai Gow procedure monitor: one scenario per alert, named for the house rule it enforces.

Each scenario starts from a clean synthetic round (seed 000 followed step by step), breaks
one rule the way a dealer or player would, and checks the monitor names that rule, and only
what follows from it.
"""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from monitor.alerts.model import Severity
from monitor.procedure.history import PaiGowHistory
from monitor.procedure.paigow_rules import PaiGowRules
from monitor.procedure.synth import Clock, PaiGowPlan, paigow_round, paigow_session
from monitor.rules.cards import INK, parse_cards
from monitor.rules.paigow.setting import all_settings, is_foul
from monitor.rules.profile import DEFAULT_PROFILE, NAPA, Direction, PaiGowProfile
from tests.support.procedure import clean_round, codes, find, find_all, only, run

BETS = {2: 2000, 3: 5000, 5: 1000}  # seats 4, 6, 7 have no wager; the banker sits at seat 1


def paigow(m_histories: list[object]) -> PaiGowHistory:
    h = m_histories[0]
    assert isinstance(h, PaiGowHistory)
    return h


# ---- clean rounds ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_clean_round_raises_no_alert(seed: int) -> None:
    events = clean_round(seed)
    m = run(events)
    assert codes(m) == []
    h = paigow(m.histories)
    assert h.complete and h.stub == 4 and h.deals == 1
    for seat in h.seats:
        for w in seat.wagers:
            assert w.expected == w.paid  # every payout matches settlement in action order


def test_clean_session_with_banker_rotation_raises_no_alert() -> None:
    events = paigow_session(random.Random(3), Clock(), rounds=6)
    m = run(events)
    assert codes(m) == []
    assert [h.banker.seat for h in m.histories if isinstance(h, PaiGowHistory)] == [1, 1, 2, 2, 3, 3]


def test_clean_round_with_backline_bettor() -> None:
    events = clean_round(5, banker_seat=1, bets=BETS, backline={3: [("kim", 3000)]})
    m = run(events)
    assert codes(m) == []
    seat3 = next(s for s in paigow(m.histories).seats if s.seat == 3)
    assert [w.bettor for w in seat3.wagers] == [None, "kim"]


# ---- the deal ----------------------------------------------------------------------------------


def test_rule_55_stub_not_four_is_a_misdeal() -> None:
    events = clean_round()
    events[find(events, "stub_counted")]["n"] = 5
    m = run(events)
    a = only(m, "stub_not_four")
    assert a.severity is Severity.MISDEAL
    assert a.rule.rule == "55" and a.rule.seed.startswith("000")
    assert "stub has 5 cards" in a.message
    assert codes(m) == ["stub_not_four"]


def test_rule_55_pile_not_seven_counted_card_by_card() -> None:
    events = clean_round()
    last = find_all(events, "card_dealt")[-1]  # card 49 goes to pile 7
    del events[last]
    i = find(events, "piles_complete")
    events[i]["counts"] = [7, 7, 7, 7, 7, 7, 6]
    events[find(events, "stub_counted")]["n"] = 5
    m = run(events)
    pile = only(m, "pile_not_seven")  # seen card by card and in the count: one alert
    assert "pile 7 has 6 cards" in pile.message
    assert "stub_not_four" in codes(m)


def test_napa_misdeal_3_banker_hand_miscounted() -> None:
    events = clean_round()
    i = find(events, "banker_hand_exposed")
    events[i]["cards"] = events[i]["cards"][:6]
    m = run(events, profile=NAPA)
    a = only(m, "banker_hand_miscounted")
    assert a.severity is Severity.MISDEAL
    assert a.rule.seed.startswith("001") and a.rule.rule == "misdeal 3"


def _first_dealt(events: list[dict[str, object]], want_ace: bool) -> int:
    def pick(e: dict[str, object]) -> bool:
        c = parse_cards(str(e["card"]))[0]
        return (c.is_ace or c.is_joker) == want_ace

    return find(events, "card_dealt", pick)


def test_rule_48a_ace_or_joker_exposed_on_the_deal() -> None:
    events = clean_round()
    i = _first_dealt(events, want_ace=True)
    events[i]["face_up"] = True
    m = run(events)
    a = only(m, "ace_or_joker_exposed")
    assert a.severity is Severity.MISDEAL and a.rule.rule == "48a"
    assert str(events[i]["card"]) in a.message
    assert "one_card_exposed" not in codes(m)


def test_after_a_rule_48_misdeal_the_deals_order_and_pile_counts_are_not_judged() -> None:
    # the dealer gathers the piles after the exposed ace: trips vision counts as cards out of order
    events = clean_round()
    i = _first_dealt(events, want_ace=True)
    events[i]["face_up"] = True
    dealt = find_all(events, "card_dealt")
    j, k = next((j, k) for j, k in pairwise(dealt) if j > i and events[j]["pile"] != events[k]["pile"])

    def swap(evs: list[dict[str, object]]) -> None:
        evs[j]["pile"], evs[k]["pile"] = evs[k]["pile"], evs[j]["pile"]

    swap(events)
    del events[dealt[-1]]  # and one card fewer on its pile
    m = run(events)
    assert "ace_or_joker_exposed" in codes(m)
    assert "deal_order" not in codes(m) and "pile_not_seven" not in codes(m)
    events = clean_round()  # the same swap with no misdeal before it is judged
    swap(events)
    assert "deal_order" in codes(run(events))


def test_rule_48a_an_ace_read_to_its_rank_only_is_an_exposed_ace() -> None:
    events = clean_round()
    i = _first_dealt(events, want_ace=True)
    events[i]["face_up"] = True
    events[i]["rank"] = "A"
    events[i]["card"] = None  # the suit unread: the rank is all rule 48a asks
    m = run(events)
    a = only(m, "ace_or_joker_exposed")
    assert "an ace (suit unread)" in a.message and "one_card_exposed" not in codes(m)


def test_rule_51_an_unread_exposed_card_is_one_exposed_card_named_as_far_as_it_was_read() -> None:
    events = clean_round()
    i = _first_dealt(events, want_ace=False)
    j = find(events, "card_dealt", lambda e: e is not events[i] and not parse_cards(str(e["card"]))[0].is_ace
             and not parse_cards(str(e["card"]))[0].is_joker)
    rank = str(events[i]["card"])[0]
    events[i].update(face_up=True, card=None, rank=rank)
    m = run(events)
    assert f"a card of rank {rank} (suit unread)" in only(m, "one_card_exposed").message
    events[j].update(face_up=True, card=None)  # a second face, not read at all
    m = run(events)
    a = only(m, "two_or_more_exposed")
    assert f"rank {rank} (suit unread), unread card" in a.message
    events[i].update(face_up=False, rank=None)  # the unread face alone: it may be the ace or joker
    a = only(run(events), "one_card_exposed")
    assert "an unread card" in a.message and "ace or the joker is a misdeal, rule 48a" in a.message


def test_rule_48a_an_exposure_reported_unread_then_read_as_an_ace_is_the_same_card_and_a_misdeal() -> None:
    # vision reports an unread face at once (surveillance hears of it) and its read when it comes
    events = clean_round()
    i = _first_dealt(events, want_ace=True)
    pile = events[i]["pile"]
    events[i].update(face_up=True, card=None, rank=None)
    late = {**events[i + 1], "type": "card_exposed", "card": None, "rank": "A", "zone": f"pile:{pile}"}
    for k in ("pile", "face_up", "seat", "front", "back"):
        late.pop(k, None)
    late["media_time"] = events[i]["media_time"]
    events.insert(i + 1, late)
    m = run(events)
    assert "one_card_exposed" in codes(m)  # the unread face, at once
    a = only(m, "ace_or_joker_exposed")  # then the same card, read: rule 48a
    assert a.severity is Severity.MISDEAL and "two_or_more_exposed" not in codes(m)
    # read as another rank: the one exposure it was, nothing more to say
    late["rank"] = "7"
    m = run(events)
    assert codes(m).count("one_card_exposed") == 1 and "two_or_more_exposed" not in codes(m)
    assert "ace_or_joker_exposed" not in codes(m)


def test_rule_48b_two_cards_exposed_is_a_misdeal() -> None:
    events = clean_round()
    i = _first_dealt(events, want_ace=False)
    j = find(events, "card_dealt", lambda e: e is not events[i] and not parse_cards(str(e["card"]))[0].is_ace
             and not parse_cards(str(e["card"]))[0].is_joker)
    events[i]["face_up"] = True
    events[j]["face_up"] = True
    m = run(events)
    a = only(m, "two_or_more_exposed")
    assert a.severity is Severity.MISDEAL and a.rule.rule == "48b"
    assert a.evidence_seqs == sorted([i, j])


def test_rule_51_one_exposed_card_replaced_by_first_stub_card() -> None:
    # Card 10 of the deal lands face up (not an ace in this deck); the dealer replaces it properly.
    events = clean_round(seed=11, expose=10)
    assert not parse_cards(str(events[find(events, "card_dealt", lambda e: e["face_up"])]["card"]))[0].is_ace
    m = run(events)
    a = only(m, "one_card_exposed")
    assert a.severity is Severity.PROCEDURE and a.rule.rule == "51"
    assert codes(m) == ["one_card_exposed"]  # replaced: no further alert


def test_rule_51_exposed_card_not_replaced() -> None:
    events = clean_round(seed=11, expose=10)
    del events[find(events, "exposed_card_replaced")]
    m = run(events)
    assert "one_card_exposed" in codes(m)
    a = only(m, "exposed_card_not_replaced")
    assert "before the piles were delivered" in a.message


def test_rule_60_two_identical_cards_turned_up() -> None:
    events = clean_round(show_deal=False, banker_seat=1, bets=BETS)
    sets = find_all(events, "hand_set")
    a, b = events[sets[0]], events[sets[1]]
    b["back"] = [*b["back"][:4], a["back"][0]]  # seat b shows a card seat a also holds
    m = run(events)
    dup = only(m, "duplicate_card")
    assert dup.severity is Severity.MISDEAL and dup.rule.rule == "60"
    assert a["back"][0] in dup.message


def test_rule_6_deal_order_left_right_left() -> None:
    events = clean_round()
    dealt = find_all(events, "card_dealt")
    events[dealt[2]]["pile"], events[dealt[3]]["pile"] = events[dealt[3]]["pile"], events[dealt[2]]["pile"]
    m = run(events)
    a = only(m, "deal_order")
    assert "card 3 of the deal went to pile 4" in a.message


# ---- action ------------------------------------------------------------------------------------


def test_rules_8_9_21_pile_delivered_to_wrong_seat() -> None:
    events = clean_round(show_deal=False)
    d = find_all(events, "pile_delivered")
    s0, s1 = events[d[0]]["seat"], events[d[1]]["seat"]
    events[d[0]]["seat"], events[d[1]]["seat"] = s1, s0
    m = run(events)
    wrong = [a for a in m.alerts if a.code == "pile_to_wrong_seat"]
    assert len(wrong) == 2
    assert all(a.severity is Severity.MISDEAL for a in wrong)
    assert wrong[0].details["expected_seat"] == s0
    assert "misdeal 4" in [r.rule for r in wrong[0].related_rules]


def _banker_seen_by_vision(events: list[dict[str, object]]) -> int:
    """The round opened by vision (no banker named) and its banker named when its hand went to the
    banker's place, after the deliveries; returns the banker's seat."""
    start = events[find(events, "round_started")]
    banker = start["banker_seat"]
    assert isinstance(banker, int)
    start["banker_seat"], start["source"] = None, "vision"
    last = find_all(events, "pile_delivered")[-1]
    seen = {**events[last], "type": "banker_changed", "seat": banker, "source": "vision"}
    seen.pop("pile")
    events.insert(last + 1, seen)
    return banker


def test_a_banker_named_by_vision_during_the_round_has_the_deliveries_judged_then() -> None:
    events = clean_round(show_deal=False)
    _banker_seen_by_vision(events)
    m = run(events)
    assert codes(m) == []
    assert paigow(m.histories).banker.seat == events[find(events, "banker_changed")]["seat"]
    # a pile to the wrong seat waits for the banker's seat and is judged when vision names it
    events = clean_round(show_deal=False)
    _banker_seen_by_vision(events)
    d = find_all(events, "pile_delivered")
    events[d[0]]["seat"], events[d[1]]["seat"] = events[d[1]]["seat"], events[d[0]]["seat"]
    wrong = [a for a in run(events).alerts if a.code == "pile_to_wrong_seat"]
    banker = events[find(events, "banker_changed")]["seat"]
    assert len(wrong) == 2 and wrong[0].details["banker_seat"] == banker
    # the bank is no capped wager (rule 20): limits wait for the banker's seat; a player's are judged then
    events = clean_round(show_deal=False)
    banker = _banker_seen_by_vision(events)
    player = next(i for i in find_all(events, "bet_placed") if events[i]["seat"] != banker)
    events[player]["amount"] = DEFAULT_PROFILE.table_max + 100
    over = [a for a in run(events).alerts if a.code == "bet_over_max"]
    assert len(over) == 1 and str(events[player]["seat"]) in over[0].message


def test_a_round_opened_by_vision_does_not_presume_last_rounds_banker() -> None:
    # the bank moved (rule 3): judging this round's deliveries from last round's banker was wrong
    first, second = clean_round(seed=3), clean_round(seed=4)
    _banker_seen_by_vision(second)
    start = second[find(second, "round_started")]
    m = run([*first, *second])
    assert [h.banker.seat for h in m.histories if isinstance(h, PaiGowHistory)][1] == \
        second[find(second, "banker_changed")]["seat"]
    assert "pile_to_wrong_seat" not in codes(m) and start["banker_seat"] is None


def test_napa_dice_count_rule_of_the_profile_decides_the_seat() -> None:
    clockwise = PaiGowProfile(name="clockwise_count", dice_direction=Direction.CLOCKWISE)
    events = clean_round(seed=4, profile=clockwise, dice=(1, 1, 2), banker_seat=1, action_pile=1)
    assert codes(run(events, profile=clockwise)) == []
    # The same deliveries judged by a counterclockwise-count room are wrong.
    m = run(events, profile=DEFAULT_PROFILE)
    a = [x for x in m.alerts if x.code == "pile_to_wrong_seat"]
    assert a and "counted counterclockwise" in a[0].message


def test_rule_9_hand_at_seat_without_wager_not_collected() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    for i in reversed(find_all(events, "dead_hand_collected")):
        del events[i]
    m = run(events)
    dead = sorted(a.message for a in m.alerts if a.code == "dead_hand_not_collected")
    assert len(dead) == 3 and "seat 4 has no wager" in dead[0]


def test_rule_9_is_not_judged_in_a_round_where_no_bet_was_seen() -> None:
    # a camera that cannot find the chips on a room's felt reports no bet: every hand is not dead
    events = clean_round(banker_seat=1, bets=BETS)
    for kind in ("dead_hand_collected", "bet_placed", "payout"):
        for i in reversed(find_all(events, kind)):
            del events[i]
    m = run(events)
    assert "dead_hand_not_collected" not in codes(m)
    assert "no bet seen: dead hands not judged (rule 9)" in (paigow(m.histories).deal_note or "")


def test_deliveries_never_judged_for_want_of_the_bankers_seat_are_named_in_the_hand_history() -> None:
    # no console told the banker and the banker's hand was not seen at the banker's place before a misdeal
    events = clean_round(banker_seat=1, bets=BETS)
    start = events[find(events, "round_started")]
    start["banker_seat"], start["source"] = None, "vision"
    for kind in ("banker_changed", "hand_set", "hand_opened", "payout", "dead_hand_collected"):
        for i in reversed(find_all(events, kind)):
            del events[i]
    m = run(events)
    assert "pile_to_wrong_seat" not in codes(m)
    note = paigow(m.histories).deal_note or ""
    assert "deal 1: deliveries not judged: the banker's seat not known" in note, note


def test_rule_8_dice_reading_out_of_range() -> None:
    events = clean_round()
    events[find(events, "dice_rolled")]["values"] = [0, 3, 9]
    m = run(events)
    a = only(m, "dice_out_of_range")
    assert a.severity is Severity.DEVICE and "[0, 3, 9]" in a.message
    assert paigow(m.histories).settlement_note == "no valid dice reading"


def test_rule_8_dice_reader_and_video_disagree() -> None:
    events = clean_round()
    i = find(events, "dice_rolled")
    values = events[i]["values"]
    other = [v % 6 + 1 for v in values]
    events.insert(i + 1, {**events[i], "source": "vision", "values": other})
    m = run(events)
    a = only(m, "dice_disagree")
    assert a.severity is Severity.DEVICE and "vision" in a.message


# ---- settings ----------------------------------------------------------------------------------


def test_rules_49_50_player_foul_loses_backline_plays_house_way() -> None:
    events = clean_round(seed=3, banker_seat=1, bets=BETS, backline={3: [("kim", 3000)]},
                         foul_seats=frozenset({3}))
    m = run(events)
    a = only(m, "player_foul")
    assert a.rule.rule == "49, 50" and "seat 3" in a.message
    assert "house_way_for_backline" in a.details and a.details["backline_bettors"] == ["kim"]
    assert codes(m) == ["player_foul"]  # the dealer settled it as rule 49 says
    seat3 = next(s for s in paigow(m.histories).seats if s.seat == 3)
    player, kim = seat3.wagers
    assert player.result == "foul" and player.expected == -5000
    assert kim.result in ("win", "lose", "push")


def test_rule_50b_front_hand_of_three_cards_is_foul() -> None:
    events = clean_round()
    i = find(events, "hand_set")
    e = events[i]
    e["front"], e["back"] = [*e["front"], e["back"][0]], e["back"][1:]
    m = run(events)
    a = [x for x in m.alerts if x.code == "player_foul"]
    assert a and "front hand has 3 cards" in a[0].message


def test_rule_54_banker_foul_is_reset_house_way() -> None:
    events = clean_round(seed=2)
    i = find(events, "banker_hand_set")
    seven = parse_cards(events[find(events, "banker_hand_exposed")]["cards"])
    foul = next(s for s in all_settings(seven) if is_foul(s))
    events[i]["front"] = [c.text for c in foul.front]
    events[i]["back"] = [c.text for c in foul.back]
    m = run(events)
    a = only(m, "banker_foul")
    assert a.rule.rule == "54" and "house way" in a.message
    assert codes(m) == ["banker_foul"]  # settled on the house-way reset: payouts agree
    assert paigow(m.histories).banker.foul is not None


def test_rule_54_a_banker_setting_read_in_part_is_foul_when_every_reading_of_it_is() -> None:
    events = clean_round(seed=2)
    i = find(events, "banker_hand_set")
    assert (events[i]["front"], events[i]["back"]) == (["4h", "Kd"], ["8s", "Jk", "Td", "Js", "9h"])
    # the joker (an ace here) put in front over a king-high five-card hand; the four and the king
    # read by their ranks alone: foul however their suits are read
    events[i].update(front=[None, "Jk"], front_ranks=["4", None], back=["8s", None, "Td", "Js", "9h"],
                     back_ranks=[None, "K", None, None, None])
    a = only(run(events), "banker_foul")
    assert a.rule.rule == "54" and "4? Jk" in a.message
    # the house way read in part: legal every way
    events[i].update(front=[None, None], front_ranks=["4", "K"], back=["8s", "Jk", "Td", "Js", "9h"],
                     back_ranks=None)
    assert "banker_foul" not in codes(run(events))
    # a card not read at all that could make the five-card hand a straight (a queen): not judged
    events[i].update(front=[None, "Jk"], front_ranks=["4", None], back=["8s", None, "Td", "Js", "9h"])
    assert "banker_foul" not in codes(run(events))


def test_rules_35_37_banker_hand_opened_before_all_set() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    exposed = events.pop(find(events, "banker_hand_exposed"))
    last_set = find_all(events, "hand_set")[-1]
    events.insert(last_set, exposed)
    m = run(events)
    a = only(m, "banker_opened_early")
    late_seat = events[last_set + 1]["seat"]
    assert a.details["unset_seats"] == [late_seat]
    # Rule 37: the unset hand must then be set the house way; this one was not.
    assert only(m, "house_way_unset").message.startswith(f"seat {late_seat}")


def test_rules_35_37_banker_hand_opened_early_with_cards_unread_then_named() -> None:
    # vision saw the hand turned up before it could name its cards: the exposure is judged at once,
    # and the named hand that follows is the hand (its count judged then), not a second exposure
    events = clean_round(banker_seat=1, bets=BETS)
    named = events.pop(find(events, "banker_hand_exposed"))
    last_set = find_all(events, "hand_set")[-1]
    events[last_set]["house_way"] = True
    partial = {**named, "cards": named["cards"][:2], "unread": 3}
    events.insert(last_set, partial)
    events.insert(last_set + 2, named)
    m = run(events)
    assert codes(m) == ["banker_opened_early"]
    assert paigow(m.histories).banker.cards == named["cards"]
    short = {**named, "cards": named["cards"][:6]}  # the named hand is judged: six cards
    events[last_set + 2] = short
    assert codes(run(events)) == ["banker_opened_early", "banker_hand_miscounted"]


def test_rule_37_unset_hand_set_house_way_after_early_exposure_is_accepted() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    exposed = events.pop(find(events, "banker_hand_exposed"))
    last_set = find_all(events, "hand_set")[-1]
    events[last_set]["house_way"] = True
    events.insert(last_set, exposed)
    assert codes(run(events)) == ["banker_opened_early"]


def test_house_way_request_is_not_an_unset_hand() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    i = find_all(events, "hand_set")[-1]
    seat = events[i]["seat"]
    request = {k: v for k, v in events[i].items() if k not in ("front", "back")}
    events.insert(i, {**request, "type": "house_way_requested"})
    hand = events.pop(i + 1)
    hand["house_way"] = True
    opened = find(events, "hand_opened", lambda e: e["seat"] == seat)
    events.insert(opened, hand)  # set house way by the dealer when the hand is reached (rule 35)
    assert codes(run(events)) == []


def test_rule_58_banker_may_not_reset_after_first_opening() -> None:
    events = clean_round(seed=2)
    seven = parse_cards(events[find(events, "banker_hand_exposed")]["cards"])
    first = events[find(events, "banker_hand_set")]
    legal = [s for s in all_settings(seven) if not is_foul(s)]
    other = next(s for s in legal if [c.text for c in s.front] != first["front"])
    reset = {**first, "front": [c.text for c in other.front], "back": [c.text for c in other.back]}
    events.insert(find(events, "hand_opened") + 1, reset)
    m = run(events)
    a = only(m, "banker_reset_after_opening")
    assert a.rule.rule == "58"
    assert codes(m) == ["banker_reset_after_opening"]  # the first setting stands: payouts still agree


def test_rule_58_a_setting_read_whole_only_after_the_opening_is_no_reset() -> None:
    # perceived video: the banker's setting read by its indices in part (a joker unread), then whole once
    # the first hand was opened: the same setting read better, not a reset; a card that moved is one
    events = clean_round(seed=2)
    i = find(events, "banker_hand_set")
    first = events[i]
    part = {**first, "back": [None, *first["back"][1:]]}
    events[i] = part
    events.insert(find(events, "hand_opened") + 1, first)
    assert "banker_reset_after_opening" not in codes(run(events))
    events = clean_round(seed=2)
    i = find(events, "banker_hand_set")
    first = events[i]
    events[i] = {**first, "back": [None, *first["back"][1:]]}
    swapped = {**first, "front": [first["back"][1], first["front"][1]],
               "back": [first["back"][0], first["front"][0], *first["back"][2:]]}
    events.insert(find(events, "hand_opened") + 1, swapped)
    assert "banker_reset_after_opening" in codes(run(events))


# ---- money -------------------------------------------------------------------------------------


def test_rule_32_bet_changed_after_no_more_bets() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    i = find(events, "bets_closed")
    events.insert(i + 2, {**events[i], "type": "bet_changed", "seat": 3, "before": 5000, "after": 9000,
                          "bettor": None})
    m = run(events)
    a = only(m, "bet_changed_after_close")
    assert a.severity is Severity.INTEGRITY and a.rule.rule == "32"
    assert "$50 to $90" in a.message
    assert codes(m) == ["bet_changed_after_close"]  # settled on the wager as it stood at no more bets


def test_rule_32_bet_placed_after_dice_opened() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    del events[find(events, "bets_closed")]
    i = find(events, "dice_rolled")
    events.insert(i + 1, {**events[i], "type": "bet_placed", "seat": 4, "amount": 2500, "bettor": None,
                          "source": "vision"})
    del events[i + 1]["values"]
    m = run(events)
    assert "bet_changed_after_close" in codes(m)


def test_rule_32_a_bet_seen_resting_before_the_close_but_reported_after_it_is_not_a_change() -> None:
    # a camera confirms chips after they rest a moment: the report can follow "no more bets"
    events = clean_round(banker_seat=1, bets=BETS)
    i = find(events, "bets_closed")
    closed_at = float(events[i]["media_time"])
    assert closed_at > 0.5
    events.insert(i + 1, {**events[i], "type": "bet_changed", "seat": 3, "before": 5000, "after": 9000,
                          "bettor": None, "source": "vision", "media_time": closed_at - 0.2})
    m = run(events)
    assert "bet_changed_after_close" not in codes(m)
    later = {**events[i + 1], "media_time": closed_at + 0.2}
    events[i + 1] = later
    assert "bet_changed_after_close" in codes(run(events))


def test_rule_19_bet_over_table_maximum_gets_no_action_on_the_excess() -> None:
    events = clean_round(banker_seat=1, bets={**BETS, 3: 60000})
    m = run(events)
    a = only(m, "bet_over_max")
    assert "$600, over the $500 maximum: $100 gets no action" in a.message
    assert codes(m) == ["bet_over_max"]


def test_rule_18_bet_under_table_minimum() -> None:
    events = clean_round(banker_seat=1, bets={**BETS, 2: 300})
    m = run(events)
    a = only(m, "bet_under_min")
    assert "under the $5 minimum" in a.message


def test_rule_18_a_lower_bound_under_the_minimum_is_not_judged_but_one_over_the_maximum_is() -> None:
    # from straight above a stack shows its top chip: "$3" may be three chips or thirty
    events = clean_round(banker_seat=1, bets={**BETS, 2: 300, 3: 60000})
    for e in events:
        if e["type"] == "bet_placed" and e["seat"] in (2, 3):
            e["at_least"] = True
    assert codes(run(events)) == ["bet_over_max"]


def test_rules_35_49_a_hand_set_uncounted_is_set_and_its_count_is_judged_when_opened() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    cards = {}
    for e in events:  # the camera saw every player's cards set, not how many in each hand
        if e["type"] == "hand_set":
            cards[e["seat"]] = (e["front"], e["back"])
            e.update(front=[], back=[], counted=False)
    assert codes(run(events)) == []  # set before the banker's hand was exposed; nothing to judge yet
    for i, e in enumerate(events):  # the cards are read as each hand is opened
        if e["type"] == "hand_opened":
            front, back = cards[e["seat"]]
            events[i] = {**e, "front": front, "back": back}
    assert codes(run(events)) == []
    i = next(k for k, e in enumerate(events) if e["type"] == "hand_opened")
    opened = events[i]
    events[i] = {**opened, "front": [*opened["front"], opened["back"][0]], "back": opened["back"][1:]}
    assert "player_foul" in codes(run(events))  # three cards in front, seen once turned up


def test_rules_13_23_payout_differs_from_settlement() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    i = find(events, "payout")
    paid = events[i]["amount"]
    events[i]["amount"] = paid + 500
    m = run(events)
    a = only(m, "payout_mismatch")
    assert a.severity is Severity.INTEGRITY and a.details == {"paid": paid + 500, "expected": paid}


def test_rules_13_23_missing_payout_is_reported_at_round_end() -> None:
    events = clean_round(banker_seat=1, bets=BETS)
    nonzero = [i for i in find_all(events, "payout") if events[i]["amount"] != 0]
    del events[nonzero[0]]
    m = run(events)
    assert "settled nothing" in only(m, "payout_mismatch").message


def test_rule_13_banker_money_runs_out_in_action_order() -> None:
    events = clean_round(seed=8, banker_seat=1, bets={2: 20000, 3: 20000, 4: 20000, 5: 20000},
                         banker_wager=2000)
    m = run(events)
    assert codes(m) == []
    h = paigow(m.histories)
    covered = sum(abs(w.expected or 0) for s in h.seats for w in s.wagers)
    assert covered <= 2000  # never more than the banker's money in action (rule 13)


# ---- banker eligibility ------------------------------------------------------------------------


def test_rule_40_banker_without_wager_on_previous_hand() -> None:
    clock = Clock()
    rng = random.Random(1)
    r1 = paigow_round(rng, clock, plan=PaiGowPlan(banker_seat=1, bets={2: 1000, 3: 1000}))
    r2 = paigow_round(rng, clock, plan=PaiGowPlan(banker_seat=4, bets={2: 1000, 3: 1000}))
    m = run(r1 + r2)
    a = only(m, "banker_not_eligible")
    assert "seat 4" in a.message and "rule 40" in a.message
    assert a.round_id == m.histories[1].round_id
    assert m.histories[1].alert_codes == ["banker_not_eligible"]


def test_rule_3a_no_third_consecutive_hand_as_banker() -> None:
    clock = Clock()
    rng = random.Random(1)
    rounds = [paigow_round(rng, clock, plan=PaiGowPlan(banker_seat=1, bets={2: 1000})) for _ in range(3)]
    m = run([e for r in rounds for e in r])
    assert "2 consecutive hands" in only(m, "banker_not_eligible").message


# ---- misdeals, devices -------------------------------------------------------------------------


def test_misdeal_then_redeal_is_judged_afresh() -> None:
    first = clean_round(seed=1)
    events = first[: find(first, "stub_counted") + 1]
    events[-1]["n"] = 5
    events.append({**events[-1], "type": "misdeal_declared", "reason": "stub of five"})
    del events[-1]["n"]
    redeal = clean_round(seed=1)
    events += redeal[find(redeal, "shuffle_done"):]
    m = run(events)
    assert codes(m) == ["stub_not_four"]
    h = paigow(m.histories)
    assert h.deals == 2 and h.misdeals == ["stub of five"]


def test_camera_lost_and_recovered_are_device_alerts() -> None:
    events = clean_round()
    i = find(events, "hand_set")
    base = {k: events[i][k] for k in ("table_id", "seq", "media_time", "wall_time", "confidence")}
    events.insert(i, {**base, "type": "device_lost", "device": "camera", "name": "overhead",
                      "detail": "no frames for 2 s", "source": "vision"})
    events.insert(i + 2, {**base, "media_time": base["media_time"] + 4, "type": "device_recovered",
                          "device": "camera", "name": "overhead", "source": "vision"})
    m = run(events)
    assert codes(m) == ["device_lost", "device_recovered"]
    assert all(a.severity is Severity.DEVICE for a in m.alerts)
    assert "recovered after" in m.alerts[1].message


def _set_face_down(events: list[dict[str, object]]) -> dict[int, tuple[list, list]]:  # type: ignore[type-arg]
    """Every hand set face down (uncounted), and each seat's cards as set."""
    cards: dict[int, tuple[list, list]] = {}  # type: ignore[type-arg]
    for e in events:
        if e["type"] == "hand_set":
            cards[e["seat"]] = (list(e["front"]), list(e["back"]))  # type: ignore[arg-type,index]
            e.update(front=[], back=[], counted=False)
    return cards


def _opened_in_part(foul_seats: frozenset[int], unread: bool = False
                    ) -> tuple[list[dict[str, object]], dict[int, tuple[list, list]]]:
    """A round whose hands were set face down (uncounted) and are read at the opening in part: the
    second card of each front and the last two of each back by rank only (``unread``: the last two
    of the back not read at all)."""
    events = clean_round(seed=3, banker_seat=1, bets=BETS, foul_seats=foul_seats)
    cards = _set_face_down(events)
    for i, e in enumerate(events):
        if e["type"] == "hand_opened":
            front, back = cards[e["seat"]]  # type: ignore[index]
            tail = [None, None] if unread else [back[3][0], back[4][0]]
            events[i] = {**e, "front": [front[0], None], "front_ranks": [None, front[1][0]],
                         "back": [*back[:3], None, None], "back_ranks": [None, None, None, *tail]}
    return events, cards


def test_rule_50a_a_hand_read_in_part_is_foul_only_when_every_reading_of_it_is() -> None:
    events, _ = _opened_in_part(frozenset())
    assert codes(run(events)) == []  # house-way hands: legal however the suits are read
    events, cards = _opened_in_part(frozenset({3}))
    assert cards[3] == (["As", "8c"], ["Jh", "Qh", "3s", "6h", "8h"])  # ace high over queen high
    a = only(run(events), "player_foul")
    assert "seat 3" in a.message and "8?" in a.message and a.rule.rule == "49, 50"
    # the back's last two cards unread: they could pair, so the setting may be legal
    events, _ = _opened_in_part(frozenset({3}), unread=True)
    assert "player_foul" not in codes(run(events))
    assert PaiGowRules().judge_partial(["As", "8"], ["Jh", "Qh", "3s", None, None]) is None


def test_rule_50a_the_scripted_foul_read_to_its_ranks_is_alerted() -> None:
    events = clean_round(seed=3, banker_seat=1, bets=BETS)
    i = find(events, "hand_set", lambda e: e["seat"] == 3)
    events[i].update(front=[], back=[], counted=False)
    j = find(events, "hand_opened", lambda e: e["seat"] == 3)
    # seat 3 shows a queen and a ten in front over a ten-high back hand, read as a vision reads an
    # unfamiliar deck: the ten in front by its rank alone, the back's suits mixed
    events[j] = {**events[j], "front": ["Qc", None], "front_ranks": [None, "T"],
                 "back": ["6d", "8d", "2h", "7c", "Td"]}
    a = only(run(events), "player_foul")
    assert "T?" in a.message and a.rule.rule == "49, 50"


def test_rule_60_a_card_named_in_two_hands_read_in_part_is_a_duplicate() -> None:
    events, _ = _opened_in_part(frozenset())
    opened = find_all(events, "hand_opened")
    a, b = events[opened[0]], events[opened[1]]
    b["back"] = [a["back"][0], *b["back"][1:]]  # type: ignore[index]
    dup = only(run(events), "duplicate_card")
    assert a["back"][0] in dup.message  # type: ignore[index]


def _opened_by_rank_and_ink(seed: int = 3) -> list[dict[str, object]]:
    """A round whose hands were set face down and are read at the opening to ranks and inks only."""
    events = clean_round(seed=seed, banker_seat=1, bets=BETS)
    cards = _set_face_down(events)
    for i, e in enumerate(events):
        if e["type"] == "hand_opened":
            front, back = cards[e["seat"]]  # type: ignore[index]
            events[i] = {**e, "front": [None] * len(front), "back": [None] * len(back),
                         "front_ranks": [c[0] if c != "Jk" else None for c in front],
                         "back_ranks": [c[0] if c != "Jk" else None for c in back],
                         "front_colours": [INK[c[1]] if c != "Jk" else None for c in front],
                         "back_colours": [INK[c[1]] if c != "Jk" else None for c in back],
                         "front_sure": [c != "Jk" for c in front], "back_sure": [c != "Jk" for c in back]}
    return events


def test_rule_60_a_third_card_of_one_rank_and_ink_turned_up_is_a_duplicate_by_count() -> None:
    events = _opened_by_rank_and_ink()
    assert codes(run(events)) == []  # one deck, read to ranks and inks: nothing over-counted
    opened = [events[i] for i in find_all(events, "hand_opened")]
    shown: dict[tuple[str, str], list[int]] = {}
    for e in opened:
        for r, c in zip([*e["front_ranks"], *e["back_ranks"]], [*e["front_colours"], *e["back_colours"]],  # type: ignore[misc]
                        strict=True):
            if r is not None and r != "J":
                shown.setdefault((r, c), []).append(int(e["seat"]))  # type: ignore[call-overload]
    # a rank and ink both of whose cards were turned up in the seats' hands, and a third hand
    (rank, ink), seats = next((k, v) for k, v in sorted(shown.items()) if len(v) == 2 and len(set(v)) == 2)
    third = next(e for e in opened if e["seat"] not in seats)
    k = next(i for i, r in enumerate(third["back_ranks"]) if r is not None and r != rank)  # type: ignore[arg-type]
    third["back_ranks"][k], third["back_colours"][k] = rank, ink  # type: ignore[index]
    a = only(run(events), "duplicate_card")
    assert a.rule.rule == "60" and a.severity is Severity.MISDEAL
    assert "identical" in a.message and "3 seen" in a.message
    assert a.details["by"] == "count" and a.details["count"] == 3 and len(a.details["hands"]) == 3
    # its rank not read surely enough to count (the reader's count budget): not counted
    third["back_sure"][k] = False  # type: ignore[index]
    assert "duplicate_card" not in codes(run(events))
    # read to its rank only (no ink): not counted
    third["back_sure"][k] = True  # type: ignore[index]
    third["back_colours"][k] = None  # type: ignore[index]
    assert "duplicate_card" not in codes(run(events))


def test_rule_60_one_duplicate_alerted_once_by_name_and_by_count() -> None:
    events = clean_round(show_deal=False, banker_seat=1, bets=BETS)
    sets = [events[i] for i in find_all(events, "hand_set")]
    shown = [(e, c) for e in sets for c in (*e["front"], *e["back"]) if c != "Jk"]  # type: ignore[misc]

    def twin_shown(c: str) -> bool:
        return any(t != c and t[0] == c[0] and INK[t[1]] == INK[c[1]] for _, t in shown)
    # a card of one hand named again in another, its rank and ink's other card turned up too: three
    # by count as well as two by name
    a, dup = next((e, c) for e, c in shown if c[0] != "J" and twin_shown(c))
    b = next(e for e in sets if e is not a and dup not in (*e["front"], *e["back"]))  # type: ignore[misc]
    b["back"] = [*b["back"][:4], dup]  # type: ignore[index]
    m = run(events)
    assert codes(m).count("duplicate_card") == 1
    assert f"two {dup} turned up" in only(m, "duplicate_card").message
    # its twin named again as well (two cards of a second deck, one rank and ink): two duplicates
    twin = next(c for _, c in shown if c != dup and c[0] == dup[0] and INK[c[1]] == INK[dup[1]])
    c_hand = a if twin not in (*a["front"], *a["back"]) else b  # type: ignore[misc]
    k = next(i for i, c in enumerate(c_hand["front"]) if c not in (dup, twin))  # type: ignore[arg-type]
    c_hand["front"][k] = twin  # type: ignore[index]
    assert codes(run(events)).count("duplicate_card") == 2


def test_rule_50a_inks_read_settle_a_hand_read_to_its_ranks_alone() -> None:
    events = clean_round(seed=3, banker_seat=1, bets=BETS)
    i = find(events, "hand_set", lambda e: e["seat"] == 3)
    events[i].update(front=[], back=[], counted=False)
    j = find(events, "hand_opened", lambda e: e["seat"] == 3)
    # the scripted foul (a queen and a ten over a ten-high back) with no suit read at all: a flush
    # is possible, nothing is concluded; the back's inks (red and black) rule it out
    ranks_only = {"front": [None, None], "front_ranks": ["Q", "T"], "back": [None] * 5,
                  "back_ranks": ["6", "8", "2", "7", "T"]}
    events[j] = {**events[j], **ranks_only}
    assert "player_foul" not in codes(run(events))
    events[j] = {**events[j], **ranks_only, "back_colours": ["red", "red", "red", "black", None]}
    a = only(run(events), "player_foul")
    assert "seat 3" in a.message and a.rule.rule == "49, 50"


def test_rule_54_inks_read_settle_a_banker_setting_read_to_its_ranks() -> None:
    events = clean_round(seed=2)
    i = find(events, "banker_hand_set")
    # a pair of tens in front over an ace-high five-card hand read to its ranks: foul once its inks
    # show two colours (a read of the banker_foul recording, its four of clubs a king)
    events[i].update(front=[None, None], front_ranks=["T", "T"], back=["4h", None, None, None, None],
                     back_ranks=[None, "9", "8", "A", "K"])
    assert "banker_foul" not in codes(run(events))
    events[i]["back_colours"] = [None, "red", "black", "black", None]
    a = only(run(events), "banker_foul")
    assert a.rule.rule == "54"


def test_colours_must_line_up_with_the_unnamed_cards_of_their_part() -> None:
    from pydantic import ValidationError

    from monitor.events.schema import HandOpened

    base = {"table_id": "T1", "seq": 1, "media_time": 1.0, "wall_time": "2026-01-01T20:00:00Z",
            "source": "vision", "seat": 2, "front": ["Ah", None], "back": ["6d", None, None, None, None]}
    ok = HandOpened.model_validate({**base, "back_colours": [None, "red", None, "black", None]})
    assert ok.back_colours == [None, "red", None, "black", None]
    bad = [({"back_colours": ["red"]}, "one entry per card of back"),
           ({"back_colours": ["red", None, None, None, None]}, "only for a card not named"),
           ({"back_colours": [None, "green", None, None, None]}, "back_colours"),
           ({"front_colours": ["red", None]}, "front_colours: a colour is given only for a card not named"),
           ({"front_colours": [None]}, "one entry per card of front"),
           ({"back_sure": [False, True, False, False, False]}, "only a rank given for a card not named"),
           ({"back_sure": [True] * 5, "back_ranks": [None, "7", "8", "9", "T"]}, "only a rank given"),
           ({"front_sure": [False]}, "one entry per card of front")]
    sure = HandOpened.model_validate({**base, "back_ranks": [None, "7", None, None, None],
                                      "back_sure": [False, True, False, False, False]})
    assert sure.back_sure == [False, True, False, False, False]
    for extra, why in bad:
        with pytest.raises(ValidationError, match=why):
            HandOpened.model_validate({**base, **extra})


def test_rule_55_a_deal_closed_with_its_stub_uncounted_says_so_in_the_hand_history() -> None:
    # a squared stub is not counted from above: the history says rule 55 was not judged, not nothing
    events = clean_round()
    del events[find(events, "stub_counted")]
    m = run(events)
    assert codes(m) == []
    h = paigow(m.histories)
    assert h.stub is None
    assert h.deal_note is not None and "stub not counted" in h.deal_note and "rule 55" in h.deal_note
    assert h.stub_not_counted == "no count reported"


def test_rule_55_a_misdeal_before_the_stub_was_counted_notes_the_voided_deals_stub() -> None:
    events = clean_round()
    i = find(events, "stub_counted")
    events[i] = {**events[i], "type": "misdeal_declared", "source": "operator", "reason": "stub squared"}
    del events[i]["n"]
    m = run(events)
    note = paigow(m.histories).deal_note
    assert note is not None and note.startswith("deal 1: stub not counted")


def _stub_squared(events: list[dict[str, object]]) -> list[dict[str, object]]:
    """The round with the camera saying the stub lay squared where it would have counted it."""
    i = find(events, "stub_counted")
    events[i] = {**events[i], "type": "stub_not_countable", "reason": "squared"}
    del events[i]["n"]
    return events


def test_rule_55_a_stub_said_not_countable_is_named_so_in_the_history_and_raises_nothing() -> None:
    m = run(_stub_squared(clean_round()))
    assert codes(m) == []  # not stub_not_four: no count was made, none is guessed
    h = paigow(m.histories)
    assert h.stub is None and h.stub_not_counted == "squared"
    assert h.deal_note == "deal 1: stub not counted: squared: rule 55 not judged"


def test_rule_55_a_stub_squared_then_counted_is_judged_on_its_count() -> None:
    events = clean_round()
    i = find(events, "stub_counted")
    events.insert(i, {**events[i], "type": "stub_not_countable", "reason": "squared"})
    del events[i]["n"]
    events[i + 1] = {**events[i + 1], "n": 3}
    m = run(events)
    assert "stub_not_four" in codes(m)
    h = paigow(m.histories)
    assert h.stub == 3 and h.stub_not_counted is None and h.deal_note is None


def test_rule_51_an_exposed_card_not_seen_replaced_with_the_stub_uncounted_says_how_it_was_judged() -> None:
    events = _stub_squared(clean_round(seed=11, expose=10))
    del events[find(events, "exposed_card_replaced")]
    a = only(run(events), "exposed_card_not_replaced")
    assert a.details["judged_from"] == "no replacement seen on the pile; stub not counted: squared"


def test_a_counted_stub_leaves_no_note() -> None:
    m = run(clean_round())
    assert paigow(m.histories).deal_note is None
