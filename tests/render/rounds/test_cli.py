"""The round commands as a user runs them: scripts generated in bulk, a round judged without video,
and a bad script refused with its file, action and field."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from monitor.cli import app
from monitor.render.rounds.generate import FAULTS
from monitor.render.rounds.script import load_script, shipped_scripts

runner = CliRunner()


def test_round_script_writes_many_valid_scripts(tmp_path: Path) -> None:
    r = runner.invoke(
        app, ["round-script", "--seed", "40", "--count", "4", "--fault", "random", "--out", str(tmp_path)]
    )
    assert r.exit_code == 0, r.output
    scripts = [load_script(p) for p in sorted(tmp_path.glob("*.yaml"))]
    assert len(scripts) == 4
    for s in scripts:
        fault = s.name.split("_", 2)[2]  # random_<seed>_<fault>
        assert s.expect_alerts == FAULTS[fault]
    bad = runner.invoke(app, ["round-script", "--fault", "spilled_drink"])
    assert bad.exit_code == 2 and "unknown fault 'spilled_drink'" in bad.output


def test_render_round_without_video_checks_the_alerts(tmp_path: Path) -> None:
    r = runner.invoke(app, ["render-round", "paigow_player_foul", "--out", str(tmp_path), "--no-video"])
    assert r.exit_code == 0, r.output
    assert "ok:" in r.output and "player_foul" in r.output
    check = json.loads((tmp_path / "check.json").read_text())
    assert check[0]["ok"] and check[0]["raised"] == ["player_foul"]
    assert not (tmp_path / "video.mp4").exists()


def test_render_round_reports_a_mismatch_and_a_bad_script(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.yaml"
    text = shipped_scripts()["paigow_clean"].read_text()
    wrong.write_text(text.replace("expect_alerts: []", "expect_alerts: [stub_not_four]"))
    r = runner.invoke(app, ["render-round", str(wrong), "--out", str(tmp_path / "o"), "--no-video"])
    assert r.exit_code == 1
    assert "MISMATCH" in r.output and "expected but not raised: ['stub_not_four']" in r.output
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("- bet: {seat: 5, dollars: 100}", "- bet: {seat: 5, dollars: -100}"))
    r = runner.invoke(app, ["render-round", str(bad), "--out", str(tmp_path / "b")])
    assert r.exit_code == 2
    assert "bad.yaml: action 4 (bet): dollars: Input should be greater than or equal to 1" in r.output
