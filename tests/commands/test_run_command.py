"""The live commands (`run`, `bench-pipeline`) refuse what they cannot run, before opening anything."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from monitor.cli import app
from monitor.pipeline.session import SessionOptions
from tests.support.paths import TABLE_FILE


def test_an_unknown_inference_backend_is_refused_by_name() -> None:
    result = CliRunner().invoke(app, ["run", "--table", str(TABLE_FILE), "--camera", "0",
                                      "--backend", "tensorrt"])
    assert result.exit_code == 2
    flat = " ".join(result.output.replace("│", " ").split())  # the error box wraps its lines
    assert "'tensorrt' is not one of 'onnxruntime', 'openvino'" in flat


def test_the_live_session_runs_the_models_on_onnx_runtime_by_default() -> None:
    opts = SessionOptions(table=TABLE_FILE, camera="0", db_url="sqlite://", snapshot_dir=Path("snapshots"))
    assert opts.backend == "onnxruntime"


def test_bench_pipeline_refuses_an_unknown_backend_by_name() -> None:
    result = CliRunner().invoke(app, ["bench-pipeline", "--perception", "models", "--backend", "tensorrt"])
    assert result.exit_code == 2
    flat = " ".join(result.output.replace("│", " ").split())  # the error box wraps its lines
    assert "'tensorrt' is not one of 'onnxruntime', 'openvino'" in flat


def test_the_live_commands_default_to_the_one_backend() -> None:
    import inspect

    from monitor.perception.backends import DEFAULT_BACKEND

    for command in ("run", "bench-pipeline"):
        callback = next(c.callback for c in app.registered_commands if c.callback is not None
                        and (c.name or c.callback.__name__.replace("_", "-")) == command)
        assert inspect.signature(callback).parameters["backend"].default == DEFAULT_BACKEND


def test_run_takes_tokens_as_serve_does_a_file_of_digests_and_no_secret_on_the_command_line(
        tmp_path: Path) -> None:
    runner = CliRunner()
    help_text = " ".join(runner.invoke(app, ["run", "--help"], terminal_width=200).output.split())
    assert "--tokens-file" in help_text and "--tokens " not in help_text  # the old form runs, unlisted
    missing = runner.invoke(app, ["run", "--table", str(TABLE_FILE), "--camera", "0",
                                  "--tokens-file", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "nope.txt" in " ".join(missing.output.replace("│", " ").split())
    import inspect

    serve = next(c.callback for c in app.registered_commands
                 if c.callback is not None and c.callback.__name__ == "serve")
    assert "tokens_file" in inspect.signature(serve).parameters


def test_a_models_folder_that_is_not_there_is_refused_by_run_and_review(tmp_path: Path) -> None:
    runner = CliRunner()
    gone = tmp_path / "no-models"
    result = runner.invoke(app, ["run", "--table", str(TABLE_FILE), "--camera", "0", "--models", str(gone)])
    assert result.exit_code == 2 and f"--models {gone}: no such folder" in result.output
    result = runner.invoke(app, ["run", "--table", str(TABLE_FILE), "--camera", "0"],
                           env={"TABLE_MONITOR_MODELS": str(gone)})
    assert result.exit_code == 2 and "no such folder" in result.output
    video = tmp_path / "v.mp4"
    video.write_bytes(b"\x00" * 64)
    result = runner.invoke(app, ["review", str(video), "--table", str(TABLE_FILE),
                                 "--out", str(tmp_path / "o"), "--models", str(gone), "--no-store"])
    assert result.exit_code == 2 and "no such folder" in result.output
    assert not (tmp_path / "o").exists()


def test_the_default_table_is_package_data() -> None:
    from monitor.commands.demo import TABLE as PACKAGED

    assert PACKAGED.parent.name == "calibration" and PACKAGED.parent.parent.name == "monitor"
    assert PACKAGED.read_bytes() == TABLE_FILE.read_bytes()  # the source tree's file, shipped in the package
    import tomllib

    pyproject = tomllib.loads((TABLE_FILE.parents[1] / "pyproject.toml").read_text())
    assert "**/*.yaml" in pyproject["tool"]["setuptools"]["package-data"]["monitor"]


def test_demo_takes_its_models_folder_like_run(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["demo", "--models", str(tmp_path / "none")])
    assert result.exit_code == 2 and "no such folder" in result.output
    result = CliRunner().invoke(app, ["demo"], env={"TABLE_MONITOR_MODELS": str(tmp_path / "none")})
    assert result.exit_code == 2 and "no such folder" in result.output
