"""Lens distortion (OpenCV's Brown-Conrady model) for cameras whose lens bends straight lines.

A homography maps a *pinhole* image onto the table plane; a real wide lens adds barrel
distortion that grows toward the image corners. When a table file has a ``lens``, pixels
are undistorted before the homography (and table points distorted after its inverse), so
the homography itself stays exact.

>>> lens = Lens.from_values([[1000, 0, 640], [0, 1000, 360], [0, 0, 1]], [-0.2, 0.05, 0, 0, 0])
>>> p = np.array([[1200.0, 700.0]])
>>> bool(np.allclose(lens.distort(lens.undistort(p)), p, atol=1e-3))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


class LensError(ValueError):
    """Lens parameters that cannot describe a real lens."""


@dataclass(frozen=True)
class Lens:
    camera_matrix: F64  # 3x3: fx, fy, cx, cy
    distortion: F64  # k1, k2, p1, p2[, k3]

    @classmethod
    def from_values(cls, camera_matrix: Any, distortion: Any) -> Lens:
        k = np.asarray(camera_matrix, dtype=np.float64)
        d = np.asarray(distortion, dtype=np.float64).ravel()
        if k.shape != (3, 3) or not np.all(np.isfinite(k)):
            raise LensError(f"camera_matrix must be 3x3 finite numbers, got shape {k.shape}")
        if k[0, 0] <= 0 or k[1, 1] <= 0 or not np.allclose(k[2], [0, 0, 1]) or k[1, 0] != 0 or k[0, 1] != 0:
            raise LensError("camera_matrix must be [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] with fx, fy > 0")
        if d.size not in (4, 5) or not np.all(np.isfinite(d)):
            raise LensError(f"distortion must be 4 or 5 finite numbers (k1, k2, p1, p2[, k3]), got {d.size}")
        return cls(k, np.pad(d, (0, 5 - d.size)))

    def check_image(self, width: int, height: int) -> str | None:
        """Why this lens cannot be right for a width x height image (the model folds over), or None."""
        k1, k2, _, _, k3 = self.distortion
        corners = np.array([[0, 0], [width, 0], [0, height], [width, height]], dtype=np.float64)
        norm = (corners - self.camera_matrix[:2, 2]) / np.diag(self.camera_matrix)[:2]
        r_max = float(np.max(np.linalg.norm(norm, axis=1))) * 1.2
        r = np.linspace(0, r_max, 200)
        radial = r * (1 + k1 * r**2 + k2 * r**4 + k3 * r**6)
        if np.any(np.diff(radial) <= 0):
            return "the distortion folds over inside the image (radial coefficients too large)"
        return None

    def undistort(self, pixels: F64) -> F64:
        """Distorted image pixels -> where a pinhole camera would have seen them."""
        import cv2

        p = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        if not np.any(self.distortion):
            return p.reshape(-1, 2)
        out = cv2.undistortPoints(p, self.camera_matrix, self.distortion, P=self.camera_matrix)
        return np.asarray(out.reshape(-1, 2), dtype=np.float64)

    def distort(self, ideal: F64) -> F64:
        """Pinhole pixels -> where this lens puts them (the forward Brown-Conrady model)."""
        p = np.asarray(ideal, dtype=np.float64).reshape(-1, 2)
        if not np.any(self.distortion):
            return p
        k = self.camera_matrix
        x = (p[:, 0] - k[0, 2]) / k[0, 0]
        y = (p[:, 1] - k[1, 2]) / k[1, 1]
        k1, k2, p1, p2, k3 = self.distortion
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2**2 + k3 * r2**3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return np.column_stack([xd * k[0, 0] + k[0, 2], yd * k[1, 1] + k[1, 2]])

    @classmethod
    def load(cls, path: str | Path) -> Lens:
        """A lens file (``camera_matrix`` and ``distortion`` at the top) or any table file with a ``lens``."""
        import yaml

        p = Path(path)
        try:
            data = yaml.safe_load(p.read_text("utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise LensError(f"lens file {p}: cannot read it: {exc}") from None
        if isinstance(data, dict) and isinstance(data.get("lens"), dict):
            data = data["lens"]
        if not isinstance(data, dict) or "camera_matrix" not in data or "distortion" not in data:
            raise LensError(f"lens file {p}: needs camera_matrix and distortion (or a table file with lens:)")
        try:
            return cls.from_values(data["camera_matrix"], data["distortion"])
        except (LensError, ValueError, TypeError) as exc:
            raise LensError(f"lens file {p}: {exc}") from None

    def to_data(self) -> dict[str, Any]:
        return {
            "camera_matrix": [[round(float(v), 6) for v in row] for row in self.camera_matrix],
            "distortion": [round(float(v), 8) for v in self.distortion],
        }
