"""``table-monitor dice-sim`` (a simulated dice reader on a pseudo-terminal) and ``dice-read``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

DEFAULT_LINK = Path("/tmp/table-monitor-dice")

SIM_HELP = """Run a simulated dice reader that speaks hardware/PROTOCOL.md on a pseudo-terminal.

Prints the device path to give to `dice-read` or to the monitor. Type a command and Enter:
`r` roll random dice, `3 4 5` roll those values, `g` send garbage bytes, `c` a bad checksum,
`x` out-of-range values, `l` lose a roll, `u` unplug, `p` plug back in, `q` quit.
"""


def register(app: typer.Typer) -> None:
    @app.command("dice-sim", help=SIM_HELP)
    def dice_sim(
        link: Annotated[
            Path, typer.Option(help="Stable symlink to the current pty (kept across replugs).")
        ] = DEFAULT_LINK,
        every: Annotated[
            float, typer.Option(help="Roll random dice every N seconds (0: only on command).")
        ] = 0.0,
        heartbeat: Annotated[float, typer.Option(help="Seconds between heartbeat lines.")] = 1.0,
        seed: Annotated[int | None, typer.Option(help="Random seed for reproducible rolls.")] = None,
        script: Annotated[
            Path | None,
            typer.Option(help="Roll dice at set times: YAML list of {t: s, dice: [a, b, c]}, or an events "
                         ".jsonl (its dice_rolled events)."),
        ] = None,
    ) -> None:
        import sys
        import threading
        import time

        from monitor.sources.dice_simulator import DiceSimulator, load_script, script_from_events

        try:
            if script is None:
                rolls = []
            elif script.suffix == ".jsonl":
                rolls = script_from_events(script)
            else:
                rolls = load_script(script)
        except ValueError as exc:
            typer.secho(str(exc), fg=typer.colors.RED, err=True)
            raise typer.Exit(2) from None
        sim = DiceSimulator(link=link, heartbeat_s=heartbeat, roll_every_s=every or None, seed=seed)
        sim.start()
        if rolls:
            started = time.monotonic()
            sim.play(rolls, clock=lambda: time.monotonic() - started)
        typer.echo(sim.device_path, err=False)
        typer.echo(f"(pty {Path(sim.device_path).resolve()}; Ctrl-C or q to stop)", err=True)
        sys.stdout.flush()
        try:
            for line in sys.stdin:
                if not _command(sim, line.strip()):
                    return
            threading.Event().wait()  # stdin closed (run as a service): keep going until interrupted
        except KeyboardInterrupt:
            pass
        finally:
            sim.stop()

    @app.command("dice-read")
    def dice_read(
        port: Annotated[str, typer.Argument(help="Serial device of the dice reader, e.g. /dev/ttyUSB0.")],
        baud: Annotated[int, typer.Option(help="Baud rate (the protocol's default is 9600).")] = 9600,
        heartbeat_timeout: Annotated[
            float, typer.Option(help="Seconds of silence before the reader counts as lost.")
        ] = 3.5,
    ) -> None:
        """Read a dice reader and print every reading and fault as it happens (Ctrl-C to stop)."""
        import time

        from monitor.sources.dice_events import DiceEvent
        from monitor.sources.dice_reader import DiceReader

        def show(event: DiceEvent) -> None:
            mark = "FAULT" if event.is_fault else "ok   "
            typer.echo(f"{event.wall_time.isoformat(timespec='milliseconds')} {mark} {event.message}")

        reader = DiceReader(port, baudrate=baud, heartbeat_timeout_s=heartbeat_timeout, handlers=[show])
        reader.start()
        try:
            while True:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            reader.stop()
            m = reader.metrics()
            typer.echo(
                f"readings {m.readings}, bad lines {m.bad_lines}, garbage bytes {m.garbage_bytes}, "
                f"gaps {m.gaps} ({m.missing_readings} lost), repeats {m.repeats}, reconnects {m.reconnects}",
                err=True,
            )


def _command(sim: object, text: str) -> bool:
    from monitor.sources.dice_simulator import DiceSimulator

    assert isinstance(sim, DiceSimulator)
    parts = text.split()
    if not parts:
        return True
    if parts[0] == "q":
        return False
    if parts[0] == "r":
        seq, values = sim.roll()
        typer.echo(f"rolled {values} seq {seq}", err=True)
    elif len(parts) == 3 and all(p.isdigit() and 1 <= int(p) <= 6 for p in parts):
        seq, values = sim.roll((int(parts[0]), int(parts[1]), int(parts[2])))
        typer.echo(f"rolled {values} seq {seq}", err=True)
    elif parts[0] == "g":
        sim.send_raw(b"\x00\xff~noise~")
    elif parts[0] == "c":
        sim.roll(bad_checksum=True)
    elif parts[0] == "x":
        sim.roll((0, 7, 3))
    elif parts[0] == "l":
        sim.lose_rolls(1)
    elif parts[0] == "u":
        sim.unplug()
        typer.echo("unplugged", err=True)
    elif parts[0] == "p":
        sim.replug()
        typer.echo(f"plugged in again at {sim.device_path}", err=True)
    else:
        typer.echo(f"unknown command {text!r} (r, 'd1 d2 d3', g, c, x, l, u, p, q)", err=True)
    return True
