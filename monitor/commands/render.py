"""``table-monitor render ...``: synthetic datasets and sample frames from the table renderer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import Resolution, resolution_weights

VECTOR_DECK = "/work/shared/decks/vector-playing-cards"


def _designs(text: str) -> list[str]:
    from monitor.render.deck import DesignError, expand_designs, load_design

    try:
        names = expand_designs(text)
    except DesignError as e:
        raise typer.BadParameter(str(e)) from None
    for d in names:
        try:
            load_design(d)
        except DesignError as e:
            raise typer.BadParameter(str(e)) from None
    return names


def register(app: typer.Typer) -> None:
    render_app = typer.Typer(
        help="Render synthetic table images and datasets with ground truth.", no_args_is_help=True
    )
    app.add_typer(render_app, name="render")
    _register_detect(render_app)
    _register_indices(render_app)
    _register_sheet(render_app)

    @render_app.command("crops")
    def crops(
        out: Annotated[Path, typer.Option("--out", help="Dataset folder (ultralytics classify layout).")],
        n: Annotated[
            int, typer.Option("--n", help="Train + val crops (val gets --val-frac of them).")
        ] = 20000,
        designs: Annotated[
            str, typer.Option(help="Training card designs: drawn names or folders.")
        ] = "classic,jumbo",
        test_designs: Annotated[
            str, typer.Option(help="Held-out designs for the test splits ('' for none).")
        ] = VECTOR_DECK,
        test_n: Annotated[
            int, typer.Option(help="Crops in each held-out split (test, test_table, test_design).")
        ] = 3500,
        val_frac: Annotated[float, typer.Option(help="Share of --n that goes to val.")] = 0.1,
        size: Annotated[int, typer.Option(help="Square crop size in px.")] = 96,
        min_visible: Annotated[float, typer.Option(help="Skip cards less visible than this share.")] = 0.6,
        resolutions: Annotated[
            dict[str, float], typer.Option(parser=resolution_weights, metavar="NAME[:WEIGHT],...",
                                           help="Frame resolutions (720p, 1080p, 4k) with weights.")
        ] = "1080p:0.7,4k:0.3",  # type: ignore[assignment]  # parsed by resolution_weights
        seed: Annotated[int, typer.Option(help="Random seed: same seed, same dataset.")] = 0,
        only: Annotated[
            str, typer.Option(help="Comma list of splits to make (default all), to run splits in parallel.")
        ] = "",
        threads: Annotated[
            int, typer.Option(help="OpenCV threads (1 when running several exports side by side).")
        ] = 1,
    ) -> None:
        """Rectified card crops for the identity classifier (54 classes), split by design and table."""
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from monitor.render.crops import CropOptions, export_crops
        from monitor.render.datasets import standard_splits

        train_designs = _designs(designs)
        held = _designs(test_designs) if test_designs.strip() else []
        res = resolutions
        splits = standard_splits(train_designs, held)
        n_val = round(n * val_frac)
        counts = {"train": n - n_val, "val": n_val}
        for s in ("test", "test_table", "test_design"):
            if s in splits:
                counts[s] = test_n
        if only.strip():
            keep = {x.strip() for x in only.split(",") if x.strip()}
            unknown = keep - set(counts)
            if unknown:
                raise typer.BadParameter(
                    f"--only: unknown split(s) {sorted(unknown)} (splits: {', '.join(counts)})"
                )
            counts = {k: v for k, v in counts.items() if k in keep}
        import cv2

        cv2.setNumThreads(threads)
        opt = CropOptions(size=size, min_visible=min_visible, resolutions=res)
        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()
        ) as bar:
            tasks = {s: bar.add_task(f"crops {s:<11}", total=c) for s, c in counts.items()}
            result = export_crops(
                out, counts, splits, seed, opt, progress=lambda s, k: bar.advance(tasks[s], k)
            )
        for s, c in result.items():
            typer.echo(f"{s}: {sum(c.values())} crops, {len(c)} classes, min per class {min(c.values())}")
        typer.echo(f"wrote {out} (manifest.csv has each crop's design, table, resolution, card px, jitter)")

    @render_app.command("frame")
    def frame(
        out: Annotated[Path, typer.Option("--out", help="Image file to write (PNG/JPEG).")] = Path(
            "frame.png"
        ),
        truth: Annotated[Path | None, typer.Option(help="Also write the ground truth JSON here.")] = None,
        design: Annotated[str, typer.Option(help="Card design.")] = "classic",
        table: Annotated[str, typer.Option(help="Table style.")] = "green",
        phase: Annotated[
            str | None, typer.Option(help="deal, delivered, set, showdown or scatter (default random).")
        ] = None,
        resolution: Annotated[Resolution, typer.Option(help="The frame's size.")] = Resolution.P1080,
        default_camera: Annotated[
            bool, typer.Option(help="Use the default overhead camera (calibration's).")
        ] = False,
        effects: Annotated[bool, typer.Option(help="Apply lighting and sensor effects.")] = True,
        h264_crf: Annotated[
            int | None, typer.Option(min=0, max=51, help="Put the frame through H.264 at this CRF.")
        ] = None,
        empty: Annotated[bool, typer.Option(help="Render the bare table (no objects).")] = False,
        seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    ) -> None:
        """Render one random frame (and its ground truth)."""
        import json

        import cv2
        import numpy as np

        from monitor.render.camera import RESOLUTIONS
        from monitor.render.camera import default_camera as make_default
        from monitor.render.effects import Effects
        from monitor.render.random_scene import random_camera, random_scene
        from monitor.render.renderer import Renderer
        from monitor.render.scene import Scene

        rng = np.random.default_rng(seed)
        r = Renderer()
        d = _designs(design)[0]
        scene = Scene(table_style=table) if empty else random_scene(rng, d, table, phase=phase)
        w, h = RESOLUTIONS[resolution.value]
        cam = make_default(w, h) if default_camera else random_camera(rng, (w, h))
        fx = Effects.random(rng) if effects else None
        if h264_crf is not None:
            fx = fx or Effects()
            fx.h264_crf = h264_crf
        f = r.render(scene, cam, fx)
        cv2.imwrite(str(out), f.image)
        if truth is not None:
            truth.write_text(
                json.dumps(
                    {
                        "camera": {
                            "K": cam.K.tolist(),
                            "R": cam.R.tolist(),
                            "t": cam.t.tolist(),
                            "dist": cam.dist.tolist(),
                            "width": w,
                            "height": h,
                        },
                        "objects": [o.to_json() for o in f.objects],
                    },
                    indent=1,
                )
            )
        typer.echo(f"wrote {out} ({len(f.objects)} objects)")


def _register_detect(render_app: typer.Typer) -> None:
    @render_app.command("detect")
    def detect(
        out: Annotated[
            Path, typer.Option("--out", help="Dataset folder (ultralytics OBB + detect layouts, COCO).")
        ],
        n: Annotated[int, typer.Option("--n", help="Training frames.")] = 3000,
        val_n: Annotated[int, typer.Option(help="Validation frames (training designs and tables).")] = 300,
        test_n: Annotated[
            int, typer.Option(help="Frames in the held-out test split (held-out design on held-out table).")
        ] = 300,
        designs: Annotated[str, typer.Option(help="Training card designs.")] = "classic,jumbo",
        test_designs: Annotated[str, typer.Option(help="Held-out designs ('' for none).")] = VECTOR_DECK,
        imgsz: Annotated[
            int, typer.Option(help="Long side of the saved images (labels are normalized).")
        ] = 640,
        resolutions: Annotated[
            dict[str, float], typer.Option(parser=resolution_weights, metavar="NAME[:WEIGHT],...",
                                           help="Rendered resolutions (720p, 1080p, 4k) with weights.")
        ] = "1080p:0.8,4k:0.2",  # type: ignore[assignment]  # parsed by resolution_weights
        oblique: Annotated[float, typer.Option(help="Share of oblique cameras.")] = 0.35,
        fullres: Annotated[
            int, typer.Option(help="Also keep this many full-resolution frames + truth JSON per split.")
        ] = 0,
        h264: Annotated[
            float, typer.Option(min=0.0, max=1.0, help="Share of frames put through H.264 (CRF 18-35).")
        ] = 0.3,
        arms: Annotated[
            float, typer.Option(min=0.0, help="Arms per scene (Poisson mean 1.5x this): more hands to learn.")
        ] = 0.45,
        only: Annotated[
            str, typer.Option(help="Comma list of splits to make (default train,val,test).")
        ] = "",
        seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
        threads: Annotated[int, typer.Option(help="OpenCV threads.")] = 1,
        workers: Annotated[
            int, typer.Option(min=0, help="Processes rendering side by side (0: one per core).")
        ] = 0,
        start: Annotated[
            int, typer.Option(help="Number frames from here (a second process adding frames).")
        ] = 0,
    ) -> None:
        """Detection frames with oriented and axis-aligned boxes (card up/down, pile, chip, dice)."""
        import os

        import cv2
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from monitor.render.datasets import standard_splits
        from monitor.render.detect_export import DetectOptions, export_detect

        cv2.setNumThreads(threads)
        held = _designs(test_designs) if test_designs.strip() else []
        splits = standard_splits(_designs(designs), held)
        counts = {"train": n, "val": val_n}
        if "test" in splits:
            counts["test"] = test_n
        if only.strip():
            keep = {x.strip() for x in only.split(",") if x.strip()}
            if keep - set(counts):
                raise typer.BadParameter(f"--only: unknown split(s) {sorted(keep - set(counts))}")
            counts = {k: v for k, v in counts.items() if k in keep}
        opt = DetectOptions(
            imgsz=imgsz,
            resolutions=resolutions,
            oblique=oblique,
            fullres=fullres,
            h264=h264,
            arms=arms,
        )
        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()
        ) as bar:
            tasks = {s: bar.add_task(f"frames {s:<6}", total=c) for s, c in counts.items()}
            result = export_detect(
                out,
                counts,
                splits,
                seed,
                opt,
                progress=lambda s, k: bar.advance(tasks[s], k),
                start=start,
                workers=workers or os.cpu_count() or 1,
                threads=threads,
            )
        for s, c in result.items():
            typer.echo(
                f"{s}: {counts[s]} frames, labels: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
            )
        typer.echo(f"wrote {out} (obb.yaml, aabb.yaml, coco_<split>.json)")


def _register_indices(render_app: typer.Typer) -> None:
    @render_app.command("indices")
    def indices(
        out: Annotated[Path, typer.Option("--out", help="Dataset folder (ultralytics pose: pose.yaml).")],
        n: Annotated[int, typer.Option("--n", help="Training windows.")] = 6000,
        val_n: Annotated[int, typer.Option(help="Validation windows (training designs and tables).")] = 400,
        test_n: Annotated[int, typer.Option(help="Windows of the held-out design on held-out tables.")] = 400,
        designs: Annotated[str, typer.Option(help="Training card designs.")] = "classic,jumbo,proc:0-399",
        test_designs: Annotated[str, typer.Option(help="Held-out designs.")] = VECTOR_DECK,
        window: Annotated[float, typer.Option(min=0.05, max=1.0, help="Share of the frame per window.")]
        = 0.22,
        seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
        workers: Annotated[int, typer.Option(min=0, help="Processes rendering side by side (0: per core).")]
        = 0,
    ) -> None:
        """Full-resolution windows with every readable card index labeled by its four corners, for the
        index finder that reads fanned and overlapping hands (`train indices`)."""
        import os

        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from monitor.render.datasets import standard_splits
        from monitor.render.index_export import IndexOptions, export_indices

        splits = standard_splits(_designs(designs), _designs(test_designs))
        counts = {k: v for k, v in {"train": n, "val": val_n, "test": test_n}.items() if v > 0}
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn()) as bar:
            tasks = {s: bar.add_task(f"windows {s:<6}", total=c) for s, c in counts.items()}
            result = export_indices(out, counts, splits, seed, IndexOptions(window=window),
                                    progress=lambda s, k: bar.advance(tasks[s], k),
                                    workers=workers or os.cpu_count() or 1)
        for s, c in result.items():
            typer.echo(f"{s}: {c['images']} windows, {c['indices']} indices")
        typer.echo(f"wrote {out / 'pose.yaml'}")


def _register_sheet(render_app: typer.Typer) -> None:
    @render_app.command("sheet")
    def sheet(
        out: Annotated[Path, typer.Option("--out", help="JPEG to write.")] = Path(
            "docs/img/renderer_contact_sheet.jpg"
        ),
        seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    ) -> None:
        """A contact sheet of sample renders (frames, ground truth, designs, crops) for the docs, and a
        close-up of compression artifacts (``<out stem>_codecs.jpg``: none, JPEG, H.264)."""
        from monitor.render.contact_sheet import make_codec_strip, make_sheet

        typer.echo(f"wrote {make_sheet(out, seed)}")
        typer.echo(f"wrote {make_codec_strip(out.with_name(out.stem + '_codecs.jpg'), seed)}")
