"""``table-monitor audit verify``: check the audit chain and every alert against it."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    audit_app = typer.Typer(help="The tamper-evident audit log.", no_args_is_help=True)
    app.add_typer(audit_app, name="audit")

    @audit_app.command("verify")
    def verify(
        db: Annotated[str, typer.Option("--db", help="database URL", envvar="TABLE_MONITOR_DB_URL")],
    ) -> None:
        """Recompute the hash chain; name the first broken entry. Exit 0 intact, 1 broken, 2 unusable.

        A database that does not exist is unusable (status 2): it is never created by the check.
        """
        from pathlib import Path

        from sqlalchemy.exc import SQLAlchemyError

        from monitor.store import audit
        from monitor.store.db import StoreURLError, make_engine, make_sessionmaker, normalize_url, redacted
        from monitor.store.repository import verify_alert_rows

        try:
            url = normalize_url(db)
            if url.get_backend_name() == "sqlite" and not Path(str(url.database)).expanduser().is_file():
                typer.echo(f"audit verify: {redacted(db)}: no such database", err=True)
                raise typer.Exit(2)
            engine = make_engine(db)
            with make_sessionmaker(engine)() as session:
                report = audit.verify_chain(session)
                problems = verify_alert_rows(session) if report.ok else []
        except (StoreURLError, SQLAlchemyError) as exc:
            message = str(exc) if isinstance(exc, StoreURLError) else type(exc).__name__
            typer.echo(f"audit verify: cannot read {redacted(db)}: {message}", err=True)
            raise typer.Exit(2) from None
        if not report.ok:
            typer.echo(f"BROKEN at entry {report.broken_seq}: {report.reason} "
                       f"({report.checked} entries before it verified)")
            raise typer.Exit(1)
        if problems:
            typer.echo(f"chain intact ({report.checked} entries), but alerts differ from it:")
            for problem in problems:
                typer.echo(f"  {problem}")
            raise typer.Exit(1)
        typer.echo(f"OK: {report.checked} entries, head {report.head_hash}")
