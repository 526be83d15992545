"""``table-monitor check-pipeline``: the event extractor on every shipped Pai Gow script, oracle perception.

For each script: were exactly the expected alerts raised from what the camera saw (oracle detections,
optionally noisy), and how far each alert's media time is from the truth's. A table for docs.
"""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("check-pipeline")
    def check_pipeline(
        scripts: Annotated[list[str] | None, typer.Argument(
            help="script names (default: every paigow one)")] = None,
        stride: Annotated[int, typer.Option(min=1, max=4, help="use every n-th frame (2: 15 fps)")] = 2,
        dropout: Annotated[float, typer.Option(
            min=0, max=0.5, help="share of detections lost per frame")] = 0.0,
        jitter: Annotated[float, typer.Option(min=0, max=10, help="corner noise, pixels (1080p)")] = 0.0,
        bytetrack: Annotated[bool, typer.Option(help="track with ByteTrack, not the truth's ids")] = False,
        random_rounds: Annotated[int, typer.Option("--random", min=0, help=(
            "instead of the scripts: this many random CLEAN rounds (the round generator); every alert "
            "raised is a false alert"))] = 0,
        seed: Annotated[int, typer.Option(help="first seed of the --random rounds")] = 1000,
    ) -> None:
        """Oracle check of the event extractor: expected alerts vs raised, and alert time errors."""
        from rich.console import Console
        from rich.progress import Progress
        from rich.table import Table

        from monitor.calibration import load_table
        from monitor.commands.demo import TABLE
        from monitor.lab.scripted_check import check_rounds
        from monitor.pipeline.oracle import OracleOptions
        from monitor.render.rounds.play import play_script
        from monitor.render.rounds.script import load_script, shipped_scripts
        from monitor.render.rounds.video import total_frames

        if random_rounds:
            _false_alert_rate(random_rounds, seed, stride, OracleOptions(dropout=dropout, jitter_px=jitter,
                                                                         seed=1), bytetrack)
            return
        shipped = shipped_scripts()
        names = scripts or [n for n in shipped if n.startswith("paigow")]
        unknown = [n for n in names if n not in shipped]
        if unknown:
            typer.echo(f"unknown script(s) {unknown} (shipped: {', '.join(shipped)})", err=True)
            raise typer.Exit(2)
        cal = load_table(TABLE)
        oracle = OracleOptions(dropout=dropout, jitter_px=jitter, seed=1)
        table = Table(title=f"oracle perception, every {stride} frame(s), dropout {dropout}, "
                            f"jitter {jitter} px{', ByteTrack' if bytetrack else ''}")
        for col in ("script", "expected", "raised", "ok", "max |time error| s"):
            table.add_column(col)
        ok = 0
        rounds = [(n, play_script(load_script(shipped[n]), f"{n}.yaml")) for n in names]
        with Progress() as bar:
            frames = sum(total_frames([r], 30) // stride for _, r in rounds)
            task = bar.add_task("oracle frames", total=frames)
            for name, rnd in rounds:
                c = check_rounds([rnd], cal, name, stride=stride, oracle=oracle, use_bytetrack=bytetrack,
                                 on_frame=lambda n: bar.advance(task, n))
                ok += c.ok
                table.add_row(name, ", ".join(c.expected) or "-", ", ".join(c.got) or "-",
                              "yes" if c.ok else f"NO: {c.explain()}", f"{c.max_delay:.2f}")
        Console().print(table)
        typer.echo(f"{ok}/{len(rounds)} scripts raised exactly their expected alerts")


def _false_alert_rate(n: int, seed: int, stride: int, oracle: object, bytetrack: bool) -> None:
    """Random clean rounds through the oracle chain: any alert is a false alert (issue 8's proof)."""
    from collections import Counter

    from rich.progress import Progress

    from monitor.calibration import load_table
    from monitor.commands.demo import TABLE
    from monitor.lab.scripted_check import check_rounds
    from monitor.render.rounds.generate import random_script
    from monitor.render.rounds.play import play_script

    cal = load_table(TABLE)
    false: Counter[str] = Counter()
    bad_rounds: list[str] = []
    with Progress() as bar:
        task = bar.add_task("clean rounds", total=n)
        for k in range(n):
            name = f"random_clean_{seed + k}"
            rnd = play_script(random_script(seed + k), f"{name}.yaml")
            c = check_rounds([rnd], cal, name, stride=stride, oracle=oracle,  # type: ignore[arg-type]
                             use_bytetrack=bytetrack)
            if c.got:
                false.update(c.got)
                bad_rounds.append(f"{name}: {', '.join(c.got)}")
            bar.advance(task)
    total = sum(false.values())
    typer.echo(f"{total} false alert(s) over {n} clean rounds ({100 * total / n:.2f} per 100 rounds); "
               f"rounds with any: {len(bad_rounds)}")
    for line in bad_rounds:
        typer.echo(f"  {line}")
