"""The command line's shape: --version, choices and their one default, help panels and the bench group,
clear errors (a missing extra, a garbage event file, a database that is not there), logging."""

from __future__ import annotations

import inspect
import io
import json
import logging
import sys
import tomllib
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest
import typer
from typer.testing import CliRunner

from monitor.cli import app, missing_extra
from monitor.commands.choices import DEFAULT_BACKEND, DEFAULT_CLASSICAL, DEFAULT_PORT, Backend, Classical
from tests.support.paths import ROOT

SAMPLES = ROOT / "monitor" / "procedure" / "samples"


def _flat(text: str) -> str:
    """Output with rich's box drawing and line wraps folded away."""
    return " ".join(text.replace("│", " ").split())


def _callback(name: str) -> inspect.Signature:
    for info in app.registered_commands:
        assert info.callback is not None
        if (info.name or info.callback.__name__.replace("_", "-")) == name:
            return inspect.signature(info.callback)
    raise AssertionError(f"no command {name}")


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        if h not in handlers:
            root.removeHandler(h)
    root.setLevel(level)
    logging.captureWarnings(False)


def test_version_option_prints_the_packages_version() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"table-monitor {version}"


def _every_command(typer_app: typer.Typer = app,
                   prefix: str = "") -> Iterator[tuple[str, Callable[..., Any]]]:
    """Each command's name and function, those of the groups (``token``, ``bench hands``) too."""
    for info in typer_app.registered_commands:
        assert info.callback is not None
        yield prefix + (info.name or info.callback.__name__.replace("_", "-")), info.callback
    for group in typer_app.registered_groups:
        assert group.typer_instance is not None
        yield from _every_command(group.typer_instance, f"{prefix}{group.name} ")


def _options_named(param: str) -> dict[str, tuple[Any, Any]]:
    """Command name -> (the option's type, its default), for every command that takes ``param``."""
    out = {}
    for name, callback in _every_command():
        if param in inspect.signature(callback).parameters:
            hint = get_type_hints(callback, include_extras=True)[param]
            out[name] = (get_args(hint)[0], inspect.signature(callback).parameters[param].default)
    return out


def test_every_backend_option_is_the_enum_with_one_default() -> None:
    from monitor.perception import backends

    assert tuple(b.value for b in Backend) == backends.BACKENDS
    # one default: the library's (models loaded without naming a runtime) is the CLI's
    assert DEFAULT_BACKEND == backends.DEFAULT_BACKEND == Backend.ONNXRUNTIME
    assert not hasattr(backends, "LIVE_BACKEND")
    options = _options_named("backend")
    # the room's commands, the lab's and the benchmarks (each bench also under `bench`)
    for name in ("run", "review", "detect", "bench-perception", "bench perception", "bench-pipeline",
                 "bench-review", "check-rendered", "check-fans", "calibrate-detector", "calibrate-reader"):
        assert name in options, name
    for name, (kind, default) in options.items():
        assert kind is Backend and default is DEFAULT_BACKEND, name


def test_the_classical_finder_is_a_choice_with_one_default() -> None:
    from monitor.perception.pipeline import ClassicalMode

    assert {c.value for c in Classical} == set(get_args(ClassicalMode))
    options = _options_named("classical")
    assert {"detect", "bench-perception"} <= set(options)
    for name, (kind, default) in options.items():
        assert kind is Classical and default is DEFAULT_CLASSICAL, name
    result = CliRunner().invoke(app, ["detect", "x.jpg", "--classical", "sometimes"])
    assert result.exit_code == 2
    assert "'sometimes' is not one of 'auto', 'full', 'refine', 'off'" in _flat(result.output)


def test_the_library_loads_models_with_the_clis_default_runtime() -> None:
    from monitor.perception.backends import load_backend
    from monitor.perception.detector import Detector
    from monitor.perception.pipeline import Perceiver
    from monitor.pipeline.perceive import ModelPerception, choose
    from monitor.pipeline.session import SessionOptions

    for fn in (load_backend, Detector, Perceiver.from_models, ModelPerception, choose):
        assert inspect.signature(fn).parameters["backend"].default == DEFAULT_BACKEND, fn
    options = SessionOptions(table=Path("t"), camera="0", db_url="sqlite://", snapshot_dir=Path("s"))
    assert options.backend == DEFAULT_BACKEND


def test_a_resolution_is_a_choice_and_a_bad_one_is_refused_by_name() -> None:
    from monitor.commands.choices import Resolution
    from monitor.render.camera import RESOLUTIONS

    assert [r.value for r in Resolution] == list(RESOLUTIONS)
    for name in ("render frame", "bench render"):
        result = CliRunner().invoke(app, [*name.split(), "--resolution", "1080"])
        assert result.exit_code == 2, name
        assert "'1080' is not one of '720p', '1080p', '4k'" in _flat(result.output), name
    # a recording also takes WIDTHxHEIGHT, checked before anything is rendered
    for value, says in (("big", "'big': use 720p, 1080p, 4k or WIDTHxHEIGHT"),
                        ("1081x720", "'1081x720': H.264 (4:2:0) needs an even width and height"),
                        ("32x32", "'32x32' is out of range")):
        for command in (["render-round", "paigow_clean", "--out", "unused"], ["sample-recording"]):
            result = CliRunner().invoke(app, [*command, "--resolution", value])
            assert result.exit_code == 2, (command, value)
            assert "Invalid value for '--resolution'" in _flat(result.output) and says in _flat(result.output)
    # a dataset's weighted resolutions: each name one of the choices, each weight a number
    for value, says in (("1080:1", "'1080' is no resolution: one of 720p, 1080p, 4k"),
                        ("1080p:x", "'1080p:x' is not NAME or NAME:WEIGHT"),
                        ("1080p:0", "no resolution with a weight above 0")):
        for command in ("crops", "detect"):
            result = CliRunner().invoke(app, ["render", command, "--out", "unused", "--resolutions", value])
            assert result.exit_code == 2, (command, value)
            assert says in _flat(result.output), (command, value)


def test_a_recordings_resolution_parser_keeps_a_good_value() -> None:
    from monitor.commands.choices import frame_size, resolution_weights

    assert [frame_size(v) for v in ("720p", "4k", "480x270")] == ["720p", "4k", "480x270"]
    assert resolution_weights("1080p:0.7, 4k:0.3") == {"1080p": 0.7, "4k": 0.3}
    assert resolution_weights("720p") == {"720p": 1.0}
    with pytest.raises(typer.BadParameter, match="'8k'"):
        frame_size("8k")


def test_serve_run_and_demo_share_one_port_default_the_apis_own() -> None:
    from monitor.api.settings import Settings
    from monitor.pipeline.session import SessionOptions

    for name in ("serve", "run", "demo"):
        assert _callback(name).parameters["port"].default == DEFAULT_PORT, name
    assert Settings.model_fields["port"].default == DEFAULT_PORT
    assert SessionOptions(table=Path("t"), camera="0", db_url="sqlite://", snapshot_dir=Path("s")).port == (
        DEFAULT_PORT)


def test_a_choice_outside_the_enum_is_refused_with_the_choices() -> None:
    result = CliRunner().invoke(app, ["demo", "--perception", "psychic"])
    assert result.exit_code == 2
    assert "'psychic' is not one of 'auto', 'models', 'oracle'" in _flat(result.output)
    result = CliRunner().invoke(app, ["token", "new", "--name", "alice", "--role", "owner"])
    assert result.exit_code == 2
    assert "'owner' is not one of 'viewer', 'supervisor', 'sensor', 'admin'" in _flat(result.output)


def test_token_new_takes_a_role_from_the_enum() -> None:
    result = CliRunner().invoke(app, ["token", "new", "--name", "alice", "--role", "supervisor"])
    assert result.exit_code == 0, result.output
    assert "tokens-file line: alice supervisor sha256:" in result.output


def test_benchmarks_have_their_own_group_and_the_old_names_still_run() -> None:
    runner = CliRunner()
    top = _flat(runner.invoke(app, ["--help"], terminal_width=200).output)
    assert "Benchmarks" in top and " bench " in top
    assert "bench-monitor" not in top and "bench-hands" not in top  # hidden, not gone
    assert top.index("Room:") < top.index("Set-up:") < top.index("Lab:") < top.index("Benchmarks")
    bench = _flat(runner.invoke(app, ["bench", "--help"], terminal_width=200).output)
    for short in ("api", "games", "hands", "monitor", "perception", "pipeline", "review", "sources"):
        assert f" {short} " in bench, short
    for argv in (["bench", "monitor", "--help"], ["bench-monitor", "--help"],
                 ["bench", "hands", "speed", "--help"], ["bench-hands", "speed", "--help"]):
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, (argv, result.output)


def test_a_missing_extra_is_named_with_its_install_line_not_a_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for module in ("torch", "torchvision", "ultralytics"):
        monkeypatch.setitem(sys.modules, module, None)  # importing it now raises ModuleNotFoundError
    with pytest.raises(SystemExit) as exited:
        app(["train", "cards", "--data", str(tmp_path), "--name", "x"], prog_name="table-monitor")
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "needs the 'train' extra" in err and "pip install 'table-monitor[train]'" in err
    assert "Traceback" not in err


def test_only_the_optional_modules_are_taken_for_a_missing_extra() -> None:
    found = missing_extra(ModuleNotFoundError("No module named 'psycopg'", name="psycopg"))
    assert found is not None and found.extra == "postgres"
    assert missing_extra(ModuleNotFoundError("No module named 'numpy'", name="numpy")) is None
    assert missing_extra(ValueError("torch")) is None


def test_replay_strict_fails_on_a_garbage_file_and_an_empty_one(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(bytes(range(256)) * 20 + b"\n{not json}\n[1, 2]\n")
    runner = CliRunner()
    assert runner.invoke(app, ["replay", str(garbage)]).exit_code == 0  # lenient without --strict
    strict = runner.invoke(app, ["replay", str(garbage), "--strict"])
    assert strict.exit_code == 1
    assert "not valid events" in strict.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text("# nothing here\n\n")
    result = runner.invoke(app, ["replay", str(empty), "--strict"])
    assert result.exit_code == 1 and "no events" in result.output


def test_replay_strict_passes_a_clean_round_and_fails_it_with_one_bad_line(tmp_path: Path) -> None:
    runner = CliRunner()
    clean = SAMPLES / "paigow_clean.jsonl"
    assert runner.invoke(app, ["replay", str(clean), "--strict"]).exit_code == 0
    one_bad = tmp_path / "one_bad.jsonl"
    one_bad.write_text(clean.read_text() + '{"type": "card_dealt", "pile": "eight"}\n')
    result = runner.invoke(app, ["replay", str(one_bad), "--strict"])
    assert result.exit_code == 1 and "1 line(s) not valid events" in result.output


def test_audit_verify_refuses_a_database_that_is_not_there_and_does_not_create_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "store.db"
    result = CliRunner().invoke(app, ["audit", "verify", "--db", f"sqlite:///{missing}"])
    assert result.exit_code == 2
    assert "no such database" in result.output
    assert not missing.exists() and not missing.parent.exists()


def test_audit_verify_still_checks_a_store_that_exists(tmp_path: Path) -> None:
    from monitor.store.db import make_engine
    from monitor.store.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'store.db'}"
    upgrade(make_engine(url))
    result = CliRunner().invoke(app, ["audit", "verify", "--db", url])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("OK: 0 entries")


def test_the_log_options_configure_the_root_logger_as_json_lines() -> None:
    from monitor.logsetup import JsonLinesFormatter

    result = CliRunner().invoke(app, ["--log-json", "--log-level", "warning", "version"])
    assert result.exit_code == 0
    ours = [h for h in logging.getLogger().handlers if h.get_name() == "table-monitor"]
    assert len(ours) == 1 and isinstance(ours[0].formatter, JsonLinesFormatter)
    assert logging.getLogger().level == logging.WARNING


def test_a_bad_log_level_is_refused() -> None:
    result = CliRunner().invoke(app, ["--log-level", "chatty", "version"])
    assert result.exit_code == 2
    assert "'chatty' is not one of" in _flat(result.output)


def test_json_lines_carry_the_fields_and_extra_keys_and_warnings_are_logged() -> None:
    from monitor.logsetup import configure

    out = io.StringIO()
    configure("info", json_lines=True, stream=out)
    log = logging.getLogger("monitor.test")
    log.debug("below the level")
    log.warning("camera %s lost", "0", extra={"camera": "0", "reconnects": 3})
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        log.exception("failed")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("an old option", DeprecationWarning, stacklevel=1)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [d["message"] for d in lines[:2]] == ["camera 0 lost", "failed"]
    first = lines[0]
    assert first["level"] == "warning" and first["logger"] == "monitor.test"
    assert first["camera"] == "0" and first["reconnects"] == 3
    assert first["ts"].endswith("Z") and first["ts"][10] == "T"
    assert lines[1]["exc_type"] == "RuntimeError" and "boom" in lines[1]["exc"]
    assert lines[2]["logger"] == "py.warnings" and "an old option" in lines[2]["message"]


def test_text_logging_replaces_its_own_handler_and_rejects_an_unknown_level() -> None:
    from monitor.logsetup import configure

    first, second = io.StringIO(), io.StringIO()
    configure("debug", stream=first)
    configure("info", stream=second)
    logging.getLogger("monitor.test").info("once")
    assert first.getvalue() == ""
    assert second.getvalue().rstrip().endswith("INFO monitor.test: once")
    assert len([h for h in logging.getLogger().handlers if h.get_name() == "table-monitor"]) == 1
    with pytest.raises(ValueError, match="unknown log level 'loud'"):
        configure("loud")
