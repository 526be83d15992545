"""``table-monitor verify-games`` and ``table-monitor bench-games``: the Poker Games rules vs pokerkit.

verify-games deals random showdowns and checks every hand comparison, every winner and every
share against pokerkit (see ``monitor.lab.pokerkit_check``); bench-games times showdowns per second
of ours and of pokerkit on the same deals, in the same run, and prints the ratio.
"""

from __future__ import annotations

import contextlib

import typer


def register(app: typer.Typer) -> None:
    @app.command("verify-games")
    def verify_games(
        deals: int = typer.Option(100_000, min=1, help="Random deals per suite."),
        suite: list[str] = typer.Option(  # noqa: B008 - typer's way to declare a repeatable option
            ["holdem", "omaha", "lowball"],
            help="Suites to run: holdem (high + hi-lo), omaha (high + hi-lo), pineapple, lowball (A-5).",
        ),
        seed: int = typer.Option(4, help="Random seed (deals are reproducible)."),
        max_players: int = typer.Option(
            0, min=0, max=9, help="Players per deal, 2..N (0: 3 for holdem and omaha, 6 for lowball)."
        ),
        workers: int = typer.Option(1, min=1, max=8, help="Processes (deals run in chunks of 1,000)."),
        full_every: int = typer.Option(
            1, min=1, help="Judge every Nth board-game deal with pokerkit's own from_game; the others with "
            "pokerkit's value of every legal five-card choice (memoized, same ranking, much faster).",
        ),
    ) -> None:
        """Compare Hold'em, Omaha (high and hi-lo) and ace-to-five low with pokerkit on random deals."""
        import time
        from typing import Any

        from rich.console import Console
        from rich.table import Table
        from tqdm import tqdm

        from monitor.lab.pokerkit_check import DEFAULT_MAX_PLAYERS, SUITES, SuiteResult, run_parallel

        console = Console(width=120) if not Console().is_terminal else Console()
        table = Table(title=f"seed 004 poker rules vs pokerkit, {deals:,} deals per suite, seed {seed}")
        cols = ("suite", "players", "deals", "from_game deals", "hands", "pairwise comparisons", "mismatches",
                "ours s", "pokerkit s", "wall s")
        for col in cols:
            table.add_column(col, justify="right")
        failed = False
        for name in suite:
            if name not in SUITES:
                raise typer.BadParameter(f"unknown suite {name!r} (suites: {', '.join(SUITES)})")
            t0 = time.perf_counter()
            with tqdm(total=deals, desc=name, unit="deal", smoothing=0.05) as bar:

                def report(r: SuiteResult, bar: tqdm[Any] = bar) -> None:
                    # Running totals on the bar, so a run stopped early still says what it checked.
                    bar.set_postfix(hands=r.hands, comparisons=r.comparisons, mismatches=len(r.mismatches))

                res = run_parallel(name, deals, seed, max_players or None, workers, progress=bar.update,
                                   full_every=full_every, report=report)
            wall = time.perf_counter() - t0
            failed = failed or bool(res.mismatches)
            players = f"2..{max_players or DEFAULT_MAX_PLAYERS[name]}"
            full = f"{res.full_peer_deals:,}" if name != "lowball" else "-"  # pokerkit has no A-5 from_game
            table.add_row(name, players, f"{res.deals:,}", full, f"{res.hands:,}", f"{res.comparisons:,}",
                          str(len(res.mismatches)), f"{res.seconds_ours:.1f}", f"{res.seconds_peer:.1f}",
                          f"{wall:.1f}")
            for m in res.mismatches[:10]:
                console.print(f"[red]MISMATCH[/red] {m}")
        console.print(table)
        if failed:
            raise typer.Exit(1)
        console.print("[green]all deals agree with pokerkit[/green]")

    @app.command("bench-games")
    def bench_games(
        deals: int = typer.Option(5_000, min=1, help="Deals per game."),
        seed: int = typer.Option(4, help="Random seed."),
        max_players: int = typer.Option(6, min=2, max=9, help="Players per deal, 2..N."),
    ) -> None:
        """Showdowns per second of each game of the Poker Games rulebook, ours vs pokerkit on the same deals.

        The seven-card category count (133,784,560 hands) is rules-core's ``table-monitor bench-hands``.
        """
        import time
        from typing import Any

        import pokerkit as pk
        from rich.console import Console
        from rich.table import Table
        from tqdm import tqdm

        from monitor.lab.pokerkit_check import iter_deals, to_pk
        from monitor.rules.games import high
        from monitor.rules.games.poker import showdown

        high.tables()  # built once per process, not part of a showdown
        rows = (
            ("holdem", "holdem", pk.StandardHighHand, None),
            ("holdem_hilo", "holdem", pk.StandardHighHand, pk.EightOrBetterLowHand),
            ("omaha", "omaha", pk.OmahaHoldemHand, None),
            ("omaha_hilo", "omaha", pk.OmahaHoldemHand, pk.OmahaEightOrBetterLowHand),
            ("pineapple", "pineapple", pk.StandardHighHand, None),
            ("lowball", "lowball", None, pk.RegularLowHand),
        )
        console = Console(width=120) if not Console().is_terminal else Console()
        table = Table(title=f"showdowns per second, {deals:,} deals of 2..{max_players} players (same run)")
        for col in ("game", "ours /s", "pokerkit /s", "ours / pokerkit"):
            table.add_column(col, justify="right")
        for game_key, kind, hi_cls, lo_cls in tqdm(rows, desc="games", unit="game"):
            ds = list(iter_deals(kind, deals, seed, max_players))
            pk_ds = [(to_pk(d.board), [to_pk(h) for h in d.hands.values()]) for d in ds]

            t0 = time.perf_counter()
            for d in ds:
                showdown(game_key, d.board, d.hands, pot=10_000)
            ours = time.perf_counter() - t0

            def peer(board: list[Any], hands: list[list[Any]], hi: Any = hi_cls, lo: Any = lo_cls) -> None:
                # pokerkit's showdown work: every hand's value, then the best (and the best low).
                if hi is not None:
                    max(hi.from_game(h, board) for h in hands)
                if lo is not None:
                    lows = []
                    for h in hands:
                        with contextlib.suppress(ValueError):
                            lows.append(lo.from_game(h, board) if board else lo(h))
                    if lows:
                        max(lows)

            t0 = time.perf_counter()
            for board, hands in pk_ds:
                peer(board, hands)
            theirs = time.perf_counter() - t0
            table.add_row(game_key, f"{deals / ours:,.0f}", f"{deals / theirs:,.0f}", f"{theirs / ours:.1f}x")
        console.print(table)
        console.print("Seven-card category count over all 133,784,560 hands: `table-monitor bench-hands`.")
