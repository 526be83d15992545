"""The one command line: ``table-monitor``.

Each subcommand lives in its own module under ``monitor/commands/`` and exposes
``register(app: typer.Typer) -> None``; they are discovered here so that adding a
command never touches this file. Heavy imports stay inside the command bodies so
that ``table-monitor --help`` starts fast.

Here the commands are sorted into help panels by name (the room's commands first, then set-up,
the lab's, the benchmarks), the benchmarks also gathered under ``table-monitor bench NAME`` (the
``bench-NAME`` spellings still run, hidden from the help), and a command that needs an extra that is
not installed ends with a one-line message and exit status 2 instead of a traceback.
"""

from __future__ import annotations

import copy
import importlib
import pkgutil
import sys
from typing import Annotated, Any

import typer

import monitor.commands
from monitor.commands.choices import DEFAULT_LOG_LEVEL, LogLevel

# Exit statuses of every command (README, "Exit codes").
EXIT_OK = 0
EXIT_FOUND = 1  # the command ran and found what it checks for (broken audit chain, strict replay, ...)
EXIT_USAGE = 2  # it could not run as asked: bad option or file, missing database, an extra not installed
EXIT_INTERRUPTED = 130  # Ctrl-C during a resumable job

# top-level module of an optional dependency -> the extra that installs it (pyproject.toml)
EXTRA_OF_MODULE = {
    "torch": "train",
    "torchvision": "train",
    "ultralytics": "train",
    "onnxslim": "train",
    "matplotlib": "train",
    "dask": "scale",
    "distributed": "scale",
    "psycopg": "postgres",
    "psycopg_binary": "postgres",
}

PANEL_ROOM = "Room: live tables, dashboard, reviews"
PANEL_SETUP = "Set-up: cameras, dice reader, tables, decks"
PANEL_LAB = "Lab: datasets, training, model checks"
PANEL_BENCH = "Benchmarks"
PANELS: dict[str, tuple[str, ...]] = {
    PANEL_ROOM: ("run", "serve", "demo", "review", "replay", "audit", "token", "detect", "version"),
    PANEL_SETUP: ("calibrate", "calibration-sheet", "calibrate-lens", "check-table", "dice-sim", "dice-read",
                  "probe-source", "enroll-deck", "export-schema", "layout"),
}
BENCH_PREFIX = "bench-"


class MissingExtraError(RuntimeError):
    """A command imported a module of an optional extra that this installation lacks."""

    def __init__(self, module: str, extra: str) -> None:
        self.module, self.extra = module, extra
        super().__init__(f"this command needs the '{extra}' extra ({module} is not installed): "
                         f"pip install 'table-monitor[{extra}]' "
                         f"(from a checkout: scripts/setup.sh dev,{extra})")


def missing_extra(exc: BaseException) -> MissingExtraError | None:
    """The extra behind an ImportError of an optional dependency, else None."""
    if not isinstance(exc, ImportError) or not exc.name:
        return None
    module = exc.name.split(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    return MissingExtraError(module, extra) if extra else None


class _App(typer.Typer):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except ImportError as exc:
            if (why := missing_extra(exc)) is None:
                raise
            typer.echo(f"table-monitor: {why}", err=True)
            sys.exit(EXIT_USAGE)


app = _App(
    name="table-monitor",
    help="Watches player-banked cardroom tables and flags procedure faults the moment they happen.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


def _print_version(value: bool) -> None:
    if value:
        from monitor import __version__

        typer.echo(f"table-monitor {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option(
        "--version", help="print the version and exit", callback=_print_version, is_eager=True)] = False,
    log_level: Annotated[LogLevel, typer.Option(
        envvar="TABLE_MONITOR_LOG_LEVEL", help="the least severe log records written (to stderr)",
        case_sensitive=False)] = DEFAULT_LOG_LEVEL,
    log_json: Annotated[bool, typer.Option(
        "--log-json", envvar="TABLE_MONITOR_LOG_JSON",
        help="log as JSON lines (ts, level, logger, message, extra fields) for a log collector")] = False,
) -> None:
    """Table monitor for player-banked cardroom games."""
    from monitor.logsetup import configure

    configure(log_level.value, json_lines=log_json)


def _name(info: typer.models.CommandInfo) -> str:
    assert info.callback is not None
    return info.name or info.callback.__name__.replace("_", "-")


def _panel(name: str) -> str:
    for panel, names in PANELS.items():
        if name in names:
            return panel
    return PANEL_BENCH if name.startswith(BENCH_PREFIX) else PANEL_LAB


def _register_commands() -> None:
    for mod in sorted(pkgutil.iter_modules(monitor.commands.__path__), key=lambda m: m.name):
        if mod.name.startswith("_"):
            continue
        module = importlib.import_module(f"monitor.commands.{mod.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)
    bench = typer.Typer(help="Benchmarks: speed and load figures of each part (docs/benchmarks.md).",
                        no_args_is_help=True)
    for info in app.registered_commands:
        name = _name(info)
        info.rich_help_panel = _panel(name)
        if name.startswith(BENCH_PREFIX):
            short = copy.copy(info)
            short.name, short.rich_help_panel = name.removeprefix(BENCH_PREFIX), None
            bench.registered_commands.append(short)
            info.hidden = True
    for group in app.registered_groups:
        name = str(group.name)
        group.rich_help_panel = _panel(name)
        if name.startswith(BENCH_PREFIX):
            short_group = copy.copy(group)
            short_group.name, short_group.rich_help_panel = name.removeprefix(BENCH_PREFIX), None
            bench.registered_groups.append(short_group)
            group.hidden = True
    bench.registered_commands.sort(key=_name)
    bench.registered_groups.sort(key=lambda g: str(g.name))
    app.add_typer(bench, name="bench", rich_help_panel=PANEL_BENCH)
    # the help lists panels in the order their first command comes: the room's first, benchmarks last
    order = [PANEL_ROOM, PANEL_SETUP, PANEL_LAB, PANEL_BENCH]
    app.registered_commands.sort(key=lambda c: (order.index(str(c.rich_help_panel)), _name(c)))
    app.registered_groups.sort(key=lambda g: (order.index(str(g.rich_help_panel)), str(g.name)))


_register_commands()

if __name__ == "__main__":
    app()
