"""The widened gate's reporting: a tiny set judged for real, the table it writes, a round that
cannot be played reported with its reason, and bad names refused."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from monitor.cli import app
from monitor.lab.variations import (
    Job,
    RoundResult,
    jobs_for,
    judge_job,
    markdown,
    read_results,
    result_line,
    run_jobs,
    summarise,
)
from tests.support.paths import ROOT

runner = CliRunner()
LAYOUTS_DIR = ROOT / "calibration" / "layouts"


def test_a_stub_of_three_on_the_small_table_is_judged() -> None:
    [r] = run_jobs([Job("small", "plain", "paigow_stub_three")], workers=1)
    assert r.judged and r.kind == "fault" and r.expected == ["stub_not_four"]
    assert "stub_not_four" in r.raised and r.on_time, r.how()


def test_with_no_console_and_no_chip_found_the_round_opens_from_the_cards_and_its_stub_is_judged() -> None:
    r = judge_job(Job("default", "no_console_chips_unseen", "paigow_stub_three"))
    assert r.judged and r.expected == ["stub_not_four"]
    # the stub is counted and no hand is called dead for want of the bets the camera could not see
    assert r.raised == ["stub_not_four"] and r.on_time, r.how()


def test_a_round_that_cannot_be_played_says_why() -> None:
    r = judge_job(Job("nowhere", "plain", "paigow_clean"))
    assert not r.judged and "cannot be played: layout 'nowhere': unknown" in r.reason


def test_the_table_counts_faults_false_alerts_and_rounds_not_judged() -> None:
    results = [
        RoundResult("small", "plain", "paigow_stub_three", "fault", expected=["stub_not_four"],
                    raised=["stub_not_four"]),
        RoundResult("small", "plain", "paigow_wrong_seat", "fault", expected=["pile_to_wrong_seat"] * 2,
                    missed=["pile_to_wrong_seat"], raised=["pile_to_wrong_seat"], seen="pile_delivered 6/7"),
        RoundResult("small", "plain", "paigow_exposed_ace", "fault", expected=["ace_or_joker_exposed"],
                    raised=["ace_or_joker_exposed"], late=[("ace_or_joker_exposed", 1.4)]),
        RoundResult("small", "plain", "clean:1000", "clean", raised=["deal_order"]),
        RoundResult("small", "plain", "clean:1001", "clean"),
        RoundResult("small", "plain", "clean:1002", "clean", judged=False, reason="cannot be played: x"),
    ]
    [row] = summarise(results)
    assert (row.faults, row.on_time, row.clean, row.false_alerts) == (3, 1, 2, 1)
    text = markdown([row])
    assert "| small | plain | 1/3 | 50 (1 over 2: deal_order x1) | 1 |" in text
    assert "paigow_wrong_seat: missed pile_to_wrong_seat; seen pile_delivered 6/7" in text
    assert "paigow_exposed_ace: late ace_or_joker_exposed +1.40 s" in text
    assert "not judged: clean:1002: cannot be played: x" in text


def test_jobs_cover_every_layout_habit_and_round() -> None:
    jobs = jobs_for(["default", "small"], ["plain", "clockwise"], ["paigow_clean"], 2, 50)
    assert len(jobs) == 2 * 2 * 3 and Job("small", "clockwise", "clean:51") in jobs


def test_unknown_names_are_refused(tmp_path: Path) -> None:
    r = runner.invoke(app, ["check-variations", "--out", str(tmp_path), "--habits", "sloppy"])
    assert r.exit_code == 2 and "unknown habit(s) sloppy" in r.output
    r = runner.invoke(app, ["render-round", "paigow_clean", "--out", str(tmp_path), "--no-video",
                            "--layout", str(tmp_path / "none.yaml")])
    assert r.exit_code == 2 and "layout: cannot read table layout" in r.output and "none.yaml" in r.output


def test_render_round_writes_the_table_file_with_the_profile(tmp_path: Path) -> None:
    r = runner.invoke(app, ["render-round", "paigow_clean", "--out", str(tmp_path), "--no-video",
                            "--no-progress", "--layout", str(LAYOUTS_DIR / "crescent.yaml"), "--table",
                            str(LAYOUTS_DIR / "crescent.table.yaml"), "--habit", "clockwise"])
    assert r.exit_code == 0, r.output
    from monitor.calibration import load_table

    table = load_table(tmp_path / "table.yaml")
    assert table.layout == "crescent" and table.profile.name == "room-cw"


def test_judged_rounds_are_kept_line_by_line_for_a_resumed_run(tmp_path: Path) -> None:
    r = RoundResult("crescent", "hand_unseen", "paigow_wrong_seat", "fault", expected=["pile_to_wrong_seat"],
                    raised=["pile_to_wrong_seat"], late=[("pile_to_wrong_seat", 1.2)],
                    seen="card_dealt 14/49")
    log = tmp_path / "rounds.jsonl"
    log.write_text(result_line(r, 2) + '{"layout": "cut off')  # a run stopped mid-line
    assert read_results(log) == {Job("crescent", "hand_unseen", "paigow_wrong_seat", 2): r}
