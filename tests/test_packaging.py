"""What the project declares: every third-party import, one OpenCV, the extras, the set-up targets."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_demo_sets_up_the_runtime_only_and_make_test_the_dev_extra() -> None:
    def planned(target: str) -> str:
        return subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout

    demo = planned("demo").splitlines()
    assert "scripts/setup.sh" in demo and not any("setup.sh dev" in line for line in demo)
    assert ".venv/bin/table-monitor demo" in demo
    test = planned("test").splitlines()
    assert "scripts/setup.sh dev" in test and ".venv/bin/pytest -q" in test


def test_the_setup_script_installs_the_dev_only_debian_packages_for_dev_only() -> None:
    script = (ROOT / "scripts" / "setup.sh").read_text()
    dev_block = script.split("if has_extra dev; then", 1)[1].split("fi\n", 1)[0]
    assert "chromium" in dev_block and "postgresql" in dev_block
    before = script.split("if has_extra dev; then", 1)[0]
    assert "need_apt+=(postgresql)" not in before and "need_apt+=(chromium)" not in before
    assert "-venv" in before  # python3.X-venv where `python3 -m venv` cannot work
