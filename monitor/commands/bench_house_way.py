"""``table-monitor bench-house-way``: house-way settings per second, batch (numba) against the reference.

Both paths run the same house-way data on the same random seven-card hands (53-card deck) in one run;
the reference interpreter sees a subset, and every hand of that subset is checked to be set the same way.
"""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("bench-house-way")
    def bench_house_way(
        hands: int = typer.Option(1_000_000, min=1, help="Random 7-card hands for the batch (numba) path."),
        reference_hands: int = typer.Option(5_000, min=1, help="Hands for the reference interpreter."),
        house_way: str = typer.Option("trump_plaza", help="Built-in house way to run."),
        seed: int = typer.Option(2026, help="Seed of the random hands."),
        chunk: int = typer.Option(100_000, min=1, help="Hands per batch call."),
    ) -> None:
        """Measure house-way settings per second (target: 100,000/s or more in batch)."""
        import os
        import time

        import numpy as np
        from rich.console import Console
        from rich.progress import Progress
        from rich.table import Table

        from monitor.rules.cards import card_from_index
        from monitor.rules.paigow.catalog import built_in
        from monitor.rules.paigow.fast_house_way import compile_house_way, set_hands_batch
        from monitor.rules.paigow.house_way import set_hand
        from monitor.rules.paigow.setting import FRONT_INDEX_PAIRS
        from monitor.rules.profile import PaiGowProfile

        con = Console()
        profile = PaiGowProfile(house_way=house_way)
        way = built_in(house_way)
        rng = np.random.default_rng(seed)

        def random_hands(n: int) -> np.ndarray:
            return np.argsort(rng.random((n, 53)), axis=1)[:, :7].astype(np.int64)

        t0 = time.perf_counter()
        compiled = compile_house_way(way)
        set_hands_batch(compiled, random_hands(64), profile)  # numba compile (or load from cache) + tables
        warmup = time.perf_counter() - t0

        fast_time = 0.0
        rule_counts = np.zeros(len(way.rules) + 1, dtype=np.int64)
        with Progress(console=con) as bar:
            task = bar.add_task("batch (numba)", total=hands)
            done = 0
            while done < hands:
                n = min(chunk, hands - done)
                batch = random_hands(n)  # generated outside the timed region
                t = time.perf_counter()
                _, rule = set_hands_batch(compiled, batch, profile)
                fast_time += time.perf_counter() - t
                rule_counts += np.bincount(rule + 1, minlength=len(way.rules) + 1)
                done += n
                bar.update(task, advance=n)

        ref = random_hands(reference_hands)
        ref_cards = [[card_from_index(int(x)) for x in row] for row in ref]
        ref_results = []
        with Progress(console=con) as bar:
            task = bar.add_task("reference interpreter", total=reference_hands)
            t = time.perf_counter()
            for cards in ref_cards:
                ref_results.append(set_hand(way, cards, profile))
                bar.advance(task)
            ref_time = time.perf_counter() - t
        split, rule = set_hands_batch(compiled, ref, profile)
        mismatches = 0
        for cards, k, r, res in zip(ref_cards, split, rule, ref_results, strict=True):
            i, j = FRONT_INDEX_PAIRS[int(k)]
            name = way.rules[int(r)].name if r >= 0 else "fallback: best legal setting"
            if {cards[i], cards[j]} != set(res.setting.front) or name != res.rule:
                mismatches += 1

        fast_rate = hands / fast_time
        ref_rate = reference_hands / ref_time
        table = Table(title=f"House way '{way.name}': settings per second (random 7-card hands, 53 cards)")
        for col in ("path", "hands", "seconds", "settings/s", "vs reference"):
            table.add_column(col, justify="right" if col != "path" else "left")
        table.add_row("batch: numba kernel over compiled rules", f"{hands:,}", f"{fast_time:.2f}",
                      f"{fast_rate:,.0f}", f"{fast_rate / ref_rate:,.0f}x")
        table.add_row("reference: Python interpreter", f"{reference_hands:,}", f"{ref_time:.2f}",
                      f"{ref_rate:,.0f}", "1x")
        con.print(table)
        con.print(f"warm-up (compile or load kernel, build tables): {warmup:.1f} s; cpus {os.cpu_count()}")
        con.print(
            f"agreement on the {reference_hands:,} reference hands: "
            f"{reference_hands - mismatches:,} equal, {mismatches} different"
        )
        top = Table(title="Rules used by the batch path")
        top.add_column("rule")
        top.add_column("hands", justify="right")
        top.add_column("share", justify="right")
        names = ["fallback: best legal setting", *(r.name for r in way.rules)]
        for idx in np.argsort(-rule_counts)[:8]:
            if rule_counts[idx]:
                top.add_row(names[idx], f"{int(rule_counts[idx]):,}", f"{rule_counts[idx] / hands:.2%}")
        con.print(top)
        if mismatches:
            raise typer.Exit(1)
