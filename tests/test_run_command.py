"""The live commands (`run`, `bench-pipeline`) refuse what they cannot run, before opening anything."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from monitor.cli import app
from monitor.pipeline.session import SessionOptions

TABLE = Path(__file__).resolve().parents[1] / "calibration" / "default-table.yaml"


def test_an_unknown_inference_backend_is_refused_by_name() -> None:
    result = CliRunner().invoke(app, ["run", "--table", str(TABLE), "--camera", "0", "--backend", "tensorrt"])
    assert result.exit_code == 2
    flat = " ".join(result.output.replace("│", " ").split())  # the error box wraps its lines
    assert "'tensorrt' is not one of 'onnxruntime', 'openvino'" in flat


def test_the_live_session_runs_the_models_on_onnx_runtime_by_default() -> None:
    opts = SessionOptions(table=TABLE, camera="0", db_url="sqlite://", snapshot_dir=Path("snapshots"))
    assert opts.backend == "onnxruntime"


def test_bench_pipeline_refuses_an_unknown_backend_by_name() -> None:
    result = CliRunner().invoke(app, ["bench-pipeline", "--perception", "models", "--backend", "tensorrt"])
    assert result.exit_code == 2
    flat = " ".join(result.output.replace("│", " ").split())  # the error box wraps its lines
    assert "'tensorrt' is not one of 'onnxruntime', 'openvino'" in flat


def test_the_live_commands_default_to_the_live_backend() -> None:
    import inspect

    from monitor.perception.backends import LIVE_BACKEND

    for command in ("run", "bench-pipeline"):
        callback = next(c.callback for c in app.registered_commands if c.callback is not None
                        and (c.name or c.callback.__name__.replace("_", "-")) == command)
        assert inspect.signature(callback).parameters["backend"].default == LIVE_BACKEND


def test_run_takes_tokens_as_serve_does_a_file_of_digests_and_no_secret_on_the_command_line(
        tmp_path: Path) -> None:
    runner = CliRunner()
    help_text = " ".join(runner.invoke(app, ["run", "--help"], terminal_width=200).output.split())
    assert "--tokens-file" in help_text and "--tokens " not in help_text  # the old form runs, unlisted
    missing = runner.invoke(app, ["run", "--table", str(TABLE), "--camera", "0",
                                  "--tokens-file", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "nope.txt" in " ".join(missing.output.replace("│", " ").split())
    import inspect

    serve = next(c.callback for c in app.registered_commands
                 if c.callback is not None and c.callback.__name__ == "serve")
    assert "tokens_file" in inspect.signature(serve).parameters
