"""``table-monitor train zoom-detect``: closer views of a rendered detector dataset, for a detector that
looks closer (the photo models)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.train import train_app


@train_app.command("zoom-detect")
def zoom_detect_cmd(
    src: Annotated[Path, typer.Option(help="an ultralytics OBB dataset (`render detect --out`)")],
    out: Annotated[Path, typer.Option(help="the zoomed dataset (writes OUT/obb.yaml)")],
    zoom: Annotated[float, typer.Option(min=1.0, max=8.0, help="how many times closer")] = 2.0,
    crops: Annotated[int, typer.Option(min=1, max=16, help="windows cut from each frame")] = 2,
    min_inside: Annotated[float, typer.Option(
        min=0.05, max=1.0, help="an object the window cuts is kept with this share of it inside")] = 0.6,
    seed: Annotated[int, typer.Option()] = 0,
) -> None:
    """Windows of 1/ZOOM of each frame saved at their own pixels, so cards come out ZOOM times longer in
    the detector's input; labels moved and clipped with them."""
    from monitor.training.zoom_detect import ZoomError, zoom_dataset

    try:
        counts = zoom_dataset(src, out, zoom, crops, seed, min_inside)
    except ZoomError as exc:
        raise typer.BadParameter(str(exc)) from None
    typer.echo(" ".join(f"{k}={v}" for k, v in counts.items()) + f" frames -> {out / 'obb.yaml'}")


def register(app: typer.Typer) -> None:
    """The command joins ``train`` (registered by monitor.commands.train)."""
