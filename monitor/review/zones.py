"""Zone lookup from a raster: the table's zones drawn once at 1 mm, then one array read per point.

The calibration's own lookup tests every point against every zone polygon (ray casting), which is
the largest cost per frame of a review once decoding is done. Drawing the zones into a label image
in table millimetres (smallest zone drawn last, so it wins as in ``zone_index``) gives the same
answer everywhere but within a millimetre of a zone's edge, where the polygon test itself "may go
either way".
"""

from __future__ import annotations

from dataclasses import fields
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.calibration import TableCalibration

SHIFT = 4  # fillPoly's fixed-point bits: vertices placed to 1/16 of a cell


class RasterCalibration(TableCalibration):
    """A :class:`TableCalibration` whose ``zone_index`` reads a 1 mm raster."""

    cell_mm = 1.0

    @classmethod
    def of(cls, calibration: TableCalibration) -> RasterCalibration:
        return cls(**{f.name: getattr(calibration, f.name) for f in fields(calibration)})

    @cached_property
    def _raster(self) -> tuple[NDArray[np.int16], float, float]:
        polys = [self.outline.array, *(p.array for _, p in self.ordered_zones)]
        allpts = np.concatenate(polys)
        x0, y0 = allpts.min(axis=0) - 2 * self.cell_mm
        x1, y1 = allpts.max(axis=0) + 2 * self.cell_mm
        w = int(np.ceil((x1 - x0) / self.cell_mm))
        h = int(np.ceil((y1 - y0) / self.cell_mm))
        n = len(self.ordered_zones)
        labels = np.full((h, w), n + 1, dtype=np.int16)  # off the table

        def draw(into: NDArray[np.int16], poly: NDArray[np.float64], value: int) -> None:
            # cell centres sample the polygon: shift by half a cell so cell (i, j) covers [i, i+1)
            pts = ((poly - (x0, y0)) / self.cell_mm - 0.5) * (1 << SHIFT)
            cv2.fillPoly(into, [np.round(pts).astype(np.int32)], int(value), lineType=cv2.LINE_8, shift=SHIFT)

        table = np.zeros_like(labels)
        draw(table, self.outline.array, 1)
        draw(labels, self.outline.array, n)  # felt
        for i in range(n - 1, -1, -1):  # largest first: the smallest containing zone is drawn last
            draw(labels, self.ordered_zones[i][1].array, i)
        labels[table == 0] = n + 1  # a zone reaching past the table's edge ends there
        return labels, float(x0), float(y0)

    def zone_index(self, points_mm: NDArray[np.float64]) -> NDArray[np.int64]:
        labels, x0, y0 = self._raster
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        ix = np.floor((p[:, 0] - x0) / self.cell_mm).astype(np.int64)
        iy = np.floor((p[:, 1] - y0) / self.cell_mm).astype(np.int64)
        inside = (ix >= 0) & (iy >= 0) & (ix < labels.shape[1]) & (iy < labels.shape[0])
        out = np.full(len(p), len(self.ordered_zones) + 1, dtype=np.int64)
        out[inside] = labels[iy[inside], ix[inside]]
        return out
