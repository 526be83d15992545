"""``table-monitor replay events.jsonl``: judge a recorded event file, print alerts and hand histories."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        events: Annotated[Path, typer.Argument(help="JSONL event file (one event per line)", exists=True,
                                               dir_okay=False, readable=True)],
        as_json: Annotated[bool, typer.Option("--json", help="print JSON: {alerts, histories}")] = False,
        profile: Annotated[str, typer.Option(help="rule profile: livermore, lucky_chances, napa, ...")] = (
            "livermore"
        ),
        window: Annotated[int, typer.Option(help="reorder window in events (late events beyond it are "
                                                 "reported)", min=0)] = 64,
        strict: Annotated[bool, typer.Option(help="exit with status 1 if a misdeal or integrity alert "
                                                 "was raised, a line was not a valid event, or the file "
                                                 "held no event at all")] = False,
    ) -> None:
        """Run the procedure monitor over an event file and print the alerts and each round's hand history."""
        import json

        from monitor.procedure.replay import PROFILES, format_text
        from monitor.procedure.replay import replay as run

        if profile not in PROFILES:
            raise typer.BadParameter(f"unknown profile {profile!r} (known: {', '.join(sorted(PROFILES))})")
        result = run(events, PROFILES[profile], window)
        if as_json:
            doc = {
                "events": result.events,
                "rejected": result.rejected,
                "alerts": [a.model_dump(mode="json") for a in result.alerts],
                "histories": [h.model_dump(mode="json") for h in result.histories],
            }
            typer.echo(json.dumps(doc, indent=2))
        else:
            typer.echo(format_text(result))
        if not strict:
            return
        serious = {"misdeal", "integrity"}
        if any(a.severity.value in serious for a in result.alerts):
            raise typer.Exit(1)
        if result.rejected or not result.events:
            what = f"{result.rejected} line(s) not valid events" if result.rejected else "no events"
            typer.echo(f"replay --strict: {events}: {what}", err=True)
            raise typer.Exit(1)
