"""``table-monitor render-round``, ``round-script`` and ``sample-recording``: scripted rounds to video
with ground truth, true events and the alerts the rules must raise (docs/rounds.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import frame_size


def _fail(msg: str) -> typer.Exit:
    typer.echo(f"error: {msg}", err=True)
    return typer.Exit(2)


def register(app: typer.Typer) -> None:
    @app.command("render-round")
    def render_round(
        scripts: Annotated[
            list[Path],
            typer.Argument(
                help="Round script(s) (YAML); several play one after "
                "another in one video. A shipped script may be "
                "named without a path, e.g. paigow_clean."
            ),
        ],
        out: Annotated[
            Path,
            typer.Option(
                "--out", help="Output folder: video.mp4, truth.jsonl, events.jsonl, alerts.jsonl, check.json"
            ),
        ],
        resolution: Annotated[str, typer.Option(parser=frame_size, metavar="720p|1080p|4k|WIDTHxHEIGHT",
                                                help="the video's size")] = "1080p",
        fps: Annotated[int, typer.Option(min=1, max=120)] = 30,
        crf: Annotated[int, typer.Option(min=0, max=51, help="H.264 quality (higher: smaller file)")] = 28,
        effects: Annotated[bool, typer.Option(help="camera look: vignette, glare, noise")] = True,
        strip: Annotated[
            Path | None, typer.Option(help="also write a picture strip (PNG) of six moments of the round")
        ] = None,
        design: Annotated[
            str | None, typer.Option(help="card design for every script (a drawn name or a folder of faces)")
        ] = None,
        table_style: Annotated[str | None, typer.Option(help="table style for every script")] = None,
        video: Annotated[
            bool, typer.Option(help="render the video and truth (--no-video: events, alerts, strip only)")
        ] = True,
        layout: Annotated[Path | None, typer.Option(
            help="the table's layout file (default: the script's layout:, else the built-in table)")] = None,
        table: Annotated[Path | None, typer.Option(
            help="the table file the chain reads, made for the layout (default: the script's table:, else "
                 "the one render-table-file makes for the layout)")] = None,
        habit: Annotated[list[str] | None, typer.Option(
            help="a dealing habit (repeatable): plain, clockwise, clockwise_unprofiled, squared_stub, "
                 "hand_unseen, bets_before, cards_on_circle (docs/renderer.md)")] = None,
        light: Annotated[str, typer.Option(help="the room's light: studio, dim, warm, bright")] = "studio",
        progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
    ) -> None:
        """Animate round scripts into a video with per-frame ground truth and the true event stream.

        Also writes table.yaml: the table file to read the video with (the layout seen by the
        renderer's camera, carrying the profile the rounds were dealt by).
        Exits with status 1 if the procedure monitor's alerts differ from a script's expect_alerts.
        """
        from contextlib import nullcontext
        from functools import partial

        from rich.progress import Progress

        from monitor.render.rounds.habits import habit_profiles, with_habits
        from monitor.render.rounds.play import play_many
        from monitor.render.rounds.room import RoomError, room_of_scripts, table_for
        from monitor.render.rounds.script import ScriptError, load_script, shipped_scripts
        from monitor.render.rounds.video import RenderOptions, total_frames, write_recording

        shipped = shipped_scripts()
        habits = habit or []
        try:
            loaded = []
            for p in scripts:
                path = p if p.exists() or str(p) not in shipped else shipped[str(p)]
                script = with_habits(load_script(path), habits)
                looks = {k: v for k, v in (("design", design), ("table_style", table_style)) if v}
                loaded.append((script.model_copy(update=looks), str(path)))
            room = room_of_scripts(loaded, str(layout) if layout else None, str(table) if table else None)
            dealt, carried = habit_profiles(habits, room.profile)
            rounds = play_many(loaded, layout=room.layout, profile=dealt)
            opts = RenderOptions(resolution, fps, effects, crf, light=light)
            opts.look()
            chain_table = table_for(room.layout, opts.size(), room.table.table, carried)
        except (ScriptError, RoomError, ValueError) as e:
            raise _fail(str(e)) from None
        n = total_frames(rounds, fps)
        bar = Progress() if progress else None
        with bar if bar is not None else nullcontext():
            step = None
            if bar is not None:
                task = bar.add_task(f"rendering {n} frames", total=n if video else 0)
                step = partial(bar.advance, task)
            res = write_recording(rounds, out, opts, step, video=video, table=chain_table)
        if video:
            typer.echo(
                f"{out}/video.mp4: {res.frames} frames ({res.seconds:.1f} s at {fps} fps, {res.rendered} "
                f"rendered, {res.codec}); {res.events} events"
            )
        else:
            typer.echo(f"{out}: {res.events} events over {res.seconds:.1f} s (no video rendered)")
        for source, check in res.checks:
            mark = "ok" if check.ok else "MISMATCH"
            typer.echo(
                f"  {mark}: {source}: expected {check.expected or 'no alerts'}, raised "
                f"{check.got or 'none'}" + ("" if check.ok else f" ({check.explain()})")
            )
        if strip is not None:
            import cv2

            from monitor.render.rounds.strip import picture_strip

            cv2.imwrite(str(strip), picture_strip(rounds, opts), [cv2.IMWRITE_JPEG_QUALITY, 85])
            typer.echo(f"wrote {strip}")
        if not res.ok:
            raise typer.Exit(1)

    @app.command("round-script")
    def round_script(
        seed: Annotated[int, typer.Option(help="random seed: the same seed gives the same script")] = 0,
        fault: Annotated[
            str,
            typer.Option(
                help="a fault to inject ('' for a clean round, 'random' for any; see docs/rounds.md)"
            ),
        ] = "",
        out: Annotated[
            Path | None,
            typer.Option("--out", help="write the YAML here (default: print); with --count, a folder"),
        ] = None,
        count: Annotated[
            int,
            typer.Option(
                min=1,
                max=100_000,
                help="how many scripts: one table's session of rounds (seeds "
                "seed, seed+1, ...), the bank passing as the rules allow",
            ),
        ] = 1,
    ) -> None:
        """Generate random (seeded) Pai Gow round scripts, clean or with one fault each."""
        from monitor.render.rounds.generate import FAULTS, random_script, random_session
        from monitor.render.rounds.script import script_to_yaml

        if fault and fault != "random" and fault not in FAULTS:
            raise _fail(f"unknown fault {fault!r} (known: {', '.join(FAULTS)}, random)")
        if count == 1:
            text = script_to_yaml(random_script(seed, fault or None))
            if out is None:
                typer.echo(text, nl=False)
            else:
                out.write_text(text, encoding="utf-8")
                typer.echo(f"wrote {out}")
            return
        if out is None:
            raise _fail("--count needs --out FOLDER")
        out.mkdir(parents=True, exist_ok=True)
        # one table's session: the bank moves as rules 3 and 40 allow, so the rounds play back to back
        for k, script in enumerate(random_session(seed, count, fault or None)):
            (out / f"{k:05d}_{script.name}.yaml").write_text(script_to_yaml(script), encoding="utf-8")
        typer.echo(f"wrote {count} scripts to {out} (one session: play them in name order)")

    @app.command("sample-recording")
    def sample_recording(
        out: Annotated[
            Path, typer.Option("--out", help="Output folder (video.mp4 and its ground truth, events, alerts)")
        ] = Path("sample-recording"),
        resolution: Annotated[str, typer.Option(parser=frame_size, metavar="720p|1080p|4k|WIDTHxHEIGHT",
                                                help="the video's size")] = "720p",
        fps: Annotated[int, typer.Option(min=1, max=60)] = 30,
        crf: Annotated[int, typer.Option(min=0, max=51)] = 30,
        gzip_truth: Annotated[bool, typer.Option(help="write truth.jsonl.gz instead of truth.jsonl")] = False,
    ) -> None:
        """The demo's sample recording: a clean round and faulty ones on one table, reproducible."""
        from rich.progress import Progress

        from monitor.render.rounds.sample import SAMPLE_SCRIPTS, sample_rounds
        from monitor.render.rounds.video import RenderOptions, total_frames, write_recording

        rounds = sample_rounds()
        n = total_frames(rounds, fps)
        with Progress() as bar:
            task = bar.add_task(f"rendering {n} frames ({', '.join(SAMPLE_SCRIPTS)})", total=n)
            res = write_recording(
                rounds,
                out,
                RenderOptions(resolution, fps, True, crf),
                lambda k: bar.advance(task, k),
                gzip_truth=gzip_truth,
            )
        size = (out / "video.mp4").stat().st_size / 1e6
        typer.echo(
            f"{out}/video.mp4: {res.seconds:.0f} s, {res.frames} frames ({res.rendered} rendered), "
            f"{size:.1f} MB ({res.codec}); {res.events} events; alerts in {out}/alerts.jsonl"
        )
        if not res.ok:
            raise typer.Exit(1)

    @app.command("render-table-file")
    def render_table_file(
        layout: Annotated[Path, typer.Option(help="the layout file (table-monitor layout make)")],
        out: Annotated[Path, typer.Option(help="the table file to write")],
        resolution: Annotated[str, typer.Option(parser=frame_size, metavar="720p|1080p|4k|WIDTHxHEIGHT",
                                                help="the camera frame's size")] = "1080p",
        table_id: Annotated[str, typer.Option("--table", help="the table's id")] = "table-1",
    ) -> None:
        """The table file of a layout seen by the renderer's camera over it (exact, from the camera
        model): what render-round and the variations gate read a rendered round of that layout with."""
        from monitor.geometry import LayoutError, load_layout
        from monitor.render.rounds.room import table_for
        from monitor.render.rounds.video import RenderOptions

        try:
            lay = load_layout(layout)
            size = RenderOptions(resolution).size()
        except (LayoutError, ValueError) as e:
            raise _fail(str(e)) from None
        table_for(lay, size, table_id).save(
            out, header=f"made by `table-monitor render-table-file --layout {layout}`: the renderer's camera "
                        f"over {lay.name} (monitor/render/rounds/room.py camera_for)")
        typer.echo(f"wrote {out}: layout {lay.name}, {size[0]}x{size[1]}")
