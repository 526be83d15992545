"""`check-pipeline --random`: clean random rounds through the oracle chain raise nothing."""

from __future__ import annotations

from typer.testing import CliRunner

from monitor.cli import app


def test_random_clean_rounds_through_the_chain_raise_no_alert() -> None:
    # truth's track ids with corner noise: the extractor's own logic invents nothing. (With ByteTrack,
    # cards landing on a pile steal the covered card's track and piles are miscounted; with detections
    # dropped at random a bet can read as changed.)
    res = CliRunner().invoke(app, ["check-pipeline", "--random", "1", "--seed", "1003", "--jitter", "1.0"])
    assert res.exit_code == 0, res.output
    assert "0 false alert(s) over 1 clean rounds" in res.output
