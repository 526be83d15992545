"""Measuring a camera's lens from views of a printed ChArUco board (OpenCV's camera calibration).

Print the board (``table-monitor calibration-sheet --charuco``), hold or lay it at a dozen
places and tilts across the camera's view, save the frames (or record a short video), and
``table-monitor calibrate-lens`` fits the camera matrix and distortion. The result is a lens
file for ``table-monitor calibrate --lens``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from monitor.calibration.lens import Lens

BOARD_DICTIONARY = "DICT_5X5_100"  # not the table markers' dictionary: the two never get confused
BOARD_SQUARES = (9, 6)
BOARD_SQUARE_MM = 25.0
BOARD_MARKER_MM = 18.0
MIN_CORNERS = 8
MIN_VIEWS = 5


class LensFitError(ValueError):
    """Not enough usable board views, or a fit too poor to trust."""


@dataclass(frozen=True)
class LensFit:
    lens: Lens
    rms_px: float
    views_used: int
    views_rejected: list[str]


def charuco_board(
    squares: tuple[int, int] = BOARD_SQUARES,
    square_mm: float = BOARD_SQUARE_MM,
    marker_mm: float = BOARD_MARKER_MM,
    dictionary: str = BOARD_DICTIONARY,
) -> object:
    import cv2

    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, d)


def board_image(board: object, dpi: int = 200, margin_mm: float = 10.0) -> NDArray[np.uint8]:
    """The board at its true printed size (``dpi``) with a white margin."""
    import cv2

    assert isinstance(board, cv2.aruco.CharucoBoard)
    cols, rows = board.getChessboardSize()
    px_per_mm = dpi / 25.4
    size = (round((cols * board.getSquareLength() + 2 * margin_mm) * px_per_mm),
            round((rows * board.getSquareLength() + 2 * margin_mm) * px_per_mm))
    img = board.generateImage(size, marginSize=round(margin_mm * px_per_mm))
    return np.asarray(img, dtype=np.uint8)


Points = NDArray[np.float32]


def board_corners(image: NDArray[np.uint8], board: object) -> tuple[Points, Points] | None:
    """(object points mm, image points px) of the board corners seen in ``image``, or None."""
    import cv2

    assert isinstance(board, cv2.aruco.CharucoBoard)
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _, _ = detector.detectBoard(gray)
    if ids is None or len(ids) < MIN_CORNERS:
        return None
    obj, img = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
    if obj is None or len(obj) < MIN_CORNERS:
        return None
    return np.asarray(obj, np.float32), np.asarray(img, np.float32)


def fit_lens(
    frames: list[tuple[str, NDArray[np.uint8]]],
    board: object | None = None,
    fix_k3: bool = True,
    max_rms_px: float = 1.5,
) -> LensFit:
    """Fit the camera matrix and distortion from named frames of the board.

    ``fix_k3`` keeps the sixth-order term at zero: with a dozen hand-held views it mostly
    fits noise, and a wrong k3 makes the image corners worse, not better.
    """
    import cv2

    board = board or charuco_board()
    objects, images, rejected = [], [], []
    size: tuple[int, int] | None = None
    for name, frame in frames:
        frame_size = (int(frame.shape[1]), int(frame.shape[0]))
        if size is None:
            size = frame_size
        elif frame_size != size:
            got, first = f"{frame_size[0]}x{frame_size[1]}", f"{size[0]}x{size[1]}"
            rejected.append(f"{name}: {got}, not {first} like the first frame")
            continue
        found = board_corners(frame, board)
        if found is None:
            rejected.append(f"{name}: fewer than {MIN_CORNERS} board corners found")
            continue
        objects.append(found[0])
        images.append(found[1])
    if size is None or len(objects) < MIN_VIEWS:
        detail = f" ({'; '.join(rejected[:5])})" if rejected else ""
        raise LensFitError(f"need at least {MIN_VIEWS} views showing the board, got {len(objects)}{detail}")
    flags = cv2.CALIB_FIX_K3 if fix_k3 else 0
    rms, k, dist, _, _ = cv2.calibrateCamera(objects, images, size, None, None, flags=flags)
    if not np.isfinite(rms) or rms > max_rms_px:
        raise LensFitError(
            f"the board views do not agree (reprojection RMS {rms:.2f} px > {max_rms_px} px): "
            "blurred frames, a bent board or a wrongly printed size?"
        )
    lens = Lens.from_values(k, np.asarray(dist).ravel()[:5])
    why = lens.check_image(*size)
    if why:
        raise LensFitError(f"the fitted lens is implausible: {why}; add views near the image corners")
    return LensFit(lens, float(rms), len(objects), rejected)
