"""``table-monitor calibrate-detector``: the score from which a detector's boxes start tracks.

Runs the candidate detector and a peer (the shipped one) on a held-out split of a detection set
(YOLO OBB labels, ``render detect``'s), prints both precision/recall curves for the classes the table
state tracks, and the lowest score at which the candidate is as precise as the peer at the peer's
threshold; ``--write`` puts it in the candidate's ``detector.json`` as ``track_conf``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, Backend

TRACKED = ("card_face_up", "card_face_down", "pile")


def register(app: typer.Typer) -> None:
    @app.command("calibrate-detector")
    def calibrate_detector(
        models: Annotated[Path, typer.Option(help="folder with the candidate detector.onnx/.json")],
        data: Annotated[Path, typer.Option(
            help="detection set: obb.yaml's folder (images/SPLIT, labels/SPLIT)")] = Path("data/detect_v4"),
        split: Annotated[str, typer.Option(help="held-out split to measure on")] = "val",
        peer: Annotated[Path | None, typer.Option(
            help="folder with the peer detector (its threshold is matched; default: the shipped models, or "
                 "TABLE_MONITOR_MODELS)")] = None,
        classes: Annotated[str, typer.Option(help="comma-separated classes measured")] = ",".join(TRACKED),
        write: Annotated[bool, typer.Option(
            help="write track_conf into the candidate's detector.json")] = False,
        threads: Annotated[int, typer.Option(min=1)] = 2,
        backend: Annotated[Backend, typer.Option(help="the models' inference runtime")] = DEFAULT_BACKEND,
    ) -> None:
        """Match the candidate's tracking threshold to the peer's precision on held-out frames."""
        import cv2
        import numpy as np
        import yaml
        from rich.console import Console
        from rich.progress import track
        from rich.table import Table

        from monitor.perception.detector import Detector
        from monitor.perception.errors import ModelFileError
        from monitor.perception.models_home import models_home
        from monitor.tablestate.tracking import ACTIVATION_CONFIDENCE
        from monitor.training.track_conf import Box, Scored, Truth, curve, match, matching_threshold

        spec_path = data / "obb.yaml"
        try:
            names = yaml.safe_load(spec_path.read_text())["names"]
        except (OSError, KeyError, TypeError, yaml.YAMLError) as exc:
            raise typer.BadParameter(f"{spec_path}: not a detection set's spec ({exc})") from exc
        wanted = tuple(c.strip() for c in classes.split(",") if c.strip())
        folder = data / "images" / split
        images = sorted(folder.glob("*.jpg")) + sorted(folder.glob("*.png"))
        if not images:
            raise typer.BadParameter(f"no images in {data / 'images' / split}")
        peer = peer or models_home()
        try:
            cand_det = Detector(models / "detector.onnx", backend=backend.value, threads=threads)
            peer_det = Detector(peer / "detector.onnx", backend=backend.value, threads=threads)
        except ModelFileError as exc:
            raise typer.BadParameter(str(exc)) from exc
        peer_t = peer_det.track_conf or ACTIVATION_CONFIDENCE
        scored: dict[str, list[Scored]] = {"candidate": [], "peer": []}
        n_truth = 0
        for path in track(images, description=f"{split} frames"):
            read = cv2.imread(str(path))
            if read is None:
                raise typer.BadParameter(f"{path}: not an image")
            image = np.asarray(read, dtype=np.uint8)
            h, w = image.shape[:2]
            label = data / "labels" / split / f"{path.stem}.txt"
            truth: list[Truth] = []
            for line in label.read_text().splitlines() if label.exists() else []:
                parts = line.split()
                if len(parts) != 9:
                    raise typer.BadParameter(f"{label}: '{line}' is not an OBB label (class and 4 corners)")
                cls = names[int(parts[0])]
                if cls in wanted:
                    xy = np.array([float(v) for v in parts[1:]], dtype=np.float64).reshape(4, 2) * (w, h)
                    truth.append((cls, xy))
            n_truth += len(truth)
            for who, det in (("candidate", cand_det), ("peer", peer_det)):
                boxes: list[Box] = [(b.kind, b.confidence, b.corners) for b in det.detect(image)
                                    if b.kind in wanted]
                scored[who] += match(boxes, truth)
        # below the detector's own floor (its lowest class score kept) there are no more boxes to count
        floor = float(cand_det.class_conf.min())
        grid = [t for i in range(81) if (t := round(0.10 + 0.01 * i, 2)) >= floor - 1e-9]
        chosen, target = matching_threshold(scored["candidate"], scored["peer"], peer_t, grid)
        table = Table(title=f"{split}: {len(images)} frames, {n_truth} true {', '.join(wanted)}")
        for col in ("score from", "candidate precision", "candidate recall", "peer precision", "peer recall"):
            table.add_column(col, justify="right")
        shown = sorted({*[t for t in grid if round(t * 100) % 5 == 0 and t <= 0.6], chosen, peer_t})
        cand_curve = curve(scored["candidate"], n_truth, shown)
        peer_curve = curve(scored["peer"], n_truth, shown)
        for c, p in zip(cand_curve, peer_curve, strict=True):
            mark = " <- candidate" if c.threshold == chosen else ""
            mark += " <- peer" if c.threshold == peer_t else ""
            table.add_row(f"{c.threshold:.2f}{mark}", f"{c.precision:.4f}", f"{c.recall:.4f}",
                          f"{p.precision:.4f}", f"{p.recall:.4f}")
        console = Console()
        console.print(table)
        console.print(f"peer at {peer_t:.2f}: precision {target:.4f}; the candidate reaches it from "
                      f"{chosen:.2f} (track_conf)")
        if write:
            meta_path = models / "detector.json"
            meta = json.loads(meta_path.read_text())
            meta["track_conf"] = chosen
            meta["track_conf_from"] = {"data": str(data), "split": split, "frames": len(images),
                                       "peer": str(peer), "peer_threshold": peer_t,
                                       "precision": round(target, 4)}
            meta_path.write_text(json.dumps(meta, indent=2) + "\n")
            console.print(f"wrote track_conf {chosen:.2f} into {meta_path}")
