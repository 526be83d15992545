"""``table-monitor sample-round``: a sample Pai Gow round, judged and settled, printed readably.

The round itself comes from :func:`monitor.rules.paigow.round.sample_round`; this module only prints it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from monitor.rules.paigow.round import Round


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def render_round(rnd: Round) -> None:
    """Print a round with rich: deal, settings, showdown, and the ledger in action order."""
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table

    from monitor.rules.cards import format_cards
    from monitor.rules.hands import evaluate_five, evaluate_two
    from monitor.rules.references import cite, parse_legacy

    con = Console()
    p = rnd.profile
    con.print(Panel.fit(
        f"[bold]Pai Gow Poker - one hand judged and settled[/]\n"
        f"profile [cyan]{p.name}[/]: table limits {money(p.table_min)}-{money(p.table_max)}, "
        f"house way [cyan]{rnd.house_way.title}[/], hand {rnd.hand_number_in_game} of the game\n"
        f"collection per bet: "
        + ", ".join(
            f"{money(t.fee)} up to {money(t.up_to)}" if t.up_to is not None else f"{money(t.fee)} above"
            for t in p.collection
        ),
        title="table-monitor sample-round",
    ))

    # The rulebook of the table's profile, named once; the rows cite its rule numbers.
    deal = Table(title=f"The deal ({cite(p.rulebook, '6-9, 55').text})", show_lines=False)
    deal.add_column("pile", justify="right")
    deal.add_column("cards")
    deal.add_column("to seat", justify="right")
    for pile, cards in enumerate(rnd.piles, start=1):
        mark = " [bold yellow](action)[/]" if pile == rnd.action_pile else ""
        deal.add_row(str(pile), format_cards(cards) + mark, str(rnd.delivery[pile]))
    con.print(deal)
    con.print(
        f"stub: {format_cards(rnd.stub)} ({len(rnd.stub)} cards)   dice: {' + '.join(map(str, rnd.dice))} = "
        f"{sum(rnd.dice)}, counted {p.dice_direction.value} from the banker at seat {rnd.banker_seat} "
        f"(banker is 1, 8, 15) -> action pile {rnd.action_pile} to seat {rnd.action_seat}"
    )
    if rnd.dead_seats:
        con.print(f"no wager at seat(s) {', '.join(map(str, rnd.dead_seats))}: hands collected (rule 9)")

    bank = rnd.banker.setting
    bf, bb = bank.values(p)
    con.print(Panel.fit(
        f"seat {rnd.banker_seat}, {money(rnd.banker_wager.amount)} in action (rule 13)\n"
        f"dealt {format_cards(rnd.hands[rnd.banker_seat])}\n"
        f"set   [bold]{format_cards(bank.front)}[/] ({bf.name})  /  "
        f"[bold]{format_cards(bank.back)}[/] ({bb.name})\n"
        f"how   {rnd.banker_rule}",
        title=f"Banker: {rnd.banker_wager.bettor}",
    ))

    spots = Table(title="Spots against the banker (rules 2, 49, 50, 62)")
    for col in ("seat", "bettors", "dealt", "front", "back", "set by", "result"):
        spots.add_column(col)
    for seat, st in sorted(rnd.settings.items()):
        res = rnd.results[seat]
        bettors = ", ".join(f"{b.bettor} {money(b.amount)}" for b in rnd.bets if b.seat == seat)
        front = format_cards(st.front)
        back = format_cards(st.back)
        if res.foul is None:
            front += f"\n{evaluate_two(st.front, p).name}"
            back += f"\n{evaluate_five(st.back, p).name}"
            cmp = res.comparison
            detail = ""
            if cmp is not None and (cmp.front_copy or cmp.back_copy):
                detail = " (copy to banker, rule 62)"
            result = f"[bold]{res.outcome.value}[/]{detail}"
        else:
            hw = res.house_way_setting
            foul_rule = parse_legacy(res.foul.rule).label
            result = f"[red]FOUL[/] - {foul_rule}: {res.foul.message}; loses (rule 49)"
            if hw is not None:
                result += (
                    f"\nbackline settled on house way {format_cards(hw.front)} / {format_cards(hw.back)}: "
                    f"[bold]{res.backline_outcome.value}[/]"
                )
        spots.add_row(str(seat), bettors, format_cards(rnd.hands[seat]), front, back, st.how, result)
    con.print(spots)

    ledger = Table(title="Settlement in action order (rules 13, 16, 19, 21, 23, 26, 28, 49)")
    cols = ("#", "party", "seat", "role", "wager", "collected", "no action", "returned", "in action",
            "won", "lost", "result", "net", "bank left")
    for col in cols:
        ledger.add_column(col, justify="right" if col not in ("party", "role", "result") else "left")
    s = rnd.settlement
    for ln in (*s.lines, s.banker, s.house):
        ledger.add_row(
            str(ln.order or ""), ln.party, str(ln.seat or ""), ln.role.value, money(ln.wager),
            money(ln.collected), money(ln.no_action), money(ln.returned), money(ln.action),
            money(ln.won), money(ln.lost), ln.result.value, money(ln.net), money(ln.banker_left),
        )
    con.print(ledger)
    total = s.total()
    con.print(f"sum of every party's net: {money(total)} " + ("[green](money conserved)[/]" if total == 0 else
                                                            "[red](NOT CONSERVED)[/]"))


def register(app: typer.Typer) -> None:
    @app.command("sample-round")
    def sample_round_command(
        seed: int = typer.Option(43, help="Seed of the shuffle, dice and action pile."),
        house_way: str = typer.Option(
            "trump_plaza", help="Built-in house way (the list: docs/house_ways.md)."
        ),
    ) -> None:
        """Print a sample Pai Gow round: the deal, the settings (a foul among them), the banker's
        house-way setting, each spot's outcome and the settlement ledger in action order."""
        from monitor.rules.errors import RulesError
        from monitor.rules.paigow.round import sample_round
        from monitor.rules.profile import PaiGowProfile

        try:
            rnd = sample_round(seed, PaiGowProfile(table_max=50_000, house_way=house_way))
        except RulesError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        render_round(rnd)
