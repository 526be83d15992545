"""`bench api --path`: the same load from each table's forwarder (run --server) and into the API a run
embeds, nothing lost, each against the first; and the central path's kill -9 check."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from monitor.cli import app


def test_the_central_and_embedded_paths_deliver_every_alert_and_survive_a_kill(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "bench", "api", "--clients", "3", "--rate", "60", "--duration", "2", "--tables", "2",
        "--path", "embedded", "--path", "central", "--durability-seconds", "1", "--workdir", str(tmp_path)])
    out = result.output
    assert result.exit_code == 0, out
    assert out.count("every alert to every client: YES") == 2
    assert out.count("nothing lost: YES") == 2
    assert "load (embedded:" in out and "load (central:" in out
    assert "central against embedded: event-to-client latency p50" in out
    assert "durability (central): 8 tables' forwarders" in out and "nothing lost, nothing twice: YES" in out
    assert "durability: server killed" not in out  # the sensor path's check only with --path sensor


def test_an_unknown_path_is_refused_with_the_choices() -> None:
    result = CliRunner().invoke(app, ["bench", "api", "--path", "carrier-pigeon"])
    assert result.exit_code == 2
    flat = " ".join(result.output.replace("│", " ").split())
    assert "'carrier-pigeon' is not one of 'sensor', 'central', 'embedded'" in flat


def test_the_tables_process_refuses_what_it_cannot_run(capsys: pytest.CaptureFixture[str]) -> None:
    from monitor.lab.api_bench_feed import main

    with pytest.raises(SystemExit) as exit_:
        main(["central", "--rate", "10", "--tables", "2", "--duration", "1"])
    assert exit_.value.code == 2 and "central needs --server and --spool" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["embedded", "--rate", "0", "--tables", "2", "--duration", "1", "--db", "x.db"])
    assert "--rate and --duration must be positive" in capsys.readouterr().err
