"""``table-monitor calibrate``, ``calibration-sheet`` and ``check-table``: making and checking table files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from monitor.calibration import TableCalibration
    from monitor.geometry import TableLayout
    from monitor.rules.profile import PaiGowProfile

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
DICT = "DICT_4X4_50"
SHEET_DIR = Path("calibration/markers")
POINT_HELP = "A clicked point U,V=ZONE or U,V=X,Y (repeat; 4 or more). Default: ArUco markers."
POINTS_HELP = "YAML file of clicked points (see calibration/README.md)."
LAYOUT_HELP = "Table layout YAML (default: the built-in table)."
LENS_HELP = "Lens model (YAML with camera_matrix and distortion, or a table file with lens:) for wide lenses."


def register(app: typer.Typer) -> None:
    @app.command()
    def calibrate(
        image: Annotated[
            str, typer.Argument(help="A frame of the table (image), or a video, camera index or RTSP URL.")
        ],
        out: Annotated[Path, typer.Option(help="Table file to write.")] = Path("calibration/table.yaml"),
        overlay: Annotated[
            Path | None, typer.Option(help="Overlay image to write (default: next to --out, .png).")
        ] = None,
        point: Annotated[
            list[str] | None,
            typer.Option(help=POINT_HELP),
        ] = None,
        points: Annotated[Path | None, typer.Option(help=POINTS_HELP)] = None,
        layout: Annotated[Path | None, typer.Option(help=LAYOUT_HELP)] = None,
        table: Annotated[str, typer.Option(help="Table id for events and alerts.")] = "table-1",
        dictionary: Annotated[str, typer.Option(help="ArUco dictionary of the printed markers.")] = DICT,
        frame: Annotated[int, typer.Option(help="For a video or camera: use this frame number.")] = 0,
        max_error: Annotated[float, typer.Option(help="Largest error (mm) allowed for any point.")] = 15.0,
        lens: Annotated[Path | None, typer.Option(help=LENS_HELP)] = None,
    ) -> None:
        """Calibrate a camera: ArUco markers at known places (see `calibration-sheet`) or clicked points."""
        import cv2

        from monitor.calibration.fitting import FitError, calibrate, load_points, marker_pairs, parse_point
        from monitor.calibration.lens import Lens, LensError
        from monitor.calibration.markers import MarkerSet, find_markers
        from monitor.calibration.overlay import draw_overlay

        lay = _layout(layout)
        kept = _kept_profile(out)
        img = _grab(image, frame)
        size = (int(img.shape[1]), int(img.shape[0]))
        try:
            lens_model = Lens.load(lens) if lens is not None else None
            if point or points:
                pairs = [parse_point(p, lay) for p in point or []]
                if points is not None:
                    pairs += load_points(points, lay)
                method = "points"
            else:
                markers = MarkerSet.for_layout(lay, dictionary=dictionary)
                found = find_markers(img, dictionary)
                pairs, unknown = marker_pairs(found, markers)
                if unknown:
                    typer.echo(f"ignoring markers not in the set: {unknown}", err=True)
                method = "aruco"
            result = calibrate(pairs, lay, size, method, table=table, max_error_mm=max_error, lens=lens_model)
        except (FitError, LensError) as exc:
            _fail(str(exc))
        typer.echo(result.report())
        import dataclasses

        reference = out.with_name(out.stem + ".reference.jpg")
        out.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(reference), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        calibration = dataclasses.replace(result.calibration, reference_image=reference.name, profile=kept)
        if kept != result.calibration.profile:  # the new calibration carries the default
            typer.echo(f"kept {out}'s rule profile {kept.name!r}")
        path = calibration.save(out, header=f"calibrated from {image} ({method})")
        overlay_path = overlay or out.with_suffix(".png")
        cv2.imwrite(str(overlay_path), draw_overlay(img, result.calibration, result.pairs))
        typer.echo(f"wrote {path}, {reference.name} (for the camera-moved check) and {overlay_path} "
                   "(check that the zones sit on the printed ones)")

    @app.command("calibration-sheet")
    def calibration_sheet(
        out: Annotated[Path, typer.Option(help="Directory for the printable pages.")] = SHEET_DIR,
        layout: Annotated[Path | None, typer.Option(help=LAYOUT_HELP)] = None,
        dictionary: Annotated[str, typer.Option(help="ArUco dictionary.")] = "DICT_4X4_50",
        size_mm: Annotated[float, typer.Option(help="Printed marker side in mm.")] = 100.0,
        dpi: Annotated[int, typer.Option(help="Print resolution of the pages.")] = 200,
        charuco: Annotated[bool, typer.Option(help="Also write the ChArUco board (calibrate-lens).")] = False,
    ) -> None:
        """Write printable A4 pages of ArUco markers and say where each one goes on the table."""
        from monitor.calibration.markers import MarkerSet, write_sheets

        if charuco:
            import cv2

            from monitor.calibration.lens_fit import board_image, charuco_board

            out.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(out / "charuco-board.png"), board_image(charuco_board(), dpi=dpi))
            typer.echo(f"{out / 'charuco-board.png'}: print at 100 %, glue flat to card, then film it "
                       "at a dozen places and tilts for calibrate-lens")

        markers = MarkerSet.for_layout(_layout(layout), dictionary=dictionary, size_mm=size_mm)
        pages = write_sheets(markers, out, dpi=dpi)
        typer.echo(f"print at 100% (no fit-to-page): {', '.join(str(p) for p in pages)}")
        for place in markers.places:
            x, y = place.center_mm
            typer.echo(f"  marker {place.marker_id}: centre it on {place.zone} (table {x:.0f}, {y:.0f} mm)")
        typer.echo("then: table-monitor calibrate FRAME.png --out calibration/table.yaml")

    @app.command("calibrate-lens")
    def calibrate_lens(
        views: Annotated[
            list[str], typer.Argument(help="Frames of the ChArUco board (images), or videos to sample.")
        ],
        out: Annotated[Path, typer.Option(help="Lens file to write.")] = Path("calibration/lens.yaml"),
        every: Annotated[int, typer.Option(help="For videos: use every Nth frame.")] = 15,
        max_views: Annotated[int, typer.Option(help="Use at most this many views.")] = 60,
    ) -> None:
        """Measure a camera's lens distortion from views of the printed ChArUco board."""
        import yaml
        from tqdm import tqdm

        from monitor.calibration.lens_fit import LensFitError, fit_lens

        frames: list[tuple[str, NDArray[np.uint8]]] = []
        for view in tqdm(views, desc="reading views", unit="file"):
            if Path(view).suffix.lower() in IMAGE_SUFFIXES:
                frames.append((view, _grab(view, 0)))
                continue
            from monitor.sources import open_source

            src = open_source(view)
            with src:
                for frame in src:
                    if frame.index % every == 0:
                        frames.append((f"{view}#{frame.index}", frame.image))
            if src.error:
                typer.echo(f"warning: {src.error}", err=True)
        if len(frames) > max_views:
            step = len(frames) / max_views
            frames = [frames[int(i * step)] for i in range(max_views)]
        try:
            fit = fit_lens(frames)
        except LensFitError as exc:
            _fail(str(exc))
        for why in fit.views_rejected:
            typer.echo(f"skipped {why}", err=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        data = fit.lens.to_data() | {"rms_px": round(fit.rms_px, 3), "views": fit.views_used}
        header = "# lens model for table-monitor calibrate --lens (OpenCV camera matrix and distortion)\n"
        out.write_text(header + yaml.safe_dump(data, sort_keys=False), "utf-8")
        k, d = fit.lens.camera_matrix, fit.lens.distortion
        typer.echo(f"{fit.views_used} views, reprojection RMS {fit.rms_px:.2f} px; fx {k[0, 0]:.0f} "
                   f"fy {k[1, 1]:.0f}, k1 {d[0]:+.3f} k2 {d[1]:+.3f}")
        typer.echo(f"wrote {out}")

    @app.command("check-table")
    def check_table(
        file: Annotated[Path, typer.Argument(help="Table file (YAML) to validate.")],
        image: Annotated[str | None, typer.Option(help="A camera frame to draw the zones on.")] = None,
        overlay: Annotated[Path | None, typer.Option(help="Where to write the overlay image.")] = None,
        truth: Annotated[
            Path | None, typer.Option(help="A rendered recording's truth.jsonl: measure zone agreement.")
        ] = None,
    ) -> None:
        """Validate a table file (every problem is listed) and optionally draw it on a frame."""
        import cv2

        from monitor.calibration import CalibrationError, load_table
        from monitor.calibration.overlay import draw_overlay

        try:
            cal = load_table(file)
        except CalibrationError as exc:
            _fail(str(exc))
        info = cal.info
        rms = f", RMS {info.rms_error_mm:.2f} mm" if info.rms_error_mm is not None else ""
        typer.echo(f"{file}: ok - table {cal.table}, {len(cal.zones)} zones, {cal.image_size[0]}x"
                   f"{cal.image_size[1]}, calibrated by {info.method}{rms}")
        from monitor.rules.table_profile import profile_line

        typer.echo(f"profile {profile_line(cal.profile)}")
        from monitor.calibration.zones import absent_zones

        if absent := absent_zones(cal.zones):
            typer.echo(f"not on this table: {', '.join(absent)}")
        hidden = cal.zones_outside_image()
        if hidden:
            typer.echo(f"warning: the camera does not see {', '.join(hidden)}", err=True)
        if image is not None:
            img = _grab(image, 0)
            if (img.shape[1], img.shape[0]) != cal.image_size:
                typer.echo(f"warning: the frame is {img.shape[1]}x{img.shape[0]} but the table file is for "
                           f"{cal.image_size[0]}x{cal.image_size[1]}", err=True)
            target = overlay or file.with_suffix(".check.png")
            cv2.imwrite(str(target), draw_overlay(img, cal))
            typer.echo(f"wrote {target}")
            _check_drift(cal, img)
        if truth is not None:
            from monitor.tablestate.truth_check import zone_agreement

            try:
                agreement = zone_agreement(truth, cal)
            except (OSError, ValueError) as exc:
                _fail(f"truth {truth}: {exc}")
            for kind, n in sorted(agreement.total.items()):
                typer.echo(f"  {kind:<6} {agreement.agree[kind]:7d} / {n:7d} in the true zone "
                           f"({agreement.share(kind):.2%})")
            for (kind, want, got), n in agreement.confusions.most_common(5):
                typer.echo(f"  {n:5d} x {kind} truly in {want} placed in {got}")


def _check_drift(cal: TableCalibration, frame: NDArray[np.uint8]) -> None:
    """Compare the frame with the calibration's reference frame: has the camera moved?"""
    import cv2
    import numpy as np

    from monitor.calibration.drift import DriftCheck, DriftError

    ref_path = cal.reference_path()
    if ref_path is None:
        return
    reference = cv2.imread(str(ref_path))
    if reference is None:
        typer.echo(f"warning: reference frame {ref_path} is missing or unreadable: no camera-moved check",
                   err=True)
        return
    try:
        drift = DriftCheck(np.asarray(reference, dtype=np.uint8), cal).check(frame)
    except DriftError as exc:
        typer.echo(f"warning: camera-moved check not possible: {exc}", err=True)
        return
    typer.echo(drift.message)
    if drift.moved:
        raise typer.Exit(3)


def _fail(message: str) -> NoReturn:
    typer.secho(message, fg=typer.colors.RED, err=True)
    raise typer.Exit(2)


def _kept_profile(out: Path) -> PaiGowProfile:
    """The rule profile of the table file being replaced: a camera recalibrated keeps its table's rules."""
    import yaml

    from monitor.rules.profile import DEFAULT_PROFILE
    from monitor.rules.table_profile import parse_profile

    if not out.is_file():
        return DEFAULT_PROFILE
    try:
        data = yaml.safe_load(out.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        _fail(f"{out} exists and cannot be read (its profile would be lost): {exc}")
    profile, problems = parse_profile(data.get("profile") if isinstance(data, dict) else None)
    if profile is None:
        lines = "\n".join(f"  - profile.{p.field}: {p.message}" if p.field else f"  - profile: {p.message}"
                          for p in problems)
        _fail(f"{out} exists and its profile section is invalid (fix it, or calibrate into a new "
              f"file):\n{lines}")
    return profile


def _layout(path: Path | None) -> TableLayout:
    from monitor.geometry import LayoutError, default_layout, load_layout

    try:
        return default_layout() if path is None else load_layout(path)
    except LayoutError as exc:
        _fail(str(exc))


def _grab(target: str, frame: int) -> NDArray[np.uint8]:
    """A still image, or frame number ``frame`` of a video file, camera or stream."""
    import cv2
    import numpy as np

    if Path(target).suffix.lower() in IMAGE_SUFFIXES:
        if not Path(target).is_file():
            _fail(f"image {target} does not exist")
        img = cv2.imread(target, cv2.IMREAD_COLOR)
        if img is None:
            _fail(f"image {target} cannot be read (not an image, or corrupt)")
        return np.asarray(img, dtype=np.uint8)
    from monitor.sources import open_source
    from monitor.sources.video_source import SourceOptions

    source = open_source(target, SourceOptions(realtime=False, buffer_size=2))
    with source:
        for got in source:
            if got.index >= frame:
                return np.asarray(got.image, dtype=np.uint8)
    _fail(f"{target}: no frame {frame} ({source.error or 'the source ended first'})")
