"""A pinhole camera with lens distortion, placed over the table (table mm, z up).

OpenCV conventions: ``rvec``/``tvec`` take table points to camera coordinates (x right, y down,
z forward), ``K`` holds the intrinsics and ``dist`` the Brown-Conrady coefficients
(k1, k2, p1, p2, k3). The renderer draws an ideal (undistorted) image and then applies the lens with
:meth:`Camera.distortion_maps`, so every ground-truth point goes through :meth:`Camera.project`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
F32 = NDArray[np.float32]
RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080), "4k": (3840, 2160)}


def look_at(eye: F64, target: F64, up_hint: F64) -> F64:
    """Rotation (rows: camera x, y, z in table coordinates) looking from eye at target, image-up ~ up_hint."""
    f = target - eye
    f = f / np.linalg.norm(f)
    right = np.cross(f, up_hint)
    if np.linalg.norm(right) < 1e-9:
        right = np.cross(f, np.array([1.0, 0.0, 0.0]))
    right /= np.linalg.norm(right)
    down = np.cross(f, right)
    return np.stack([right, down, f])


@dataclass(frozen=True)
class Camera:
    width: int
    height: int
    K: F64
    R: F64  # 3x3, table -> camera
    t: F64  # 3, table -> camera
    dist: F64 = field(default_factory=lambda: np.zeros(5))

    @staticmethod
    def from_pose(
        width: int,
        height: int,
        hfov_deg: float,
        eye: tuple[float, float, float],
        target: tuple[float, float, float],
        up_hint: tuple[float, float, float] = (0.0, 1.0, 0.0),
        dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0),
        principal_offset: tuple[float, float] = (0, 0),
    ) -> Camera:
        fx = width / 2 / math.tan(math.radians(hfov_deg) / 2)
        K = np.array(
            [[fx, 0, width / 2 + principal_offset[0]], [0, fx, height / 2 + principal_offset[1]], [0, 0, 1]]
        )
        e = np.asarray(eye, np.float64)
        R = look_at(e, np.asarray(target, np.float64), np.asarray(up_hint, np.float64))
        return Camera(width, height, K, R, -R @ e, np.asarray(dist, np.float64))

    @staticmethod
    def overhead(
        resolution: tuple[int, int] = (1920, 1080),
        view_width_mm: float = 2700.0,
        height_mm: float = 2600.0,
        center: tuple[float, float] = (0.0, 120.0),
        yaw_deg: float = 0.0,
        tilt_deg: float = 0.0,
        dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0),
    ) -> Camera:
        """A camera above ``center`` seeing ``view_width_mm`` of table across the image width.

        ``yaw_deg`` turns the image (0: the dealer at the bottom, seat 1 on the left); ``tilt_deg``
        moves the camera off the vertical toward the dealer's side while still aiming at ``center``.
        """
        w, h = resolution
        hfov = math.degrees(2 * math.atan(view_width_mm / 2 / height_mm))
        tz = math.radians(tilt_deg)
        back = height_mm * math.tan(tz)
        eye = (center[0], center[1] - back, height_mm)
        yaw = math.radians(yaw_deg)
        up = (math.sin(yaw), math.cos(yaw), 0.0)
        return Camera.from_pose(w, h, hfov, eye, (center[0], center[1], 0.0), up, dist)

    def window(self, x0: int, y0: int, width: int, height: int) -> Camera:
        """The same camera seeing only the sub-image [x0, x0+width) x [y0, y0+height) of its frame:
        the principal point moves, the lens stays (distortion works on normalized coordinates)."""
        K = self.K.copy()
        K[0, 2] -= x0
        K[1, 2] -= y0
        return Camera(width, height, K, self.R, self.t, self.dist)

    @cached_property
    def rvec(self) -> F64:
        return cast(F64, cv2.Rodrigues(self.R)[0].ravel())

    @cached_property
    def center(self) -> F64:
        """The camera's position in table coordinates."""
        return np.asarray(-self.R.T @ self.t, np.float64)

    def to_camera(self, pts: F64) -> F64:
        return np.asarray(pts, np.float64).reshape(-1, 3) @ self.R.T + self.t

    @cached_property
    def _P(self) -> tuple[F64, F64]:
        """K [R | t] split as (3x3 transposed, 3): one matmul projects a batch of points."""
        return np.ascontiguousarray((self.K @ self.R).T), self.K @ self.t

    def project_ideal(self, pts: F64) -> F64:
        """Project table points (N, 3) with the pinhole only (the renderer's ideal image)."""
        m, b = self._P
        h = np.asarray(pts, np.float64).reshape(-1, 3) @ m + b
        # the camera-frame depth is h's third column (K's last row is 0 0 1)
        return h[:, :2] / np.maximum(h[:, 2:3], 1e-6)

    def project(self, pts: F64) -> F64:
        """Project table points (N, 3) to pixels of the final (distorted) image."""
        p = np.asarray(pts, np.float64).reshape(-1, 3)
        if not np.any(self.dist):
            return self.project_ideal(p)
        out, _ = cv2.projectPoints(p, self.rvec, self.t, self.K, self.dist)
        return np.asarray(out.reshape(-1, 2), np.float64)

    def plane_homography(self, z: float = 0.0) -> F64:
        """3x3: table plane point (x, y, 1) at height z -> ideal image pixel."""
        Rt = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])
        H = self.K @ Rt
        return np.asarray(H / H[2, 2], np.float64)

    def mm_per_px(self, x: float = 0.0, y: float = 0.0) -> float:
        """Table millimetres per pixel near (x, y): how big things look there."""
        p = self.project_ideal(np.array([[x, y, 0.0], [x + 10.0, y, 0.0], [x, y + 10.0, 0.0]]))
        a, b = p[1] - p[0], p[2] - p[0]
        return float(10.0 / math.sqrt(abs(a[0] * b[1] - a[1] * b[0])))

    def card_width_px(self, x: float = 0.0, y: float = 0.0) -> float:
        return 63.0 / self.mm_per_px(x, y)

    @property
    def distorted(self) -> bool:
        return bool(np.any(self.dist))

    def distortion_maps(self) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """remap() maps: for each final pixel, where to sample the ideal image.

        Solved on a coarse grid with undistortPoints (the inverse of the lens model) and
        interpolated: the lens is smooth, and a full-resolution solve costs ~100x more.
        """
        step = 16
        gx = np.arange(0, self.width + step, step, dtype=np.float64)
        gy = np.arange(0, self.height + step, step, dtype=np.float64)
        xx, yy = np.meshgrid(gx, gy)
        pts = np.stack([xx.ravel(), yy.ravel()], axis=1).reshape(-1, 1, 2)
        und = cv2.undistortPoints(pts, self.K, self.dist, P=self.K).reshape(len(gy), len(gx), 2)
        size = (len(gx) * step, len(gy) * step)
        mx = _shift_grid(
            cast(F32, cv2.resize(und[..., 0].astype(np.float32), size, interpolation=cv2.INTER_LINEAR)), step
        )
        my = _shift_grid(
            cast(F32, cv2.resize(und[..., 1].astype(np.float32), size, interpolation=cv2.INTER_LINEAR)), step
        )
        return mx[: self.height, : self.width].copy(), my[: self.height, : self.width].copy()


def _shift_grid(m: NDArray[np.float32], step: int) -> NDArray[np.float32]:
    """resize() treats samples as pixel-area centres; shift so each grid sample lands on its pixel."""
    off = (step - 1) / 2.0
    h, w = m.shape
    M = np.array([[1, 0, -off], [0, 1, -off]], np.float32)
    return np.asarray(cv2.warpAffine(m, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


def default_camera(width: int = 1920, height: int = 1080) -> Camera:
    """The project's default overhead camera: 2.6 m above the felt, the whole table in view (2.7 m
    across the image width at 16:9), dealer at the bottom of the image, seat 1 on the left, no lens
    distortion. ``calibration/default-table.yaml`` is computed from it."""
    return Camera.overhead((width, height), view_width_mm=2700.0, height_mm=2600.0, center=(0.0, 90.0))
