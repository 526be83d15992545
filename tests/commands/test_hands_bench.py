"""The bench-hands command runs end to end on a small sample (the figures themselves live in docs)."""

from __future__ import annotations

from typer.testing import CliRunner

from monitor.cli import app


def test_bench_hands_speed_small_run() -> None:
    result = CliRunner().invoke(
        app, ["bench-hands", "speed", "--hands", "1000", "--batch-hands", "1000", "--repeats", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "order all 1,000 hands identically" in result.output
    for path in ("treys Evaluator._five", "ours per call", "score_five_batch", "evaluate_five_reference"):
        assert path in result.output


def test_bench_hands_rejects_unknown_deck() -> None:
    result = CliRunner().invoke(app, ["bench-hands", "count7", "--deck", "40"])
    assert result.exit_code != 0
    assert "52 or 53" in result.output
