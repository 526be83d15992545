"""A setting read in part (rank only, or unread): foul only when every completion is (seed 000 rule 50a)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.procedure.paigow_rules import PaiGowRules
from monitor.rules.cards import INK, PAI_GOW_53, Card
from monitor.rules.paigow.partial import completions, flush_possible
from monitor.rules.paigow.setting import FoulKind

RULES = PaiGowRules()
# the player_foul script's seat 2: queen-ten in front over a ten-high five-card hand
FRONT, BACK = ["Qc", "Tc"], ["6d", "8d", "2h", "7c", "Td"]


def test_a_foul_read_in_full_is_a_foul() -> None:
    foul = RULES.judge_partial(FRONT, BACK)
    assert foul is not None and foul.kind == FoulKind.FRONT_STRONGER and foul.rule == "seed 000 rule 50a"


def test_a_rank_read_without_its_suit_still_settles_it() -> None:
    foul = RULES.judge_partial(["Qc", "T"], BACK)
    assert foul is not None and "T?" in foul.message


def test_an_unread_front_card_cannot_save_it_when_the_queen_alone_beats_the_back() -> None:
    foul = RULES.judge_partial(["Q", None], BACK)
    assert foul is not None and "14 ways" in foul.message  # any rank or the joker


def test_an_unread_back_card_that_could_pair_leaves_it_open() -> None:
    assert RULES.judge_partial(FRONT, ["6d", "8d", "2h", "7c", None]) is None


def test_a_back_hand_that_could_be_a_flush_is_not_judged() -> None:
    assert flush_possible(["6", "8", "2", "7", "T"])
    assert flush_possible(["6d", "8d", "2", "Jk", "T"])
    assert not flush_possible(["6d", "8h", "2", "7", "T"])
    assert RULES.judge_partial(["Q", "T"], ["6", "8", "2", "7", "T"]) is None


def test_a_jack_read_by_rank_alone_may_be_the_joker() -> None:
    # data/e2e_random/clean_1002: back 3h Qc Ah Jk 2s, the jester joker read `J`: with the joker as an
    # ace the back holds a pair of aces and the front's nines do not beat it: no foul
    front, back = ["9d", "9"], ["3h", "Q", "2", "A", "J"]
    colours = [None, None, "black", None, None]
    assert RULES.judge_partial(front, back, colours) is None
    assert RULES.judge_partial(["9d", "9"], ["3h", "Q", "2", "A", "Jk"], colours) is None  # joker: aces
    # the joker named in front (an ace there): the back's jack is a jack, queen high: foul
    named_joker = RULES.judge_partial(["Jk", "9"], ["3h", "Q", "2", "8", "J"], colours)
    assert named_joker is not None and named_joker.kind is FoulKind.FRONT_STRONGER
    assert RULES.judge_partial(["9d", "9"], ["3h", "Q", "2", "8", "Jc"], colours) is not None  # named


def test_too_many_unread_or_a_card_named_twice_is_not_judged() -> None:
    assert completions(["Qc", None], ["6d", "8h", None, None, "Td"]) is None
    assert completions(["Qc", "Qc"], ["6d", "8h", "2h", "7c", "Td"]) is None
    assert RULES.judge_partial(["Qc"], BACK) is not None  # one card in front: rule 50b on the count


def test_completions_never_repeat_a_card_nor_the_joker() -> None:
    got = completions(["Jk", None], ["6d", "8h", "2h", "7c", "Td"])
    assert got is not None
    fronts = [f for f, _ in got]
    assert all(len({*f}) == 2 for f in fronts) and not any(f[1] == "Jk" for f in fronts)
    assert len(fronts) == 13  # any rank; the one joker is already in front


hidden = st.lists(st.sampled_from(["named", "rank", "unread"]), min_size=7, max_size=7)


@settings(max_examples=300, deadline=None)
@given(cards=st.lists(st.sampled_from(PAI_GOW_53), min_size=7, max_size=7, unique=True), how=hidden)
def test_hiding_cards_never_makes_a_legal_setting_foul(cards: list[Card], how: list[str]) -> None:
    texts = [c.text for c in cards]
    partial: list[str | None] = []
    for t, h in zip(texts, how, strict=True):
        partial.append(t if h == "named" or t == "Jk" else t[0] if h == "rank" else None)
    full = RULES.judge(texts[:2], texts[2:], None)
    seen = RULES.judge_partial(partial[:2], partial[2:])
    if seen is not None:
        assert full is not None and full.kind == FoulKind.FRONT_STRONGER
    if all(h == "named" for h in how):
        assert (seen is None) == (full is None)


def test_two_inks_rule_out_a_flush_where_no_suit_was_read() -> None:
    ranks_only = ["6", "8", "2", "7", "T"]
    assert flush_possible(ranks_only, ["red", None, None, None, None])
    assert flush_possible(ranks_only, ["red", "red", None, None, None])
    assert not flush_possible(ranks_only, ["red", None, None, "black", None])
    # a suit read is an ink too
    assert not flush_possible(["6d", "8", "2", "7", "T"], [None, None, None, "black", None])
    # the player_foul hand read to ranks, the front's queen named: judged once two inks show behind
    assert RULES.judge_partial(["Qc", "T"], ranks_only) is None
    foul = RULES.judge_partial(["Qc", "T"], ranks_only, ["red", "red", "red", "black", "red"])
    assert foul is not None and foul.kind == FoulKind.FRONT_STRONGER


inks = st.lists(st.booleans(), min_size=5, max_size=5)


@settings(max_examples=300, deadline=None)
@given(cards=st.lists(st.sampled_from(PAI_GOW_53), min_size=7, max_size=7, unique=True), how=hidden,
       inked=inks)
def test_inks_read_right_never_make_a_legal_setting_foul(cards: list[Card], how: list[str],
                                                         inked: list[bool]) -> None:
    texts = [c.text for c in cards]
    partial = [t if h == "named" or t == "Jk" else t[0] if h == "rank" else None
               for t, h in zip(texts, how, strict=True)]
    colours = [INK[t[1]] if i and t != "Jk" and p != t else None
               for t, p, i in zip(texts[2:], partial[2:], inked, strict=True)]
    seen = RULES.judge_partial(partial[:2], partial[2:], colours)
    if seen is not None:
        full = RULES.judge(texts[:2], texts[2:], None)
        assert full is not None and full.kind == FoulKind.FRONT_STRONGER
