"""Pan (seed 004): each kind of valid and invalid condition, foul hands, the house rate, settlement."""

import pytest

from monitor.rules.cards import parse_cards
from monitor.rules.errors import CardCountError, CardNotInDeckError, DuplicateCardError, RulesError
from monitor.rules.games.pan import (
    DrawSource,
    MeldKind,
    PanHand,
    check_hand,
    check_meld,
    check_turn,
    deal_structure,
    house_rate,
    settle,
)
from monitor.rules.games.profile import (
    DEFAULT_GAME_PROFILE,
    PAN_SECOND_SCHEDULE,
    GameProfile,
    PanMixedSet,
    PanRules,
)

ALL_DIFFERENT = GameProfile(pan=PanRules(mixed_set=PanMixedSet.ALL_DIFFERENT))


@pytest.mark.parametrize(
    ("cards", "kind"),
    [
        # (a) sets in three or more suits: the seed's own example, and all four suits.
        ("4d 4h 4s", MeldKind.SET_MIXED_SUITS),
        ("Kc Kd Kh Ks", MeldKind.SET_MIXED_SUITS),
        # (a) "three 4's of hearts is a valid spread"; more of one suit too (several decks).
        ("4h 4h 4h", MeldKind.SET_ONE_SUIT),
        ("Jc Jc Jc Jc Jc", MeldKind.SET_ONE_SUIT),
        # (a) literal seed reading: five cards "in 3 or more suits".
        ("4d 4h 4s 4d 4c", MeldKind.SET_MIXED_SUITS),
        # (b) runs/ropes: the seed's "3-4-5 of hearts", and "7JQ in the same suit".
        ("3h 4h 5h", MeldKind.RUN),
        ("7s Js Qs", MeldKind.RUN),
        ("Ac 2c 3c", MeldKind.RUN),
        ("Qd Kd Jd", MeldKind.RUN),  # any order on the table
        ("5c 6c 7c Jc Qc Kc", MeldKind.RUN),
    ],
)
def test_valid_conditions(cards: str, kind: MeldKind) -> None:
    m = check_meld(parse_cards(cards))
    assert m.valid and m.kind is kind, m.reason


@pytest.mark.parametrize(
    ("cards", "fragment"),
    [
        ("4h 4d", "a condition needs three or more"),
        ("4h 4h 4d", "is in 2 suits; it must be one suit or three or more suits"),
        ("3h 4h 6h", "not in sequence"),
        ("Kh Ah 2h", "not in sequence"),  # no wrap around the king
        ("6h 7h Qh", "not in sequence"),  # only the seven and the jack are adjacent across the gap
        ("3h 4d 5h", "neither one rank (a set) nor one suit (a run)"),
        ("3h 3h 4h 5h", "run of hearts repeats 3"),
        ("2c 3d 7h Js", "neither one rank"),
    ],
)
def test_invalid_conditions(cards: str, fragment: str) -> None:
    m = check_meld(parse_cards(cards))
    assert not m.valid and m.kind is None
    assert m.reason.startswith("not a valid condition") and fragment in m.reason


def test_mixed_set_rule_is_a_profile_setting() -> None:
    assert check_meld(parse_cards("4d 4h 4s 4d"), DEFAULT_GAME_PROFILE).valid
    strict = check_meld(parse_cards("4d 4h 4s 4d"), ALL_DIFFERENT)
    assert not strict.valid and "repeats diamonds" in strict.reason
    assert check_meld(parse_cards("4d 4h 4s 4c"), ALL_DIFFERENT).kind is MeldKind.SET_MIXED_SUITS


def test_cards_outside_the_pan_deck() -> None:
    for bad in ("8h 8d 8s", "9c Tc Jc", "Th Td Ts", "Jk 4h 4d"):
        with pytest.raises(CardNotInDeckError, match="not in the Pan"):
            check_meld(parse_cards(bad))


def test_copies_are_limited_by_the_number_of_decks() -> None:
    two_decks = GameProfile(pan=PanRules(decks=2))
    assert check_meld(parse_cards("4h 4h 4d 4s"), two_decks).valid
    with pytest.raises(DuplicateCardError, match="more copies than the 2 decks hold: 4h x3"):
        check_meld(parse_cards("4h 4h 4h"), two_decks)


def _hand(held: str, *melds: str) -> PanHand:
    return PanHand(parse_cards(held), tuple(parse_cards(m) for m in melds))


def test_ten_cards_is_a_good_hand_and_eleven_melded_win() -> None:
    ok = check_hand("p1", _hand("Ah 2h 3d 4s 5c 6c 7d", "Jh Jd Js"))
    assert not ok.fouled and not ok.won
    win = check_hand("p1", _hand("", "Ah 2h 3h", "Kc Kd Ks", "4s 5s 6s 7s Js"))
    assert win.won and not win.fouled


@pytest.mark.parametrize(
    ("hand", "total"),
    [(_hand("Ah 2h 3d 4s 5c 6c", "Jh Jd Js"), 9), (_hand("Ah 2h 3d 4s 5c 6c 7d Qc", "Jh Jd Js"), 11)],
)
def test_more_or_less_than_ten_cards_is_foul(hand: PanHand, total: int) -> None:
    c = check_hand("p2", hand)
    assert c.fouled and not c.won
    assert f"p2 has {total} cards in all" in c.fouls[0] and "foul hands" in c.fouls[0]


def test_eleven_melded_with_an_invalid_condition_does_not_win() -> None:
    c = check_hand("p1", _hand("", "Ah 2h 4h", "Kc Kd Ks", "4s 5s 6s 7s Js"))
    assert not c.won and c.fouled and len(c.invalid_melds) == 1


def test_drawn_card_placed_in_hand_is_foul() -> None:
    before = _hand("Ah 2h 3d 4s 5c 6c 7d Qh Qd Kc")
    after = _hand("Ah 2h 3d 4s 5c 6c 7d Qh Qd Kc 2s")
    t = check_turn("p1", before, parse_cards("2s")[0], after, None)
    assert not t.ok
    assert any("drew 2s and placed it in his hand" in f for f in t.fouls)
    assert any("11 cards in all" in f for f in t.fouls)


def test_a_good_turn_meld_then_discard() -> None:
    before = _hand("Ah 2h 3d 4s 5c 6c 7d Qh Qd Kc")
    after = _hand("Ah 2h 3d 4s 5c 6c 7d Kc", "Qh Qd Qs")
    t = check_turn("p1", before, parse_cards("Qs")[0], after, parse_cards("Kc")[0])
    assert not t.ok  # Kc is still held: the cards do not add up
    after = _hand("Ah 2h 3d 4s 5c 6c 7d", "Qh Qd Qs")
    t = check_turn("p1", before, parse_cards("Qs")[0], after, parse_cards("Kc")[0])
    assert t.ok, (t.fouls, t.violations)


def test_unusable_draw_must_be_discarded() -> None:
    before = _hand("Ah 2h 3d 4s 5c 6c 7d Qh Qd Kc")
    ok = check_turn("p1", before, parse_cards("Jc")[0], before, parse_cards("Jc")[0])
    assert ok.ok
    kept = check_turn("p1", before, parse_cards("Jc")[0], _hand("2h 3d 4s 5c 6c 7d Qh Qd Kc Jc"),
                      parse_cards("Ah")[0])
    assert kept.fouls and "placed it in his hand" in kept.fouls[0]


def test_card_discarded_from_prior_hand_may_not_be_used() -> None:
    before = _hand("Ah 2h 3d 4s 5c 6c 7d Qh Qd Kc")
    after = _hand("Ah 2h 3d 4s 5c 6c 7d", "Qh Qd Qs")
    ok = check_turn("p2", before, parse_cards("Qs")[0], after, parse_cards("Kc")[0], DrawSource.PRIOR_DRAW)
    assert ok.ok
    bad = check_turn("p2", before, parse_cards("Qs")[0], after, parse_cards("Kc")[0],
                     DrawSource.PRIOR_HAND_DISCARD)
    assert not bad.ok and "discarded from the prior player's hand" in bad.violations[0]


@pytest.mark.parametrize(("players", "first", "second"),
                         [(2, 1, 1), (3, 1, 1), (4, 1, 1), (5, 2, 2), (6, 3, 2), (7, 3, 2)])
def test_house_rate_both_seed_schedules(players: int, first: int, second: int) -> None:
    assert house_rate(players, DEFAULT_GAME_PROFILE) == first
    assert house_rate(players, PAN_SECOND_SCHEDULE) == second


def test_house_rate_beyond_the_schedule() -> None:
    with pytest.raises(CardCountError, match="up to 7 players, not 8"):
        house_rate(8)


def test_settlement_winner_collects_two_chips_each_and_the_reserved_antes() -> None:
    playing = {
        "p1": _hand("", "Ah 2h 3h", "Kc Kd Ks", "4s 5s 6s 7s Js"),
        "p2": _hand("Ah 2h 3d 4s 5c 6c 7d Qh Qd Kc"),
        "p3": _hand("Ah 2h 3d 4s 5c 6c", "Jh Jd Js"),  # 9 cards: fouled, pays too
    }
    s = settle(playing, passed=["p4", "p5", "p6"])
    assert s.winner == "p1" and s.house == 3  # six players: 3 chips (first schedule)
    # Antes 6, house 3, reserved 3; p1 gets 2 from p2 and p3.
    assert s.net == {"p1": -1 + 3 + 4, "p2": -3, "p3": -3, "p4": -1, "p5": -1, "p6": -1}
    assert sum(s.net.values()) == -s.house
    assert "fouled hands surrender and pay: p3" in s.reason


def test_settlement_second_schedule_and_no_winner_yet() -> None:
    playing = {"p1": _hand("Ah 2h 3d 4s 5c 6c 7d Qh Qd Kc"), "p2": _hand("Ah 2h 3d 4s 5c 6c 7d Qh Qd Ks")}
    s = settle(playing, passed=["p3", "p4", "p5", "p6"], profile=PAN_SECOND_SCHEDULE)
    assert s.winner is None and s.house == 2 and "goes on" in s.reason


def test_settlement_rejects_two_winners_and_repeated_players() -> None:
    win = _hand("", "Ah 2h 3h", "Kc Kd Ks", "4s 5s 6s 7s Js")
    with pytest.raises(RulesError, match="only one player can go out"):
        settle({"p1": win, "p2": win})
    with pytest.raises(RulesError, match="listed twice"):
        settle({"p1": win}, passed=["p1"])


def test_deal_structure_ten_cards_from_several_decks() -> None:
    ds = deal_structure()
    assert ds.deck.size == 8 * 40 and ds.hole_cards == 10
    assert ds.expected(7).dealt == 70
    assert deal_structure(GameProfile(pan=PanRules(decks=5))).deck.size == 200


def test_going_out_on_the_draw() -> None:
    before = _hand("4s 5s 6s 7s", "Ah 2h 3h", "Kc Kd Ks")
    after = _hand("", "Ah 2h 3h", "Kc Kd Ks", "4s 5s 6s 7s Js")
    t = check_turn("p1", before, parse_cards("Js")[0], after, None)
    assert t.ok, (t.fouls, t.violations)
    assert check_hand("p1", after).won
