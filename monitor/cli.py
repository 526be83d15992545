"""The one command line: ``table-monitor``.

Each subcommand lives in its own module under ``monitor/commands/`` and exposes
``register(app: typer.Typer) -> None``; they are discovered here so that adding a
command never touches this file. Heavy imports stay inside the command bodies so
that ``table-monitor --help`` starts fast.
"""

from __future__ import annotations

import importlib
import pkgutil

import typer

import monitor.commands

app = typer.Typer(
    name="table-monitor",
    help="Watches player-banked cardroom tables and flags procedure faults the moment they happen.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)


@app.callback()
def _main() -> None:
    """Table monitor for player-banked cardroom games."""


def _register_commands() -> None:
    for mod in sorted(pkgutil.iter_modules(monitor.commands.__path__), key=lambda m: m.name):
        if mod.name.startswith("_"):
            continue
        module = importlib.import_module(f"monitor.commands.{mod.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_register_commands()

if __name__ == "__main__":
    app()
