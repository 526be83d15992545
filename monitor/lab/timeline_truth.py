"""Oracle truth straight from a played round's timeline, without the textured render.

The same rows as a rendered recording's ``truth.jsonl`` (what :mod:`monitor.pipeline.oracle` turns
into detections): the same objects and polygons, with the visible share from a coarse z-ordered
polygon fill instead of the textured render (about 100x faster). The oracle check on scripted
rounds (:mod:`monitor.lab.scripted_check`) and the tests use it; it needs the renderer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np

from monitor.pipeline.oracle import TruthRow


def timeline_truth(rounds: list[Any], fps: int = 30, size: tuple[int, int] = (1920, 1080),
                   stride: int = 1, raster: float = 0.5) -> Iterator[TruthRow]:
    """Truth rows for played rounds (``monitor.render.rounds.play.PlayedRound``), frame by frame.

    Polygons are the projection of the renderer's camera over the rounds' layout (the default camera
    on the default layout; ``monitor.render.rounds.room.camera_for``), numpy arrays here (lists in a
    truth file); the
    visible share is each object's pixels left uncovered when every object is filled in drawing
    order on a raster ``raster`` times the image size.
    """
    from monitor.render.card_art import CARD_H_MM, CARD_W_MM
    from monitor.render.rounds.room import camera_for
    from monitor.render.rounds.video import round_at, total_frames
    from monitor.render.scene import CardObj, ChipStack, Die

    cam = camera_for(rounds[0].timeline.layout, size)
    rw, rh = max(1, int(size[0] * raster)), max(1, int(size[1] * raster))
    ring_a = np.linspace(0, 2 * np.pi, 12, endpoint=False)
    unit = np.array([[-0.5, 0.5], [0.5, 0.5], [0.5, -0.5], [-0.5, -0.5]])  # tl, tr, br, bl (card frame)
    n = total_frames(rounds, fps)
    for i in range(0, n, stride):
        t = i / fps
        k = round_at(rounds, t)
        scene, orders = rounds[k].timeline.scene_at(t)
        objs = scene.objects
        # every object's outline in table mm (z included), projected in one call
        outlines: list[np.ndarray] = []
        hull: list[bool] = []
        cards = [o for o in objs if isinstance(o, CardObj)]
        if cards:
            pose = np.array([(c.x, c.y, c.angle_deg, c.z) for c in cards])
            a = np.radians(pose[:, 2])[:, None]
            u = unit * (CARD_W_MM, CARD_H_MM)
            cx = u[None, :, 0] * np.cos(a) - u[None, :, 1] * np.sin(a) + pose[:, 0:1]
            cy = u[None, :, 0] * np.sin(a) + u[None, :, 1] * np.cos(a) + pose[:, 1:2]
            card_quads = iter(np.stack([cx, cy, np.repeat(pose[:, 3:4], 4, axis=1)], axis=2))
        for obj in objs:
            if isinstance(obj, CardObj):
                outlines.append(next(card_quads))
                hull.append(False)
            elif isinstance(obj, ChipStack):
                ring = np.column_stack([obj.x + 19.5 * np.cos(ring_a), obj.y + 19.5 * np.sin(ring_a)])
                outlines.append(np.concatenate([np.column_stack([ring, np.full(12, obj.z)]),
                                                np.column_stack([ring, np.full(12, obj.z + obj.height)])]))
                hull.append(True)
            elif isinstance(obj, Die):
                h = obj.size / 2
                a = np.radians(obj.angle_deg)
                rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
                sq = (unit * 2 * h) @ rot.T + (obj.x, obj.y)
                outlines.append(np.concatenate([np.column_stack([sq, np.zeros(4)]),
                                                np.column_stack([sq, np.full(4, obj.size)])]))
                hull.append(True)
            else:
                outlines.append(np.asarray(obj.points, dtype=np.float64).reshape(-1, 3))
                hull.append(False)
        sizes = [len(o) for o in outlines]
        projected = cam.project(np.concatenate(outlines)) if outlines else np.zeros((0, 2))
        ids = np.zeros((rh, rw), dtype=np.uint16)
        objects: list[dict[str, Any]] = []
        areas: list[float] = []
        start = 0
        for j, (obj, order, m, is_hull) in enumerate(zip(objs, orders, sizes, hull, strict=True), start=1):
            poly = projected[start:start + m]
            start += m
            if is_hull:
                poly = cv2.convexHull(poly.astype(np.float32)).reshape(-1, 2).astype(np.float64)
            if isinstance(obj, CardObj):
                label = "card_face_up" if obj.face_up else "card_face_down"
                o: dict[str, Any] = {"kind": "card", "label": label, "identity": obj.key,
                                     "face_up": obj.face_up}
            elif isinstance(obj, ChipStack):
                o = {"kind": "chips", "label": "chip", "identity": str(obj.denomination), "count": obj.count}
            elif isinstance(obj, Die):
                o = {"kind": "die", "label": "dice", "identity": str(obj.value)}
            else:
                o = {"kind": "arm", "label": "arm", "identity": "arm"}
            o["track"] = f"r{k}:{order}" if order >= 0 else f"r{k}:arm{j}"
            o["polygon"] = poly
            small = np.round(poly * raster).astype(np.int32)
            cv2.fillPoly(ids, [small], j)
            areas.append(max(float(cv2.contourArea(small.astype(np.float32))), 1.0))
            objects.append(o)
        counts = np.bincount(ids.ravel(), minlength=len(objects) + 1)
        for j, o in enumerate(objects, start=1):
            o["visible_share"] = min(1.0, float(counts[j]) / areas[j - 1])
        yield {"frame": i, "time": round(t, 4), "round": k, "objects": objects}
