"""Settings and fouls (seed 000 rules 42, 50; seed 001 foul hands); deciding a spot (rules 2, 49, 54, 62)."""

from __future__ import annotations

import pytest

from monitor.rules.cards import parse_cards
from monitor.rules.errors import CardCountError, DuplicateCardError
from monitor.rules.paigow.catalog import built_in
from monitor.rules.paigow.house_way import setter
from monitor.rules.paigow.setting import FoulKind, Setting, all_settings, judge_setting, legal_settings
from monitor.rules.paigow.showdown import Outcome, banker_hand, compare_settings, decide_spot

DEALT = parse_cards("As Ad Kc Qh 9s 5d 2c")
HW = setter(built_in("trump_plaza"))


def test_21_settings_each_a_distinct_split_of_the_seven() -> None:
    settings = all_settings(DEALT)
    assert len(settings) == 21
    assert len({frozenset(s.front) for s in settings}) == 21
    assert all(sorted(s.cards) == sorted(DEALT) for s in settings)


def test_all_settings_rejects_bad_hands() -> None:
    with pytest.raises(CardCountError, match="6"):
        all_settings(DEALT[:6])
    with pytest.raises(DuplicateCardError, match="As"):
        all_settings((*DEALT[:6], DEALT[0]))


def test_seed000_rule50a_front_stronger_than_back_is_foul() -> None:
    foul = judge_setting(parse_cards("As Ad"), parse_cards("Kc Qh 9s 5d 2c"), DEALT)
    assert foul is not None and foul.kind is FoulKind.FRONT_STRONGER and foul.rule == "seed 000 rule 50a"
    assert "pair of aces" in foul.message and "king high" in foul.message
    assert judge_setting(parse_cards("Kc Qh"), parse_cards("As Ad 9s 5d 2c"), DEALT) is None


def test_seed000_rule50b_50c_wrong_counts() -> None:
    f = judge_setting(parse_cards("As Ad Kc"), parse_cards("Qh 9s 5d 2c"), DEALT)
    assert f is not None and f.kind is FoulKind.FRONT_COUNT and f.rule == "seed 000 rule 50b"
    f = judge_setting(parse_cards("As Ad"), parse_cards("Kc Qh 9s 5d"), DEALT)
    assert f is not None and f.kind is FoulKind.BACK_COUNT and f.rule == "seed 000 rule 50c"


def test_seed000_rule42_cards_not_exactly_the_seven_dealt() -> None:
    f = judge_setting(parse_cards("Kc Qh"), parse_cards("As Ad 9s 5d 3c"), DEALT)
    assert f is not None and f.kind is FoulKind.CARDS_NOT_DEALT
    assert "not dealt to this hand: 3c" in f.message and "dealt but not set: 2c" in f.message
    f = judge_setting(parse_cards("Kc Qh"), parse_cards("As Ad 9s 5d Kc"), DEALT)
    assert f is not None and "twice" in f.message


def test_legal_settings_never_empty_and_all_legal() -> None:
    legal = legal_settings(DEALT)
    assert legal and all(judge_setting(s.front, s.back, DEALT) is None for s in legal)
    assert len(legal) < 21  # e.g. aces in front over a king-high back fouls


def test_seed000_rule2_both_higher_wins_one_each_pushes_both_lower_loses() -> None:
    banker = Setting.of(parse_cards("Jc Td"), parse_cards("8h 8c 6d 4s 3h"))
    assert compare_settings(Setting.of(parse_cards("Kc Qh"), parse_cards("As Ad 9s 5d 2c")), banker).outcome \
        is Outcome.WIN
    assert compare_settings(Setting.of(parse_cards("9c 7h"), parse_cards("As Ad Ks 5d 2c")), banker).outcome \
        is Outcome.PUSH
    assert compare_settings(Setting.of(parse_cards("9c 7h"), parse_cards("7s 7d Ks 5d 2c")), banker).outcome \
        is Outcome.LOSE


def test_seed000_rule62_copy_goes_to_banker() -> None:
    banker = Setting.of(parse_cards("Kd Qs"), parse_cards("8h 8c 6d 4s 3h"))
    player = Setting.of(parse_cards("Kc Qh"), parse_cards("As Ad 9s 5d 2c"))  # front copies the banker's
    cmp = compare_settings(player, banker)
    assert cmp.front_copy and cmp.outcome is Outcome.PUSH
    both_copy = Setting.of(parse_cards("Kc Qh"), parse_cards("8s 8d 6c 4h 3d"))
    assert compare_settings(both_copy, banker).outcome is Outcome.LOSE


def test_seed000_rule49_foul_loses_backline_plays_house_way() -> None:
    banker = Setting.of(parse_cards("Jc Td"), parse_cards("8h 8c 6d 4s 3h"))
    res = decide_spot(4, parse_cards("As Ad"), parse_cards("Kc Qh 9s 5d 2c"), DEALT, banker, HW)
    assert res.outcome is Outcome.LOSE and res.foul is not None and res.rule == "seed 000 rule 49"
    assert res.house_way_setting is not None
    assert res.backline_outcome is Outcome.WIN  # house way: pair of aces back, K-Q front beats 8s / J-T


def test_seed000_rule54_banker_foul_reset_house_way() -> None:
    dealt = parse_cards("Kh Ks 7c 6d 4s 3h 2d")
    bh = banker_hand(parse_cards("Kh Ks"), parse_cards("7c 6d 4s 3h 2d"), dealt, HW)
    assert bh.reset_foul is not None and bh.reset_foul.rule == "seed 000 rule 50a"
    assert set(bh.setting.back) >= set(parse_cards("Kh Ks"))
    ok = banker_hand(parse_cards("7c 6d"), parse_cards("Kh Ks 4s 3h 2d"), dealt, HW)
    assert ok.reset_foul is None and ok.setting.front == tuple(parse_cards("7c 6d"))
