"""The product depends on neither the renderer, training nor the lab: they depend on it.

The runtime (what a cardroom runs: the live pipeline, the API, the procedure monitor, the review and
what they stand on) must install and import without the renderer, torch or the benchmarks. Every
module of the runtime packages is read with ``ast`` and every import in it (at the top or inside a
function, ``import``, ``from ... import``, relative, or ``importlib.import_module("...")``) is
checked. The command layer (``monitor.commands``) may import the renderer: the demo renders its
sample recording on first use there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PACKAGE = ROOT / "monitor"
RUNTIME = ("alerts", "api", "calibration", "events", "geometry", "perception", "pipeline", "procedure",
           "review", "rules", "sources", "store", "tablestate")
FORBIDDEN = ("monitor.render", "monitor.training", "monitor.lab")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """(line, module name) of every import in ``source``, the source of ``module``."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here[:len(here) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield node.lineno, base
            for alias in node.names:  # from monitor import render
                yield node.lineno, f"{base}.{alias.name}"
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"):
            yield node.lineno, node.args[0].value


def forbidden_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """'<module> line <n> imports <name>' for each import of the renderer, training or the lab."""
    hits: dict[int, str] = {}  # one per line: 'from monitor.render.scene import Die' names the module
    for line, name in imported_modules(source, module, is_package):
        if line not in hits and any(name == f or name.startswith(f + ".") for f in FORBIDDEN):
            hits[line] = name
    return [f"{module} line {line} imports {name}" for line, name in sorted(hits.items())]


def runtime_modules() -> Iterator[Path]:
    for package in RUNTIME:
        folder = PACKAGE / package
        assert folder.is_dir(), f"runtime package {package} is not in {PACKAGE}"
        yield from sorted(folder.rglob("*.py"))


def test_no_runtime_module_imports_the_renderer_training_or_the_lab() -> None:
    problems = []
    checked = 0
    for path in runtime_modules():
        problems += forbidden_imports(path.read_text(encoding="utf-8"), _module_name(path),
                                      path.name == "__init__.py")
        checked += 1
    assert checked > 100  # the walk found the runtime's modules
    assert not problems, "the runtime imports lab code:\n" + "\n".join(problems)


@pytest.mark.parametrize(("source", "module", "found"), [
    ("import monitor.render.camera", "monitor.pipeline.x", "monitor.render.camera"),
    ("def f():\n    from monitor.training import train\n", "monitor.api.x", "monitor.training"),
    ("from monitor import lab", "monitor.review.x", "monitor.lab"),
    ("from ..render.scene import Die", "monitor.pipeline.x", "monitor.render.scene"),
    ("from .. import lab", "monitor.api.routers.x", None),  # monitor.api.lab: not the lab
    ("from . import lab", "monitor", "monitor.lab"),  # a package's __init__: '.' is the package
    ("import importlib\nimportlib.import_module('monitor.lab.api_bench')", "monitor.api.x",
     "monitor.lab.api_bench"),
    ("from monitor.rendering_notes import x\nimport monitor.labels", "monitor.api.x", None),
])
def test_the_check_sees_every_form_of_import(source: str, module: str, found: str | None) -> None:
    problems = forbidden_imports(source, module, is_package=module == "monitor")
    if found is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(f"{module} line ")
        assert problems[0].endswith(f"imports {found}"), problems
