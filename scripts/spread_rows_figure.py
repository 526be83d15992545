"""The picture of docs/img/spread_rows_banker.jpg: a banker's setting (project-drawn deck, default
table, 1080p) with the rows found from the zone's picture, where their scans start, and what the
shipped fan reader read along them (red: the detector's boxes, left out on a row found).

    .venv/bin/python scripts/spread_rows_figure.py docs/img/spread_rows_banker.jpg
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from monitor.calibration.table_file import load_table
from monitor.perception.fan_reader import load_fan_reader
from monitor.perception.pipeline import Perceiver
from monitor.pipeline.hand_zones import ZoneReader, fan_cards
from monitor.render.camera import default_camera
from monitor.render.renderer import Renderer
from monitor.render.scene import CardObj, Scene

ROOT = Path(__file__).resolve().parents[1]


def main(out: Path) -> None:
    scene = Scene(table_style="green")
    for k, c in enumerate(["4h", "9h", "8s", "As", "4c"]):  # the fault set's foul setting
        scene.add(CardObj(c, -150 + 36 * k, -195, face_up=True, z=0.1 * k))
    for k, c in enumerate(["Th", "Tc"]):
        scene.add(CardObj(c, 110 + 36 * k, -195, face_up=True, z=0.1 * k))
    img = Renderer().render(scene, default_camera(1920, 1080)).image
    cal = load_table(ROOT / "calibration" / "default-table.yaml")
    boxes = fan_cards(Perceiver.from_models(ROOT / "models", threads=2).perceive(img))
    fan = load_fan_reader(ROOT / "models")
    assert fan is not None
    reader = ZoneReader(cal, fan)
    cards = reader.read(img, "banker", boxes)
    scans = reader.rows(img, "banker", boxes)

    def to_image(mm: np.ndarray) -> np.ndarray:
        return np.asarray(cal.table_to_image(np.asarray(mm, np.float64)), np.float64)
    pic = img.copy()
    for b in boxes:
        cv2.polylines(pic, [np.round(b).astype(np.int32)], True, (0, 0, 220), 1)
    for s in scans:
        cv2.polylines(pic, [np.round(s.band).astype(np.int32)], True, (0, 200, 255), 1)
        cv2.polylines(pic, [np.round(s.card).astype(np.int32)], True, (255, 160, 0), 1)
        cv2.circle(pic, tuple(int(v) for v in s.card[0]), 3, (255, 160, 0), -1)
    x0, y0, x1, y1 = 740, 640, 1180, 850
    crop = cv2.resize(pic[y0:y1, x0:x1], None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC)
    for c in cards:
        px = to_image(np.array([[c.x, c.y + 60]]))[0]
        label = c.card or f"{c.rank or '?'}?"
        at = (int((px[0] - x0) * 3) - 20, int((px[1] - y0) * 3))
        cv2.putText(crop, label, at, cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 3, cv2.LINE_AA)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), crop, [cv2.IMWRITE_JPEG_QUALITY, 85])
    print(f"{out}: {len(scans)} scans, read {' '.join(c.card or (c.rank or '?') + '?' for c in cards)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "img" / "spread_rows_banker.jpg")
