"""A table's rule profile in its table file: read, checked field by field, and what it changes."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
import yaml

from monitor.calibration import CalibrationError, load_table, parse_table
from monitor.procedure.monitor import Monitor
from monitor.procedure.synth import Clock, PaiGowPlan, paigow_round
from monitor.rules.paigow.dice import action_seat
from monitor.rules.profile import DEFAULT_PROFILE, NAPA, Direction
from monitor.rules.table_profile import parse_profile, profile_data, profile_line
from tests.support.paths import DOCS, TABLE_FILE


@pytest.fixture(scope="module")
def table_data() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(TABLE_FILE.read_text("utf-8"))
    return data


def _problems(table_data: dict[str, Any], profile: Any) -> list[str]:
    data = {**copy.deepcopy(table_data), "profile": profile}
    with pytest.raises(CalibrationError) as err:
        parse_table(data, "room.yaml")
    assert "table file room.yaml is invalid" in str(err.value)
    return [str(p) for p in err.value.problems]


def test_a_table_file_without_a_profile_is_judged_as_before() -> None:
    cal = load_table(TABLE_FILE)
    assert cal.profile == DEFAULT_PROFILE and cal.profile.dice_direction is Direction.COUNTERCLOCKWISE
    assert "profile" not in cal.to_data()  # the default is not written into a file that had none
    assert parse_profile({}) == (DEFAULT_PROFILE, [])


def test_the_profile_section_is_read_and_written_back(table_data: dict[str, Any]) -> None:
    section = {"name": "room-cw", "based_on": "napa", "house_way": "foxwoods",
               "dice": {"direction": "clockwise", "start": "after_banker"}, "delivery": "counterclockwise",
               "limits": {"min_cents": 1000, "max_cents": 100000},
               "collection": [{"up_to_cents": 10000, "fee_cents": 100}, {"fee_cents": 200}]}
    cal = parse_table({**table_data, "profile": section}, "room.yaml")
    p = cal.profile
    assert (p.name, p.rulebook, p.house_way) == ("room-cw", "napa", "foxwoods")
    assert p.joker_in_flush is NAPA.joker_in_flush  # what based_on gives where the section is silent
    assert p.dice_direction is Direction.CLOCKWISE and not p.banker_counts_as_one
    assert p.delivery_direction is Direction.COUNTERCLOCKWISE and (p.table_min, p.table_max) == (1000, 100000)
    assert p.collection_fee(5000) == 100 and p.collection_fee(50000) == 200
    again = parse_table(yaml.safe_load(yaml.safe_dump(cal.to_data())), "again.yaml")
    assert again.profile == p
    assert parse_profile(profile_data(p)) == (p, [])
    line = profile_line(p)
    assert line.startswith("room-cw: Napa Valley Casino Pai Gow Poker, house way foxwoods, "
                           "dice counted clockwise")
    assert "$10-$1,000" in line and "collection $1 to $100, $2 above" in line


@pytest.mark.parametrize(("section", "expected"), [
    ({"name": "x", "game": "holdem"}, "profile.game: 'holdem' is not allowed (allowed: paigow)"),
    ({"name": "x", "rulebook": "vegas"},
     "profile.rulebook: 'vegas' is not allowed (allowed: livermore, lucky_chances, napa, s_and_k)"),
    ({"name": "x", "house_way": "mine"}, "profile.house_way: 'mine' is not allowed (allowed: trump_plaza, "),
    ({"name": "x", "dice": {"direction": "anticlockwise"}},
     "profile.dice.direction: 'anticlockwise' is not allowed (allowed: clockwise, counterclockwise)"),
    ({"name": "x", "dice": {"start": "seat1"}},
     "profile.dice.start: 'seat1' is not allowed (allowed: banker, after_banker)"),
    ({"name": "x", "dice": {"from": "banker"}}, "profile.dice.from: unknown key (allowed: direction, start)"),
    ({"name": "x", "dice": "clockwise"}, "profile.dice: must be a mapping with keys direction, start, got"),
    ({"name": "x", "delivery": "left"}, "profile.delivery: 'left' is not allowed (allowed: clockwise, "),
    ({"name": "x", "limits": {"min_cents": -5}},
     "profile.limits.min_cents: -5 is not allowed (allowed: a whole number 0 or more cents)"),
    ({"name": "x", "limits": {"max_cents": 12.5}},
     "profile.limits.max_cents: 12.5 is not allowed (allowed: a whole number 1 or more cents)"),
    ({"name": "x", "limits": {"min_cents": 90000}},
     "profile.limits: min_cents 90000 is above max_cents 50000 (allowed: min_cents at most max_cents)"),
    ({"name": "x", "collection": "S&K"}, "profile.collection: must be a list of tiers"),
    ({"name": "x", "collection": [{"up_to_cents": 100, "fee_cents": "50c"}]},
     "profile.collection[0].fee_cents: '50c' is not allowed (allowed: a whole number 0 or more cents)"),
    ({"name": "x", "collection": [{"fee_cents": 100}, {"up_to_cents": 100, "fee_cents": 50}]},
     "profile.collection[0].up_to_cents: only the last tier may be open-ended"),
    ({"name": "x",
      "collection": [{"up_to_cents": 500, "fee_cents": 5}, {"up_to_cents": 100, "fee_cents": 9}]},
     "profile.collection[1].up_to_cents: 100 is not above the tier before it (500); tiers must rise"),
    ({"name": "x", "banker": {"max_consecutive": 0}},
     "profile.banker.max_consecutive: 0 is not allowed (allowed: a whole number 1 or more hands)"),
    ({"name": "x", "banker_pays_collection": "yes"},
     "profile.banker_pays_collection: 'yes' is not allowed (allowed: true, false)"),
    ({"name": "x", "based_on": "vegas"},
     "profile.based_on: 'vegas' is not allowed "
     "(allowed: livermore, lucky_chances, napa, nevada_wheel, s_and_k)"),
    ({"name": "room 1"}, "profile.name: 'room 1' is not allowed (allowed: 1-64 letters, digits, . _ : -)"),
    ({"dice": {"direction": "clockwise"}},
     "profile.name: required when the profile changes livermore's settings"),
    ({"name": "livermore", "dice": {"direction": "clockwise"}},
     "profile.name: 'livermore' is a shipped profile with other settings"),
    ({"name": "x", "seats": 6}, "profile.seats: unknown key (allowed: name, based_on, game, "),
    ("clockwise", "profile: must be a mapping (keys: name, based_on, "),
])
def test_each_bad_field_is_named_with_its_value_and_what_is_allowed(
        table_data: dict[str, Any], section: Any, expected: str) -> None:
    problems = _problems(table_data, section)
    assert any(p.startswith(expected) for p in problems), problems


def test_every_bad_field_is_listed_at_once(table_data: dict[str, Any]) -> None:
    problems = _problems(table_data, {"name": "x", "dice": {"direction": "up", "start": "down"},
                                      "wheel": "high", "limits": {"min_cents": "5"}})
    assert [p.split(":")[0] for p in problems] == [
        "profile.wheel", "profile.dice.direction", "profile.dice.start", "profile.limits.min_cents"]


def _deliveries(events: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(e["pile"], e["seat"]) for e in events if e["type"] == "pile_delivered"]


def test_a_clockwise_count_gives_the_first_pile_to_another_seat(table_data: dict[str, Any]) -> None:
    room = parse_table({**table_data, "profile": {"name": "room-cw", "dice": {"direction": "clockwise"}}},
                       "room.yaml").profile
    dice, banker = (2, 2, 1), 4  # five: the Player-Dealer counts 1, four seats on
    assert action_seat(dice, banker, DEFAULT_PROFILE) == 7  # counterclockwise: 4, 3, 2, 1, 7
    assert action_seat(dice, banker, room) == 1  # clockwise: 4, 5, 6, 7, 1
    plan = PaiGowPlan(banker_seat=banker, bets={2: 2500, 6: 5000}, dice=dice, action_pile=3)
    events = paigow_round(random.Random(5), Clock(table_id="T1"), room, plan)
    assert _deliveries(events)[0] == (3, 1)  # the action pile goes to the seat the room's count ends on

    judged_by_room = Monitor(profiles={"T1": room})
    judged_by_room.feed_many(_parsed(events))
    judged_by_room.finish()
    assert not judged_by_room.alerts
    assert judged_by_room.histories[0].profile == "room-cw"

    judged_by_default = Monitor()
    judged_by_default.feed_many(_parsed(events))
    wrong = [a for a in judged_by_default.alerts if a.code == "pile_to_wrong_seat"]
    assert wrong and {a.profile for a in judged_by_default.alerts} == {"livermore"}


def _parsed(events: list[dict[str, Any]]) -> list[Any]:
    from monitor.events.schema import parse_event

    return [parse_event(e) for e in events]


def test_the_docs_example_reads_as_documented(table_data: dict[str, Any]) -> None:
    text = (DOCS / "table-profile.md").read_text("utf-8")
    example = text.split("## Example", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    room = parse_table({**table_data, **yaml.safe_load(example)}, "room.yaml").profile
    assert room.name == "riverside-ccw" and not room.banker_counts_as_one
    assert room.collection_fee(10000) == 100 and room.collection_fee(10001) == 200
    assert action_seat((2, 2, 1), 4, room) == 6  # as the page works it out
    assert action_seat((2, 2, 1), 4, DEFAULT_PROFILE) == 7
