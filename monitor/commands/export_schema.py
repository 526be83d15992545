"""``table-monitor export-schema``: write the event and alert JSON Schemas to docs/schema/."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("export-schema")
    def export_schema(
        out: Annotated[Path, typer.Option(help="directory for the .schema.json files")] = Path("docs/schema"),
    ) -> None:
        """Export the event contract and the Alert model as JSON Schema (described in docs/events.md)."""
        import json

        from monitor.alerts.model import alerts_json_schema
        from monitor.events.schema import events_json_schema

        out.mkdir(parents=True, exist_ok=True)
        for name, schema in (("events", events_json_schema()), ("alert", alerts_json_schema())):
            path = out / f"{name}.schema.json"
            path.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            typer.echo(f"wrote {path}")
