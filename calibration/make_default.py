"""Regenerate default-table.yaml and default-camera-markers.jpg from the renderer's default camera.

    .venv/bin/python calibration/make_default.py

default-table.yaml is exact (the homography comes from the renderer's camera model, not from
a fit); default-camera-markers.jpg is the same view with the calibration markers laid on the
table, so `table-monitor calibrate calibration/default-camera-markers.jpg` can be checked
against it (tests/test_calibration_default.py does).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from monitor.calibration import CalibrationInfo, from_layout
from monitor.calibration.markers import MarkerSet
from monitor.calibration.synthetic import marker_scene, plain_texture
from monitor.geometry import default_layout

HERE = Path(__file__).parent


def main() -> None:
    from monitor.render.camera import default_camera  # dev-time only: the runtime never needs the renderer

    layout = default_layout()
    cam = default_camera()  # the renderer's default: 1920x1080 above the table, no lens distortion
    table_to_image = cam.plane_homography()
    image_to_table = np.linalg.inv(table_to_image)
    size = (cam.width, cam.height)
    info = CalibrationInfo(method="camera-model", points=0, created="renderer default_camera()")
    cal = from_layout(layout, image_to_table, size, table="table-1", info=info)
    cal.save(HERE / "default-table.yaml", header="for the renderer's default camera, default_camera()")
    try:
        from monitor.render.table_art import table_texture

        tex = table_texture(layout, "green", 1.0, 0)
        texture, to_tex = tex.image, tex.table_to_tex()
    except ImportError:
        texture, to_tex = plain_texture(layout, 1.0)
    markers = MarkerSet.for_layout(layout)
    rotations = {0: 20.0, 1: -8.0, 2: 35.0, 3: 90.0, 4: 0.0, 5: -15.0}  # people do not lay them square
    frame = marker_scene(markers, table_to_image, size, texture, to_tex, rotations_deg=rotations)
    cv2.imwrite(str(HERE / "default-camera-markers.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    print(f"wrote {HERE / 'default-table.yaml'} and {HERE / 'default-camera-markers.jpg'}")


if __name__ == "__main__":
    main()
