"""``table-monitor bench-monitor``: events per second through the procedure monitor on one core."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("bench-monitor")
    def bench_monitor(
        rounds: Annotated[int, typer.Option(help="Pai Gow rounds to generate (all different)", min=1)] = 1000,
        tables: Annotated[int, typer.Option(help="tables interleaved in the feed", min=1)] = 4,
        seed: Annotated[int, typer.Option(help="random seed of the synthetic rounds")] = 1,
        repeats: Annotated[int, typer.Option(help="timed runs of each path (best kept)", min=1)] = 3,
    ) -> None:
        """Measure monitor throughput: validated events, and JSON lines parsed then judged."""
        from rich.progress import Progress

        from monitor.lab.procedure_bench import run_bench

        with Progress(transient=True) as progress:
            task = progress.add_task("generating rounds", total=rounds)
            timing = progress.add_task("timing (3 paths per run)", total=repeats)
            result = run_bench(rounds, tables, seed, repeats, tick=lambda n: progress.advance(task, n),
                               timed=lambda: progress.advance(timing))
        typer.echo(f"{result.events:,} events, {result.rounds} rounds, {result.tables} tables, "
                   f"{result.alerts} alerts (clean rounds: expect 0); generated in {result.generate_s:.1f} s")
        typer.echo(f"best of {result.repeats} interleaved runs per path, a fresh monitor each run")
        typer.echo(f"{'path':36} {'events/CPU-s':>14} {'events/wall-s':>14}")
        rows = (
            ("monitor, validated events", result.monitor),
            ("monitor, JSON lines (parse + judge)", result.json),
            ("reference: JSON parse only", result.parse_only),
        )
        for name, t in rows:
            typer.echo(f"{name:36} {t.per_cpu_second:14,.0f} {t.per_wall_second:14,.0f}")
        ratio = result.monitor.per_cpu_second / result.parse_only.per_cpu_second
        typer.echo(f"ratio judging / parsing alone (same run, CPU time): {ratio:.2f}")
