"""Drawing detections on a frame (for ``detect --annotate`` and the docs)."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from monitor.perception.detections import Detections
from monitor.perception.labels import UNKNOWN

COLORS = {  # BGR
    "card_face_up": (60, 220, 60), "card_face_down": (220, 160, 40), "pile": (200, 80, 200),
    "chip": (40, 200, 240), "dice": (240, 240, 240),
}
UNKNOWN_COLOR = (0, 140, 255)


def draw(frame: npt.NDArray[np.uint8], dets: Detections) -> npt.NDArray[np.uint8]:
    out = frame.copy()
    scale = max(0.4, min(out.shape[:2]) / 1400)
    thick = max(1, round(2 * scale))
    for d in dets.items:
        color = UNKNOWN_COLOR if d.identity == UNKNOWN else COLORS.get(d.kind, (255, 255, 255))
        pts = np.round(np.array(d.corners) * 4).astype(np.int32)
        cv2.polylines(out, [pts], True, color, thick, cv2.LINE_AA, shift=2)
        x, y = d.corners[0]
        cv2.circle(out, (round(x), round(y)), thick + 1, color, -1, cv2.LINE_AA)  # marks the top-left corner
        if d.identity is not None:
            label = f"{d.identity} {d.identity_confidence:.2f}"
        elif d.denomination is not None:
            label = f"${d.denomination}" + (f" x{d.count}" if d.count else "")
        else:
            label = d.kind
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, thick)
        x0, y0 = round(min(p[0] for p in d.corners)), round(min(p[1] for p in d.corners)) - 4
        y0 = max(th + 2, y0)
        cv2.rectangle(out, (x0, y0 - th - 2), (x0 + tw + 2, y0 + 2), (0, 0, 0), -1)
        cv2.putText(out, label, (x0 + 1, y0), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, color, thick,
                    cv2.LINE_AA)
    return out
