"""``table-monitor layout make|draw|explain``: a table layout from a room's measurements, drawn, explained."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from monitor.geometry import TableLayout

LAYOUT_ARG = "Layout YAML (default: the built-in seven-seat table)."


def register(app: typer.Typer) -> None:
    layout_app = typer.Typer(
        help="Table layouts: make one from measurements, draw it, explain its zones (docs/layout.md).",
        no_args_is_help=True,
    )
    app.add_typer(layout_app, name="layout")

    @layout_app.command("make")
    def make(
        source: Annotated[Path, typer.Option("--from", help="Measurements YAML (docs/layout.md).")],
        out: Annotated[Path, typer.Option(help="Layout file to write.")],
        draw: Annotated[Path | None, typer.Option(help="Also draw the layout to this PNG.")] = None,
    ) -> None:
        """Make a layout from a room's measurements (and points clicked on a picture of its felt)."""
        import yaml

        from monitor.geometry import LayoutError
        from monitor.geometry.layout_write import save_layout
        from monitor.layout.measurements import make_layout

        try:
            data = yaml.safe_load(source.read_text("utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            _fail(f"cannot read measurements {source}: {exc}")
        except yaml.YAMLError as exc:
            _fail(f"measurements {source} are not valid YAML: {exc}")
        try:
            layout = make_layout(data, str(source))
        except LayoutError as exc:
            _fail(str(exc))
        path = save_layout(layout, out, header=f"made by `table-monitor layout make --from {source}`")
        typer.echo(f"wrote {path}: {len(layout.zones)} zones" + _lacks(layout))
        if draw is not None:
            _draw(layout, draw)
        typer.echo(f"next: table-monitor layout explain {path}; calibrate with --layout {path}")

    @layout_app.command("draw")
    def draw_cmd(
        layout: Annotated[Path | None, typer.Argument(help=LAYOUT_ARG)] = None,
        out: Annotated[Path, typer.Option(help="PNG to write.")] = Path("layout.png"),
        px_per_mm: Annotated[float, typer.Option(help="Picture scale, pixels per millimetre.", min=0.1,
                                                 max=4.0)] = 0.6,
    ) -> None:
        """Draw a layout from above with every zone labelled, the delivered-pile region hatched."""
        _draw(_load(layout), out, px_per_mm)

    @layout_app.command("explain")
    def explain_cmd(layout: Annotated[Path | None, typer.Argument(help=LAYOUT_ARG)] = None) -> None:
        """Say what each zone of a layout means, the zone rules, and what the table does not have."""
        from monitor.layout.explain import explain

        for line in explain(_load(layout)):
            typer.echo(line)


def _lacks(layout: TableLayout) -> str:
    return f"; not on this table: {', '.join(layout.absent)}" if layout.absent else ""


def _load(path: Path | None) -> TableLayout:
    from monitor.geometry import LayoutError, default_layout, load_layout

    try:
        return default_layout() if path is None else load_layout(path)
    except LayoutError as exc:
        _fail(str(exc))


def _draw(layout: TableLayout, out: Path, px_per_mm: float = 0.6) -> None:
    import cv2

    from monitor.layout.draw import draw_layout

    out.parent.mkdir(parents=True, exist_ok=True)
    smallest = [cv2.IMWRITE_PNG_COMPRESSION, 9] if out.suffix.lower() == ".png" else []
    if not cv2.imwrite(str(out), draw_layout(layout, px_per_mm), smallest):
        _fail(f"cannot write {out} (an image name ends .png or .jpg)")
    typer.echo(f"wrote {out}")


def _fail(message: str) -> NoReturn:
    typer.secho(message, fg=typer.colors.RED, err=True)
    raise typer.Exit(2)
