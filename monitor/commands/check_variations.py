"""``table-monitor check-variations``: the widened oracle gate over every layout x dealing habit.

The shipped Pai Gow scripts and random clean rounds, played on each layout with each habit, judged by
the chain from oracle detections made straight from the timelines (no render). Writes the table of
results (per variation: faults alerted within 1 s, false alerts per 100 clean rounds, rounds not
judged and why) to stdout and ``--out`` (``results.md``, ``results.json``). Each round is also added
to ``--out``'s ``rounds.jsonl`` as it ends: a run stopped part-way resumes where it stopped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer


def _names(text: str, known: list[str], what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()] if text else list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        typer.echo(f"error: unknown {what} {', '.join(unknown)} (known: {', '.join(known)})", err=True)
        raise typer.Exit(2)
    return names


def register(app: typer.Typer) -> None:
    @app.command("check-variations")
    def check_variations(
        out: Annotated[Path, typer.Option(help="folder for results.md and results.json")],
        layouts: Annotated[str, typer.Option(help="comma-separated layouts (default: all)")] = "",
        habits: Annotated[str, typer.Option(help="comma-separated dealing habits (default: all)")] = "",
        scripts: Annotated[str, typer.Option(help="comma-separated shipped scripts (default: every "
                                                  "paigow one; '-' for none)")] = "",
        clean: Annotated[int, typer.Option(min=0, help="random clean rounds per variation")] = 5,
        seed: Annotated[int, typer.Option(help="the first clean round's seed")] = 1000,
        stride: Annotated[int, typer.Option(min=1, max=4, help="judge every n-th frame (2: 15 fps)")] = 2,
        workers: Annotated[int, typer.Option(min=1, max=64, help="processes side by side")] = 2,
    ) -> None:
        """The fault set and clean rounds on every layout and dealing habit, oracle perception."""
        from monitor.lab.variations import (
            LAYOUTS,
            RoundResult,
            fault_scripts,
            jobs_for,
            markdown,
            read_results,
            result_line,
            results_json,
            run_jobs,
            summarise,
        )
        from monitor.render.rounds.habits import HABITS

        lays = _names(layouts, list(LAYOUTS), "layout(s)")
        habs = _names(habits, list(HABITS), "habit(s)")
        names = [] if scripts == "-" else _names(scripts, fault_scripts(), "script(s)")
        jobs = jobs_for(lays, habs, names, clean, seed, stride)
        out.mkdir(parents=True, exist_ok=True)
        log = out / "rounds.jsonl"
        done = read_results(log)
        todo = [j for j in jobs if j not in done]
        typer.echo(f"{len(jobs)} rounds: {len(lays)} layout(s) x {len(habs)} habit(s) x "
                   f"({len(names)} scripts + {clean} clean), every {stride} frame(s), {workers} process(es); "
                   f"{len(jobs) - len(todo)} judged before ({log})")
        with log.open("a", encoding="utf-8") as f:

            def keep(r: RoundResult) -> None:
                f.write(result_line(r, stride))
                f.flush()

            run_jobs(todo, workers, keep)
        done = read_results(log)
        results = [done[j] for j in jobs if j in done]
        table = markdown(summarise(results))
        (out / "results.md").write_text(table, encoding="utf-8")
        (out / "results.json").write_text(json.dumps(results_json(results), indent=1), encoding="utf-8")
        typer.echo(table, nl=False)
        typer.echo(f"wrote {out / 'results.md'} and {out / 'results.json'}")
