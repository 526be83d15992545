"""A camera frame of a table with calibration markers laid on it, seen through a known homography.

Used to test calibration against ground truth and to make the shipped test image
(calibration/default-camera-markers.png). With no texture given, the felt is drawn plainly
from the layout (outline and zone outlines).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from monitor.calibration.lens import Lens
from monitor.calibration.markers import MarkerSet, marker_image
from monitor.geometry import TableLayout

F64 = NDArray[np.float64]


def plain_texture(layout: TableLayout, px_per_mm: float = 0.5, margin_mm: float = 300.0) -> tuple[
    NDArray[np.uint8], F64
]:
    """A top-down felt drawing of ``layout`` and its table mm -> texture px matrix."""
    import cv2

    xmin, ymin, xmax, ymax = layout.bounds
    x0, y1 = xmin - margin_mm, ymax + margin_mm
    w = round((xmax - xmin + 2 * margin_mm) * px_per_mm)
    h = round((ymax - ymin + 2 * margin_mm) * px_per_mm)
    to_tex = np.array([[px_per_mm, 0, -x0 * px_per_mm], [0, -px_per_mm, y1 * px_per_mm], [0, 0, 1]])
    img = np.full((h, w, 3), (45, 45, 60), np.uint8)

    def px(points: F64) -> NDArray[np.int32]:
        p = np.column_stack([points, np.ones(len(points))]) @ to_tex.T
        return np.asarray(np.round(p[:, :2]), dtype=np.int32).reshape(-1, 1, 2)

    cv2.fillPoly(img, [px(layout.outline.array)], (40, 105, 25))
    for zone in layout.zones:
        cv2.polylines(img, [px(np.asarray(zone.shape.outline(), np.float64))], True, (90, 200, 235), 2)
    return img, to_tex


def marker_scene(
    markers: MarkerSet,
    table_to_image: F64,
    image_size: tuple[int, int],
    texture: NDArray[np.uint8],
    table_to_texture: F64,
    rotations_deg: dict[int, float] | None = None,
) -> NDArray[np.uint8]:
    """The texture with every marker pasted at its place (with a white quiet zone), warped to the camera."""
    import cv2

    tex = texture.copy()
    s = float(table_to_texture[0, 0])
    side = max(8, round(markers.size_mm * s))
    quiet = max(2, round(markers.size_mm * 0.15 * s))
    for place in markers.places:
        tile = np.full((side + 2 * quiet, side + 2 * quiet), 255, np.uint8)
        code = marker_image(place.marker_id, side, markers.dictionary)
        tile[quiet : quiet + side, quiet : quiet + side] = code
        angle = (rotations_deg or {}).get(place.marker_id, 0.0)
        c = table_to_texture @ np.array([place.center_mm[0], place.center_mm[1], 1.0])
        half = tile.shape[0] / 2
        m = cv2.getRotationMatrix2D((half, half), angle, 1.0)
        m[:, 2] += (c[0] / c[2] - half, c[1] / c[2] - half)
        mask = cv2.warpAffine(np.full(tile.shape, 255, np.uint8), m, (tex.shape[1], tex.shape[0]))
        warped = cv2.warpAffine(tile, m, (tex.shape[1], tex.shape[0]), flags=cv2.INTER_LINEAR)
        tex[mask > 127] = np.repeat(warped[mask > 127][:, None], 3, axis=1)
    tex_to_image = table_to_image @ np.linalg.inv(table_to_texture)
    frame = cv2.warpPerspective(tex, tex_to_image, image_size, flags=cv2.INTER_AREA, borderValue=(30, 30, 30))
    return np.asarray(frame, dtype=np.uint8)


def distortion_remap(lens: Lens, size: tuple[int, int]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """remap() maps that turn a pinhole image into what ``lens`` would show."""
    import cv2

    w, h = size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    grid = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    k = lens.camera_matrix
    ideal = cv2.undistortPoints(grid, k, lens.distortion, P=k).reshape(h, w, 2)
    return ideal[..., 0].astype(np.float32), ideal[..., 1].astype(np.float32)


def board_view(
    board_img: NDArray[np.uint8],
    board_to_img: F64,
    lens: Lens,
    rvec: tuple[float, float, float],
    tvec: tuple[float, float, float],
    size: tuple[int, int],
    maps: tuple[NDArray[np.float32], NDArray[np.float32]],
) -> NDArray[np.uint8]:
    """A camera with ``lens`` at pose (rvec, tvec) looking at a flat board.

    ``board_to_img`` maps board millimetres to pixels of ``board_img``."""
    import cv2

    r, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
    plane_to_ideal = lens.camera_matrix @ np.column_stack([r[:, 0], r[:, 1], np.asarray(tvec, np.float64)])
    warp = plane_to_ideal @ np.linalg.inv(board_to_img)
    ideal = cv2.warpPerspective(board_img, warp, size, flags=cv2.INTER_AREA, borderValue=128)
    return np.asarray(cv2.remap(ideal, maps[0], maps[1], cv2.INTER_LINEAR, borderValue=128), dtype=np.uint8)
