"""``table-monitor serve`` (the API and the web page) and ``table-monitor token new``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.api.auth import Role
from monitor.commands.choices import DEFAULT_PORT


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        db: Annotated[str | None, typer.Option("--db", help="database URL (sqlite:///FILE or postgresql://...)",
                                               envvar="TABLE_MONITOR_DB_URL")] = None,
        host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port")] = DEFAULT_PORT,
        tokens_file: Annotated[Path | None, typer.Option(
            "--tokens-file", help="'name role sha256:HEX' lines", exists=True, dir_okay=False)] = None,
        webhooks_file: Annotated[Path | None, typer.Option(
            "--webhooks-file", help="YAML/JSON list of webhook targets", exists=True, dir_okay=False)] = None,
        snapshot_dir: Annotated[Path | None, typer.Option(help="where alert snapshot images live")] = None,
        table: Annotated[list[Path] | None, typer.Option(
            "--table", help="a table file whose profile judges that table's events (repeat for each table; "
                            "a table without one is judged by the default profile)",
            exists=True, dir_okay=False)] = None,
    ) -> None:
        """Run the dashboard API and web page (tokens also from TABLE_MONITOR_TOKENS)."""
        import logging

        import uvicorn

        from monitor.api.app import create_app
        from monitor.api.auth import TokenConfigError
        from monitor.api.settings import Settings
        from monitor.calibration import CalibrationError, load_table
        from monitor.procedure.feed import MonitorFeed
        from monitor.rules.profile import PaiGowProfile
        from monitor.store.db import StoreURLError

        overrides: dict[str, object] = {"host": host, "port": port}
        for key, value in (("db_url", db), ("tokens_file", tokens_file), ("webhooks_file", webhooks_file),
                           ("snapshot_dir", snapshot_dir)):
            if value is not None:
                overrides[key] = value
        profiles: dict[str, PaiGowProfile] = {}
        try:
            for path in table or []:
                cal = load_table(path)
                if cal.table in profiles:
                    raise ValueError(f"--table {path}: a second table file for table {cal.table!r}")
                profiles[cal.table] = cal.profile
            settings = Settings(**overrides)  # type: ignore[arg-type]
            application = create_app(settings, feed_factory=lambda: MonitorFeed(profiles))
        except (TokenConfigError, StoreURLError, CalibrationError, ValueError) as exc:
            typer.echo(f"table-monitor serve: {exc}", err=True)
            raise typer.Exit(2) from None
        # No access log: it would carry query strings, and operators do not need every GET.
        # No per-message deflate: alerts are small, and compressing every message once per client
        # (each has its own deflate context) was the largest cost of pushing to 200 clients.
        # uvicorn's records go through the logging the root command set up (--log-level, --log-json)
        uvicorn.run(application, host=settings.host, port=settings.port, log_config=None,
                    log_level=logging.getLogger().getEffectiveLevel(), access_log=False,
                    ws_max_size=1 << 20, ws_per_message_deflate=False,
                    timeout_graceful_shutdown=5)

    token_app = typer.Typer(help="Access tokens for the API.", no_args_is_help=True)
    app.add_typer(token_app, name="token")

    @token_app.command("new")
    def token_new(
        name: Annotated[str, typer.Option(help="who or what uses it (a person, a sensor)")],
        role: Annotated[Role, typer.Option(help="what the token may do")] = Role.VIEWER,
    ) -> None:
        """Print a new token once, and the line for the tokens file (which holds only its digest)."""
        from monitor.api.auth import file_line, new_token

        if not name or any(c.isspace() for c in name):
            typer.echo("the name must be one word", err=True)
            raise typer.Exit(2)
        token = new_token()
        typer.echo(f"token (give it to {name}; it is not stored anywhere): {token}")
        typer.echo(f"tokens-file line: {file_line(name, role, token)}")
