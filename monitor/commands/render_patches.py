"""``table-monitor render-patches``: identity-classifier crops rendered one card at a time (fast)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command("render-patches")
    def render_patches(
        out: Annotated[Path, typer.Option("--out", help="Dataset folder (ultralytics classify layout).")],
        n: Annotated[int, typer.Option("--n", min=1, help="Crops to write (54 classes in turn).")] = 20000,
        split: Annotated[str, typer.Option(help="Split folder to write into: train, val, ...")] = "train",
        designs: Annotated[
            str, typer.Option(help="Card designs: drawn names, folders, generated decks (proc:0-399).")
        ] = "classic,jumbo,proc:0-399",
        seed: Annotated[int, typer.Option(help="Random seed: same seed, same crops.")] = 0,
        size: Annotated[int, typer.Option(min=16, help="Square crop size in px.")] = 96,
        jitter: Annotated[
            str, typer.Option(help="Corner jitter: sigma range as shares of the card's long side, 'MIN,MAX' "
                              "(the runtime's corners: a finder's ~0.01-0.035; a detector's box can be "
                              "far worse)")
        ] = "0.01,0.035",
        face_cover: Annotated[
            float, typer.Option(min=0.0, max=1.0, help="Of the cards laid over a crop's card, the share "
                                "that are another card's face (its pips inside the crop), not blank")
        ] = 0.0,
        shake: Annotated[
            str, typer.Option(help="Motion smear: 'P,MIN,MAX', its chance and length range in px at "
                              "the crop's scale")
        ] = "0.08,1.5,5",
        not_one_card: Annotated[
            bool, typer.Option("--not-one-card", help="Instead of cards: boxes that hold no single card "
                               "(two cards boxed as one, a box across two cards, an empty painted box, "
                               "felt under chips or a hand), into the class folder 'none'")
        ] = False,
    ) -> None:
        """Card crops for the identity classifier from single-card patches: a card at camera size on
        training-table felt or other cards, partly hidden now and then, with light and sensor effects,
        cut by the runtime's rectifier. Hundreds of times faster than cutting crops from whole tables
        (`render crops`), so hundreds of generated decks fit in one dataset. Held-out table colours
        never appear."""
        import cv2
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        from monitor.commands.render import _designs
        from monitor.perception.labels import NOT_ONE_CARD
        from monitor.render.card_patches import PatchOptions, export_patches
        from monitor.render.deck import CLASS_KEYS

        lo, hi = _floats(jitter, "--jitter", "MIN,MAX")
        if not 0.0 <= lo <= hi <= 0.5:
            raise typer.BadParameter(f"--jitter needs 0 <= MIN <= MAX <= 0.5 (got {jitter!r})")
        shake_p, shake_lo, shake_hi = _floats(shake, "--shake", "P,MIN,MAX")
        if not (0.0 <= shake_p <= 1.0 and 0.0 < shake_lo <= shake_hi <= size / 2):
            raise typer.BadParameter(
                f"--shake needs 0 <= P <= 1 and 0 < MIN <= MAX <= size/2 (got {shake!r})")
        cv2.setNumThreads(1)
        names = _designs(designs)
        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()
        ) as bar:
            task = bar.add_task(f"patches {split}", total=n)
            opt = PatchOptions(size=size, jitter=(lo, hi), face_cover_p=face_cover, shake_p=shake_p,
                               shake_px=(shake_lo, shake_hi))
            export_patches(out, split, n, names, seed, opt, progress=lambda k: bar.advance(task, k),
                           classes=(NOT_ONE_CARD,) if not_one_card else CLASS_KEYS)
        typer.echo(f"wrote {n} crops from {len(names)} designs to {out / split}")


def _floats(text: str, flag: str, form: str) -> tuple[float, ...]:
    """An option's comma-separated numbers, as many as ``form`` names, or a clear error naming it."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != len(form.split(",")):
        raise typer.BadParameter(f"{flag} must be '{form}' (got {text!r})")
    return values
