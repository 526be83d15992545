"""The product depends on neither the renderer, training nor the lab: they depend on it.

The runtime (what a cardroom runs: the live pipeline, the API, the procedure monitor, the review and
what they stand on) must install and import without the renderer, torch or the benchmarks. Every
module of the runtime packages is read with ``ast`` and every import in it (at the top or inside a
function, ``import``, ``from ... import``, relative, or ``importlib.import_module("...")``) is
checked. The command layer (``monitor.commands``) may import the renderer: the demo renders its
sample recording on first use there.

The tests go through ``monitor``'s public names (tests/README.md): every test module is read the same
way, and an import of a private module or name of ``monitor`` (``from monitor.x import _y``,
``import monitor._x``), a private name reached through an imported one (``module._y``, ``Class._y``,
``setattr(module, "_y", ...)``) or a string naming one (``monkeypatch.setattr("monitor.x._y", ...)``)
fails with its file and line. Only names rooted at ``monitor`` are judged: a third-party object's
private attribute, or a test's own, is not. An object's private attribute (``run._queue``) cannot be
told from ``ast`` alone and is not checked.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PACKAGE = ROOT / "monitor"
TESTS = ROOT / "tests"
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


# calls that name their target by a string: a dotted name (monkeypatch.setattr, unittest.mock.patch)
# or an object and an attribute's name (setattr, getattr, patch.object)
PATCHES = ("setattr", "delattr", "getattr", "patch", "object")
DOTTED = r"monitor(\.[A-Za-z_]\w*)+"


def _private_part(name: str) -> str | None:
    """The first private part (``_x``, not ``__x__``) of a dotted name rooted at ``monitor``, else None."""
    parts = name.split(".")
    if parts[0] != "monitor":
        return None
    return next((p for p in parts[1:] if p.startswith("_") and not (p.startswith("__") and p.endswith("__"))),
                None)


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"] when it is names and attributes only, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def private_names(source: str, module: str) -> list[str]:
    """'line <n>: <name>' for each private module or name of ``monitor`` that ``source`` imports,
    reaches through a name it imported, or names in a string to a patching call."""
    tree = ast.parse(source)
    hits: dict[int, str] = {}  # one per line, the first found
    for line, name in imported_modules(source, module):
        if _private_part(name):
            hits.setdefault(line, name)
    bound: dict[str, str] = {}  # a local name -> the name of monitor it was imported as
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "monitor":
                    bound[alias.asname or "monitor"] = alias.name if alias.asname else "monitor"
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module \
                and node.module.split(".")[0] == "monitor":
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Attribute) and (parts := _dotted(node)) and parts[0] in bound:
            name = ".".join([bound[parts[0]], *parts[1:]])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) \
                in PATCHES and node.args:
            target, attr = node.args[0], node.args[1] if len(node.args) > 1 else None
            if isinstance(target, ast.Constant) and isinstance(target.value, str) \
                    and re.fullmatch(DOTTED, target.value):
                name = target.value  # setattr("monitor.x._y", value)
            elif (parts := _dotted(target)) and parts[0] in bound and isinstance(attr, ast.Constant) \
                    and isinstance(attr.value, str):
                name = ".".join([bound[parts[0]], *parts[1:], attr.value])  # setattr(module, "_y", value)
        if name is not None and _private_part(name):
            hits.setdefault(node.lineno, name)
    return [f"line {line}: {name}" for line, name in sorted(hits.items())]


def test_no_test_reaches_a_private_name_of_monitor() -> None:
    problems = []
    checked = 0
    for path in sorted(TESTS.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        rel = path.relative_to(ROOT).as_posix()
        problems += [f"{rel} {hit}" for hit in private_names(path.read_text(encoding="utf-8"), module)]
        checked += 1
    assert checked > 100  # the walk found the tests
    assert not problems, ("tests reach private names of monitor (make a public seam, or test through the "
                          "public function that uses it: tests/README.md):\n" + "\n".join(problems))


@pytest.mark.parametrize(("source", "found"), [
    ("from monitor.commands._choices import Backend", "monitor.commands._choices"),
    ("def f():\n    from monitor.pipeline.extract import EventExtractor, _Seat\n",
     "monitor.pipeline.extract._Seat"),
    ("import monitor.pipeline._x as x", "monitor.pipeline._x"),
    ("import monitor.pipeline.forward as fw\nfw._waiting = {}", "monitor.pipeline.forward._waiting"),
    ("from monitor.render.renderer import Renderer\nRenderer._ideal_camera",
     "monitor.render.renderer.Renderer._ideal_camera"),
    ("import monitor.pipeline.chain\nmonitor.pipeline.chain._centre(d)", "monitor.pipeline.chain._centre"),
    ("monkeypatch.setattr('monitor.pipeline.session._choose', f)", "monitor.pipeline.session._choose"),
    ("with patch('monitor.pipeline.chain._centre'):\n    pass", "monitor.pipeline.chain._centre"),
    ("from monitor import __version__\nfrom monitor.pipeline import forward\nforward.COMPACT_BYTES = 1",
     None),
    ("from monitor.pipeline import forward\nmonkeypatch.setattr(forward, '_waiting', {})",
     "monitor.pipeline.forward._waiting"),
    ("monkeypatch.setattr(forward, '_waiting', {})", None),  # no import: not known to be monitor's
    ("from openvino import Core\nCore()._compiled", None),  # a third-party object's
    ("from tests.support.api import _jpeg\nself._lock = None", None),  # the tests' own
    ("run._detected.close()", None),  # an object's attribute: not told from the source alone
    ('"""Built without monitor.procedure.history._trusted\'s pass."""', None),  # prose, not a name
])
def test_the_private_name_check_sees_each_way_in(source: str, found: str | None) -> None:
    problems = private_names(source, "tests.x.test_y")
    if found is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].endswith(f": {found}"), problems
