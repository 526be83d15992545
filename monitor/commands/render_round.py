"""``table-monitor render-round``, ``round-script`` and ``sample-recording``: scripted rounds to video
with ground truth, true events and the alerts the rules must raise (docs/rounds.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.commands._choices import frame_size


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
    ) -> None:
        """Animate round scripts into a video with per-frame ground truth and the true event stream.

        Exits with status 1 if the procedure monitor's alerts differ from a script's expect_alerts.
        """
        from rich.progress import Progress

        from monitor.render.rounds.play import play_many
        from monitor.render.rounds.script import ScriptError, load_script, shipped_scripts
        from monitor.render.rounds.video import RenderOptions, total_frames, write_recording

        shipped = shipped_scripts()
        try:
            loaded = []
            for p in scripts:
                path = p if p.exists() or str(p) not in shipped else shipped[str(p)]
                script = load_script(path)
                looks = {k: v for k, v in (("design", design), ("table_style", table_style)) if v}
                loaded.append((script.model_copy(update=looks), str(path)))
            rounds = play_many(loaded)
            opts = RenderOptions(resolution, fps, effects, crf)
            opts.size()
        except (ScriptError, ValueError) as e:
            raise _fail(str(e)) from None
        n = total_frames(rounds, fps)
        with Progress() as bar:
            task = bar.add_task(f"rendering {n} frames", total=n if video else 0)
            res = write_recording(rounds, out, opts, lambda k: bar.advance(task, k), video=video)
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
