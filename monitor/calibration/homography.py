"""The image -> table homography: fitting it from point pairs, applying it, and sanity checks."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


class HomographyError(ValueError):
    """Point pairs that do not give a usable homography."""


def apply(h: F64, points: F64) -> F64:
    """Map (N, 2) points through the 3x3 homography ``h``."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ np.asarray(h, dtype=np.float64).T
    return np.asarray(q[:, :2] / q[:, 2:3], dtype=np.float64)


def normalized(h: F64) -> F64:
    """Scale so that h[2, 2] == 1 (when it is not ~0) for readable files."""
    h = np.asarray(h, dtype=np.float64)
    if abs(h[2, 2]) > 1e-12:
        h = h / h[2, 2]
    return h


def singularity(h: F64) -> float:
    """The smallest singular value over the largest: 0 for a singular matrix, up to 1."""
    s = np.linalg.svd(np.asarray(h, dtype=np.float64), compute_uv=False)
    return float(s[-1] / s[0]) if s[0] > 0 else 0.0


def horizon_problem(h: F64, width: int, height: int, corners: F64 | None = None) -> str | None:
    """Why ``h`` cannot map this image onto a plane (the horizon crosses the image), or None.

    For a real camera looking down at a table, every image pixel maps to a finite table
    point on the same side of the camera: the homogeneous w keeps one sign over the image.
    ``corners`` replaces the image corners (e.g. undistorted ones, for a camera with a lens model).
    """
    if corners is None:
        corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    w = np.column_stack([corners, np.ones(len(corners))]) @ np.asarray(h, dtype=np.float64)[2]
    if np.all(w > 0) or np.all(w < 0):
        return None
    return "the homography sends part of the image to infinity (its horizon crosses the image)"


@dataclass(frozen=True)
class Fit:
    """A fitted image -> table homography and how well each point pair agrees with it."""

    homography: F64
    errors_mm: F64  # per pair: |H(pixel) - table|
    inliers: NDArray[np.bool_]

    @property
    def rms_mm(self) -> float:
        e = self.errors_mm[self.inliers]
        return float(np.sqrt(np.mean(e**2))) if len(e) else float("nan")

    @property
    def max_mm(self) -> float:
        e = self.errors_mm[self.inliers]
        return float(e.max()) if len(e) else float("nan")


def fit(pixels: F64, table_mm: F64, ransac_mm: float | None = None) -> Fit:
    """Fit the homography taking image pixels to table millimetres.

    With ``ransac_mm`` (and at least 5 pairs) outliers beyond that many millimetres are
    ignored and reported in ``inliers``; otherwise it is a least-squares fit over all pairs.
    """
    import cv2

    px = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
    mm = np.asarray(table_mm, dtype=np.float64).reshape(-1, 2)
    if len(px) != len(mm):
        raise HomographyError(f"{len(px)} image points but {len(mm)} table points")
    if len(px) < 4:
        raise HomographyError(f"a homography needs at least 4 point pairs, got {len(px)}")
    for name, pts in (("image", px), ("table", mm)):
        if _collinear(pts):
            raise HomographyError(f"the {name} points are (nearly) on one line: spread them over the table")
    if ransac_mm is not None and len(px) >= 5:
        h, mask = cv2.findHomography(px, mm, cv2.RANSAC, ransacReprojThreshold=ransac_mm)
    else:
        h, mask = cv2.findHomography(px, mm, 0)
    if h is None:
        raise HomographyError("OpenCV found no homography for these points (degenerate configuration)")
    h = normalized(np.asarray(h, dtype=np.float64))
    inliers = mask.ravel().astype(bool) if mask is not None else np.ones(len(px), dtype=bool)
    errors = np.linalg.norm(apply(h, px) - mm, axis=1)
    return Fit(h, errors, inliers)


def _collinear(points: F64) -> bool:
    centred = points - points.mean(axis=0)
    s = np.linalg.svd(centred, compute_uv=False)
    return bool(s[0] == 0 or s[1] / s[0] < 1e-3)
