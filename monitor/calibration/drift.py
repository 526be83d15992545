"""Has the camera moved since it was calibrated? A bumped camera keeps delivering sharp frames,
but every zone is now in the wrong place, so the monitor must notice by itself.

The frame kept at calibration time (the *reference*) and a current frame are matched with ORB
features; a RANSAC homography between them ignores what moved on the table (cards, chips,
hands) and follows the felt. How far that homography moves the zones, in table millimetres, is
the drift; beyond a limit (a quarter of a card) the table file no longer fits the camera.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from monitor.calibration.table_file import TableCalibration

DEFAULT_LIMIT_MM = 15.0
WORK_WIDTH = 960  # features are found on a downscaled copy: enough for the felt's print, 4x cheaper


@dataclass(frozen=True, slots=True)
class Drift:
    median_mm: float  # how far the zone centres moved (median over zones)
    max_mm: float  # the worst zone: beyond the limit, some zone assignments are wrong
    matches: int  # feature matches that agree with the fitted motion
    moved: bool

    @property
    def message(self) -> str:
        if self.moved:
            return (f"camera moved since calibration: zones are {self.median_mm:.0f} mm off "
                    f"(up to {self.max_mm:.0f} mm); recalibrate")
        return f"camera steady: zones within {self.max_mm:.1f} mm of the calibration"


class DriftError(ValueError):
    """The frames have too little in common to tell (a different table, or nothing but blur)."""


class DriftCheck:
    def __init__(
        self, reference: NDArray[np.uint8], calibration: TableCalibration, limit_mm: float = DEFAULT_LIMIT_MM
    ) -> None:
        import cv2

        self.calibration = calibration
        self.limit_mm = limit_mm
        self._orb = cv2.ORB.create(nfeatures=3000)
        self._matcher = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True)
        self._scale = min(1.0, WORK_WIDTH / reference.shape[1])
        self._ref_points, self._ref_desc = self._features(reference)
        if self._ref_desc is None or len(self._ref_points) < 50:
            raise DriftError("the reference frame has too few features to check the camera against")
        self._ref: NDArray[np.uint8] = self._ref_desc
        centres = np.array([z.center for z in calibration.zones.values()], dtype=np.float64)
        self._centres_px = calibration.table_to_image(centres)

    def check(self, frame: NDArray[np.uint8]) -> Drift:
        import cv2

        points, desc = self._features(frame)
        if desc is None or len(points) < 20:
            raise DriftError("the current frame has too few features (covered, dark or blurred?)")
        matches = self._matcher.match(self._ref, desc)
        if len(matches) < 20:
            raise DriftError(f"only {len(matches)} feature matches with the reference: a different view?")
        src = np.array([self._ref_points[m.queryIdx] for m in matches], dtype=np.float32)
        dst = np.array([points[m.trainIdx] for m in matches], dtype=np.float32)
        h, mask = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
        inliers = int(mask.sum()) if mask is not None else 0
        if h is None or inliers < 15:
            raise DriftError(f"the reference and the frame do not agree on any motion ({inliers} matches)")
        moved_px = cv2.perspectiveTransform(self._centres_px.reshape(-1, 1, 2), h).reshape(-1, 2)
        # where the calibration now *thinks* the moved zone centres are, versus where they really are
        seen_mm = self.calibration.image_to_table(np.asarray(moved_px, dtype=np.float64))
        true_mm = np.array([z.center for z in self.calibration.zones.values()], dtype=np.float64)
        error = np.linalg.norm(seen_mm - true_mm, axis=1)
        median, worst = float(np.median(error)), float(error.max())
        return Drift(median, worst, inliers, worst > self.limit_mm)

    def _features(self, image: NDArray[np.uint8]) -> tuple[NDArray[np.float32], NDArray[np.uint8] | None]:
        import cv2

        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if self._scale < 1.0:
            gray = cv2.resize(gray, None, fx=self._scale, fy=self._scale, interpolation=cv2.INTER_AREA)
        keypoints, desc = self._orb.detectAndCompute(gray, None)
        pts = np.array([k.pt for k in keypoints], dtype=np.float32).reshape(-1, 2) / self._scale
        return pts.astype(np.float32), None if desc is None else np.asarray(desc, dtype=np.uint8)
