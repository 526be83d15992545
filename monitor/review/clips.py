"""A short clip and a snapshot per alert, cut from the recording around the alert's moment.

Clips are H.264 mp4 (plays in any browser, from disk) through ffmpeg when it is installed, else
OpenCV's MPEG-4 writer; at most ``width`` pixels wide. A clip that cannot be cut (a file broken
before the moment) is reported, never fatal: the alert stands without it.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import cv2

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ClipSpec:
    before_s: float = 2.5
    after_s: float = 2.5
    width: int = 960
    crf: int = 28
    threads: int = 0  # ffmpeg's threads (0: its own choice); a clip cut beside the review takes one


def cut_clip(video: Path, trigger_s: float, out: Path, spec: ClipSpec = ClipSpec()) -> tuple[float, float]:
    """Write ``out`` with the video from ``trigger_s - before`` to ``trigger_s + after``; returns the
    span cut (media seconds). Raises OSError when it cannot."""
    begin = max(0.0, trigger_s - spec.before_s)
    duration = trigger_s + spec.after_s - begin
    out.parent.mkdir(parents=True, exist_ok=True)
    exe = shutil.which("ffmpeg")
    if exe is not None:
        threads = ["-threads", str(spec.threads)] if spec.threads else []
        cmd = [exe, "-v", "error", "-y", *threads, "-ss", f"{begin:.3f}", "-i", str(video),
               "-t", f"{duration:.3f}", "-vf", f"scale='min({spec.width},iw)':-2", *threads,
               "-c:v", "libx264", "-preset", "veryfast",
               "-crf", str(spec.crf), "-pix_fmt", "yuv420p", "-an", "-movflags", "+faststart", str(out)]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0 or not out.exists() or out.stat().st_size == 0:
            raise OSError(f"ffmpeg could not cut {out.name} from {video}: {done.stderr.strip()[:300]}")
        return begin, begin + duration
    return _cut_with_opencv(video, begin, duration, out, spec)


def _cut_with_opencv(video: Path, begin: float, duration: float, out: Path,
                     spec: ClipSpec) -> tuple[float, float]:
    cap = cv2.VideoCapture(str(video))
    if not cap.isOpened():
        raise OSError(f"cannot open {video} to cut a clip")
    writer: cv2.VideoWriter | None = None
    try:
        fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
        cap.set(cv2.CAP_PROP_POS_FRAMES, round(begin * fps))
        written = 0
        for _ in range(round(duration * fps)):
            ok, image = cap.read()
            if not ok:
                break
            h, w = image.shape[:2]
            if w > spec.width:
                image = cv2.resize(image, (spec.width, round(h * spec.width / w) // 2 * 2))
            if writer is None:
                size = (image.shape[1], image.shape[0])
                writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
            writer.write(image)
            written += 1
        if written == 0:
            raise OSError(f"no frame of {video} at {begin:.2f} s to cut a clip from")
        return begin, begin + written / fps
    finally:
        cap.release()
        if writer is not None:
            writer.release()


def grab_frame(video: Path, media_s: float, out: Path, width: int = 960) -> int:
    """Write the frame at ``media_s`` as a JPEG; returns its frame number. Raises OSError."""
    cap = cv2.VideoCapture(str(video))
    try:
        if not cap.isOpened():
            raise OSError(f"cannot open {video} for a snapshot")
        fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
        index = round(media_s * fps)
        cap.set(cv2.CAP_PROP_POS_FRAMES, index)
        ok, image = cap.read()
        if not ok:
            raise OSError(f"no frame of {video} at {media_s:.2f} s for a snapshot")
    finally:
        cap.release()
    h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), image, [cv2.IMWRITE_JPEG_QUALITY, 85]):
        raise OSError(f"cannot write {out}")
    return index


def attach_media(video: Path, alerts: list[dict], folder: Path, spec: ClipSpec) -> list[str]:  # type: ignore[type-arg]
    """Give each alert with a media time a snapshot (if it has none) and a clip; returns problems."""
    problems = []
    for alert in alerts:
        media = alert.get("media")
        if not media:
            continue
        trigger = float(media["trigger"])
        if not alert.get("snapshot_path"):
            name = f"{alert['id']}.jpg"
            try:
                frame = grab_frame(video, trigger, folder / "snapshots" / name, spec.width)
                alert["snapshot_path"] = name
                alert.setdefault("details", {})["snapshot_frame"] = frame
            except OSError as e:
                problems.append(f"snapshot for alert {alert['id']}: {e}")
        clip = folder / "clips" / f"{alert['id']}.mp4"
        if alert.get("clip") and clip.exists():
            continue
        try:
            begin, end = cut_clip(video, trigger, clip, spec)
        except (OSError, subprocess.TimeoutExpired) as e:
            problems.append(f"clip for alert {alert['id']}: {e}")
            continue
        alert["clip"] = {"path": clip.name, "begin": round(begin, 3), "end": round(end, 3)}
    return problems
