"""Each dealing habit's effect on the played round: what the timeline (and so the truth) shows, and
the true events; a bad habit refused by name."""

from __future__ import annotations

import pytest

from monitor.procedure.paigow_rules import PaiGowRules
from monitor.render.rounds.habits import HABITS, habit_profiles, with_habits
from monitor.render.rounds.play import PlayedRound, judge, play_script
from monitor.render.rounds.script import (
    ScriptError,
    load_script,
    parse_script,
    script_to_yaml,
    shipped_scripts,
)
from monitor.render.scene import CardObj, ChipStack, Occluder
from monitor.rules.profile import DEFAULT_PROFILE

CLEAN = load_script(shipped_scripts()["paigow_clean"])


def _play(*habits: str) -> PlayedRound:
    dealt, _ = habit_profiles(list(habits), DEFAULT_PROFILE)
    return play_script(with_habits(CLEAN, list(habits)), "clean.yaml", profile=dealt)


def _first(rnd: PlayedRound, etype: str) -> dict:
    return next(e for e in rnd.events if e["type"] == etype)


def _stub_xs(rnd: PlayedRound) -> list[float]:
    t = _first(rnd, "stub_counted")["media_time"] + 0.1
    scene, _ = rnd.timeline.scene_at(t)
    lay = rnd.timeline.layout
    return [o.x for o in scene.objects if isinstance(o, CardObj) and lay.zone_at(o.x, o.y) == "stub"]


def test_a_squared_stub_stays_in_one_stack() -> None:
    spread, squared = _stub_xs(_play()), _stub_xs(_play("squared_stub"))
    assert len(spread) == len(squared) == 4
    assert max(spread) - min(spread) > 60  # side by side, 24 mm apart
    assert max(squared) - min(squared) < 3
    # the count is the same: the true events do not change
    assert _first(_play("squared_stub"), "stub_counted")["n"] == 4


def _arms_at(rnd: PlayedRound, t: float) -> int:
    scene, _ = rnd.timeline.scene_at(t)
    return sum(isinstance(o, Occluder) for o in scene.objects)


def test_the_dealers_hand_is_out_of_view_for_a_stretch_of_the_deal() -> None:
    rnd = _play("hand_unseen")
    dealt = [e["media_time"] for e in rnd.events if e["type"] == "card_dealt"]
    assert _arms_at(rnd, dealt[2]) == 1  # card 3: seen
    assert all(_arms_at(rnd, dealt[k]) == 0 for k in range(8, 41))  # cards 9 to 41 land unseen
    assert _arms_at(rnd, dealt[45]) == 1
    assert _arms_at(_play(), dealt[20]) == 1


def test_bets_are_down_at_the_first_frame() -> None:
    rnd = _play("bets_before")
    scene, _ = rnd.timeline.scene_at(0.0)
    assert any(isinstance(o, ChipStack) for o in scene.objects)
    assert {e["media_time"] for e in rnd.events if e["type"] == "bet_placed"} == {0.0}
    assert not any(isinstance(o, ChipStack) for o in _play().timeline.scene_at(0.0)[0].objects)


def test_opened_hands_lie_face_up_on_the_betting_circles() -> None:
    rnd = _play("cards_on_circle")
    opened = [e for e in rnd.events if e["type"] == "hand_opened"]
    scene, _ = rnd.timeline.scene_at(_first(rnd, "payout")["media_time"])
    lay = rnd.timeline.layout
    for e in opened:
        circle = f"seat{e['seat']}.bet"
        on = [o for o in scene.objects if isinstance(o, CardObj) and lay.zone_at(o.x, o.y) == circle]
        assert len(on) >= 5 and all(o.face_up for o in on)
    assert judge(rnd.events, rnd.script).ok


def test_clockwise_dice_deal_by_the_tables_profile() -> None:
    dealt, carried = habit_profiles(["clockwise"], DEFAULT_PROFILE)
    assert dealt.dice_direction.value == "clockwise" and carried == dealt
    rnd = _play("clockwise")
    delivered = {e["pile"]: e["seat"] for e in rnd.events if e["type"] == "pile_delivered"}
    assert delivered == PaiGowRules(dealt).delivery_map(3, [2, 5, 6], 4)
    assert delivered != PaiGowRules(DEFAULT_PROFILE).delivery_map(3, [2, 5, 6], 4)
    assert judge(rnd.events, rnd.script, profile=dealt).ok
    # judged without the room's profile, the deliveries are wrong: the table file must carry it
    assert "pile_to_wrong_seat" in judge(rnd.events, rnd.script).got
    assert habit_profiles(["clockwise_unprofiled"], DEFAULT_PROFILE)[1] == DEFAULT_PROFILE


def test_bad_habits_are_named() -> None:
    with pytest.raises(ScriptError, match="habit 'sloppy': unknown"):
        with_habits(CLEAN, ["sloppy"])
    raw = {"name": "x", "habits": {"hand_unseen": [30, 4]}, "actions": ["round_end"]}
    with pytest.raises(ScriptError, match=r"habits\.hand_unseen: Value error, first deal number 30 is after"):
        parse_script(raw, "x.yaml")
    with pytest.raises(ScriptError, match=r"habits\.stub"):
        parse_script({"name": "x", "habits": {"stub": "fanned"}, "actions": ["round_end"]}, "x.yaml")


def test_habits_survive_the_yaml_round_trip() -> None:
    s = with_habits(CLEAN, [h for h in HABITS if HABITS[h].habits])
    import yaml

    again = parse_script(yaml.safe_load(script_to_yaml(s)), "again.yaml")
    assert again.habits == s.habits and again.habits.hand_unseen == (8, 42)


def test_hands_laid_on_the_circle_show_every_cards_index_corner() -> None:
    # laid over each other, the two-card hand's first card was wholly hidden (visible share 0.01):
    # a foul or a duplicate turning on it could not be seen. Now the two groups lie apart, each card
    # square to the seat's line with at least its index strip (20 of 63 mm) in view: more than the
    # quarter of a card below which the oracle (a detector) reports no card
    from monitor.lab.timeline_truth import timeline_truth

    rnd = _play("cards_on_circle")
    t = max(e["media_time"] for e in rnd.events if e["type"] == "hand_opened") + 0.5
    row = next(r for r in timeline_truth([rnd], fps=10, stride=round(t * 10)) if r["time"] >= t - 1e-6)
    share = {o["identity"]: o["visible_share"] for o in row["objects"] if o["kind"] == "card"}
    for e in (e for e in rnd.events if e["type"] == "hand_opened"):
        assert all(share[c] >= 0.28 for c in [*e["front"], *e["back"]]), e
