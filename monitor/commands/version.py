"""``table-monitor version``."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def version() -> None:
        """Print the package version."""
        from monitor import __version__

        typer.echo(__version__)
