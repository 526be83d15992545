"""A whole round (seed 000 rules 6, 9, 13, 21, 49, 55) and ``table-monitor sample-round`` (was ``demo``)."""

from __future__ import annotations

from typer.testing import CliRunner

from monitor.cli import app
from monitor.rules.cards import PAI_GOW_53
from monitor.rules.paigow.dice import action_order, delivery_map
from monitor.rules.paigow.round import deal_piles, sample_round
from monitor.rules.paigow.showdown import Outcome


def test_seed000_rule6_snake_deal_and_rule55_four_card_stub() -> None:
    piles, stub = deal_piles(PAI_GOW_53)
    # Left to right (pile 1..7), then right to left (7..1), alternating.
    assert [p[0].index for p in piles] == [0, 1, 2, 3, 4, 5, 6]
    assert [p[1].index for p in piles] == [13, 12, 11, 10, 9, 8, 7]
    assert all(len(p) == 7 for p in piles) and len(stub) == 4
    assert sorted(c for p in piles for c in p) + sorted(stub) == sorted(PAI_GOW_53)


def test_sample_round_is_judged_and_settled_consistently() -> None:
    r = sample_round()
    assert r.delivery == delivery_map(r.action_pile, r.dice, r.banker_seat, r.profile)
    assert r.dead_seats == (3,)  # no wager there: hand collected (rule 9)
    assert r.results[5].foul is not None and r.results[5].outcome is Outcome.LOSE
    assert r.settlement.total() == 0
    wagered = {b.seat for b in r.bets}
    expected = [s for s in action_order(r.action_seat, r.banker_seat, r.profile) if s in wagered]
    assert list(dict.fromkeys(ln.seat for ln in r.settlement.lines)) == expected  # rule 21
    # Same seed, same round.
    assert sample_round().settlement == r.settlement


def test_demo_command_prints_the_round() -> None:
    res = CliRunner().invoke(app, ["sample-round"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    for text in ("The deal (Livermore Casino Pai Gow Poker,", "FOUL - rule 50a",
                 "Settlement in action order", "money conserved"):
        assert text in res.output


def test_demo_unknown_house_way_is_a_clear_error() -> None:
    res = CliRunner().invoke(app, ["sample-round", "--house-way", "caesars"])
    assert res.exit_code == 2
    assert "no built-in house way 'caesars'" in res.output
