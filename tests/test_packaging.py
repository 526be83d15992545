"""What the project declares: every third-party import, one OpenCV, the extras, the set-up targets."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from tests.support.paths import MODELS, ROOT, TABLE_1080P, TABLE_FILE

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _name(requirement: str) -> str:
    """The normalized distribution name of a requirement string ('psycopg[binary]>=3.1' -> 'psycopg')."""
    m = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert m is not None, requirement
    return re.sub(r"[-_.]+", "-", m.group(0)).lower()


def _declared() -> dict[str, set[str]]:
    """Distribution names per group: 'runtime' for the dependencies, else the extra's name."""
    project = PYPROJECT["project"]
    groups = {"runtime": {_name(r) for r in project["dependencies"]}}
    for extra, reqs in project["optional-dependencies"].items():
        groups[extra] = {_name(r) for r in reqs}
    return groups


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


@pytest.mark.parametrize("folder", ["monitor", "tests"])
def test_every_third_party_import_is_declared(folder: str) -> None:
    declared = set().union(*_declared().values())
    dists = packages_distributions()
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    local = {"monitor", "conftest"} | {p.stem for p in (ROOT / "tests").glob("*.py")}
    missing: dict[str, list[str]] = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        for module in _top_level_imports(path) - stdlib - local:
            providers = {_name(d) for d in dists.get(module, [])}
            if not providers:
                continue  # not installed here (an extra this environment lacks): cannot be mapped
            if not providers & declared:
                missing.setdefault(module, []).append(str(path.relative_to(ROOT)))
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_the_imports_the_runtime_needs_are_runtime_dependencies() -> None:
    runtime = _declared()["runtime"]
    # imported by the rendering of the demo's recording and by the table-state tracker
    assert {"av", "supervision", "trackers", "starlette", "websockets"} <= runtime
    assert "matplotlib" in _declared()["train"]  # the card reader's evaluation plots only


def test_one_opencv_build_is_declared_and_it_is_the_one_the_tracker_requires() -> None:
    from importlib.metadata import requires

    opencv = {n for group in _declared().values() for n in group if n.startswith("opencv")}
    assert opencv == {"opencv-python"}
    tracker_needs = {_name(r) for r in requires("trackers") or [] if "extra ==" not in r}
    assert "opencv-python" in tracker_needs


def test_extras_for_postgres_scale_and_train() -> None:
    groups = _declared()
    assert groups["postgres"] == {"psycopg"}
    assert "dask" in groups["scale"]
    assert {"torch", "ultralytics"} <= groups["train"]
    # the runtime never pulls in a test tool or the PostgreSQL driver
    assert not groups["runtime"] & {"pytest", "ruff", "mypy", "psycopg", "playwright", "torch"}


def test_the_demo_script_sets_up_the_runtime_only_and_the_test_script_the_dev_extra() -> None:
    demo = (ROOT / "scripts" / "demo.sh").read_text().splitlines()
    assert "scripts/setup.sh" in demo and not any("setup.sh dev" in line for line in demo)
    assert any(line.startswith("exec .venv/bin/table-monitor demo") for line in demo)
    test = (ROOT / "scripts" / "test.sh").read_text().splitlines()
    assert "scripts/setup.sh dev" in test and any(".venv/bin/pytest -q" in line for line in test)
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text()  # CI runs the README's test command


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_demo_and_make_test_run_the_two_scripts() -> None:
    def planned(target: str) -> list[str]:
        return subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.splitlines()

    assert planned("demo") == ["scripts/demo.sh"] and planned("test") == ["scripts/test.sh"]


def test_the_setup_script_installs_the_dev_only_debian_packages_for_dev_only() -> None:
    script = (ROOT / "scripts" / "setup.sh").read_text()
    dev_block = script.split("if has_extra dev; then", 1)[1].split("fi\n", 1)[0]
    assert "chromium" in dev_block and "postgresql" in dev_block
    before = script.split("if has_extra dev; then", 1)[0]
    assert "need_apt+=(postgresql)" not in before and "need_apt+=(chromium)" not in before
    assert "-venv" in before  # python3.X-venv where `python3 -m venv` cannot work
    assert "install -y -qq --no-install-recommends python3 python3-venv" in before  # no Python at all


# --- the models' one home, and the wheel ------------------------------------------------------------


def _runtime_model_files() -> set[str]:
    """models/'s files the runtime loads, relative to it: the networks and their JSON metadata (the
    training checkpoints, the reports and the candidates waiting for the gate are not among them)."""
    out = set()
    for path in MODELS.rglob("*"):
        rel = path.relative_to(MODELS).as_posix()
        if not path.is_file() or rel.startswith("candidates/"):
            continue
        if path.suffix == ".onnx" or (path.suffix == ".json" and not path.stem.endswith("_metrics")):
            out.add(rel)
    return out


def test_the_models_have_one_home_the_package_links_to_the_repositorys(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    from monitor.perception import pipeline
    from monitor.perception.models_home import MODELS_ENV, SHIPPED_MODELS, models_home, photo_models
    from monitor.pipeline.session import SessionOptions

    link = ROOT / "monitor" / "models"
    assert link.is_symlink() and link.resolve() == MODELS.resolve()  # what a wheel copies in
    assert MODELS.resolve() == SHIPPED_MODELS and pipeline.DEFAULT_MODELS == SHIPPED_MODELS
    monkeypatch.delenv(MODELS_ENV, raising=False)
    assert models_home() == SHIPPED_MODELS and photo_models() == SHIPPED_MODELS / "photos"

    def options() -> SessionOptions:
        return SessionOptions(table=Path("t"), camera="0", db_url="sqlite://", snapshot_dir=Path("s"))

    assert options().models == SHIPPED_MODELS
    monkeypatch.setenv(MODELS_ENV, str(tmp_path))
    # the setting reaches every default: the live session's, the photos' (no photos/ here: the home)
    assert models_home() == tmp_path and photo_models() == tmp_path and options().models == tmp_path
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "detector.onnx").write_bytes(b"x")
    assert photo_models() == tmp_path / "photos"


def test_a_models_folder_without_models_is_refused_by_name(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app
    from monitor.perception.models_home import MODELS_ENV, ModelsMissingError, require_models

    empty, gone = tmp_path / "empty", tmp_path / "gone"
    empty.mkdir()
    with pytest.raises(ModelsMissingError, match=f"no models folder at {gone}: .*{MODELS_ENV}"):
        require_models(gone)
    assert require_models(MODELS) == MODELS
    table = TABLE_FILE
    video = tmp_path / "v.mp4"
    video.write_bytes(b"\x00" * 64)
    runner = CliRunner()
    env = {MODELS_ENV: str(empty)}
    for argv in (["demo", "--once", "--data", str(tmp_path / "demo")],
                 ["run", "--table", str(table), "--camera", "0", "--perception", "models"],
                 ["review", str(video), "--table", str(table), "--out", str(tmp_path / "o"), "--no-store"],
                 ["detect", str(TABLE_1080P)]):
        result = runner.invoke(app, argv, env=env)
        flat = " ".join(result.output.split())
        assert result.exit_code == 2, (argv, result.output)
        assert f"no models in {empty}" in flat and MODELS_ENV in flat, (argv, result.output)
    assert not (tmp_path / "o").exists()  # refused before anything was written


def _build_wheel(out: Path) -> Path:
    """The wheel of this checkout, built into ``out`` by the environment's setuptools (no build
    isolation: nothing fetched), its build folders in ``out`` rather than the checkout."""
    cfg = out / "build.cfg"
    cfg.write_text(f"[build]\nbuild_base = {out / 'build'}\n[egg_info]\negg_base = {out}\n")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "--disable-pip-version-check", "-w", str(out / "dist"), str(ROOT)],
                   check=True, capture_output=True, timeout=600,
                   env={**os.environ, "DIST_EXTRA_CONFIG": str(cfg)})
    (wheel,) = (out / "dist").glob("table_monitor-*.whl")
    return wheel


def test_the_wheel_carries_the_runtime_models_and_the_default_table_not_the_checkpoints(
        tmp_path: Path) -> None:
    """A wheel install finds its models and its default table in the package (scripts/check-wheel.sh
    installs one into a clean venv and runs the demo)."""
    pytest.importorskip("setuptools", minversion="77")
    import zipfile
    import zlib

    with zipfile.ZipFile(_build_wheel(tmp_path)) as wheel:
        entries = {i.filename: i for i in wheel.infolist()}
        models = {n.removeprefix("monitor/models/"): i for n, i in entries.items()
                  if n.startswith("monitor/models/")}
        assert set(models) == _runtime_model_files()
        assert {"detector.onnx", "cards.onnx", "cards_ensemble.json", "fan_reader.json",
                "photos/detector.onnx"} <= set(models)
        for rel, info in models.items():  # the files themselves, not what a link pointed at when built
            assert zlib.crc32((MODELS / rel).read_bytes()) == info.CRC, rel
        assert not [n for n in models if n.endswith((".pt", ".png", ".md"))]  # checkpoints, reports
        table = wheel.read("monitor/calibration/default-table.yaml")
        assert table == TABLE_FILE.read_bytes()
        recording = "monitor/render/rounds/sample_recording/"
        assert {recording + "video.mp4", recording + "events.jsonl"} <= set(entries)  # the demo's
        (dist_info,) = {n.split("/")[0] for n in entries if n.split("/")[0].endswith(".dist-info")}
        scripts = wheel.read(f"{dist_info}/entry_points.txt").decode()
        assert "table-monitor = monitor.cli:app" in scripts
        assert not [n for n in entries if n.split("/")[0] not in ("monitor", dist_info)]
