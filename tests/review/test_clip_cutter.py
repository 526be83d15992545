"""Clips cut beside the review: started once the video passes a clip's end, attached on the review's
thread, the ones left at the end cut then, a broken one left to the final pass that reports it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from monitor.review.clip_cutter import ClipCutter
from monitor.review.clips import ClipSpec, attach_media


def _video(path: Path, seconds: float = 6.0, fps: int = 10) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (64, 48))
    for i in range(int(seconds * fps)):
        writer.write(np.full((48, 64, 3), (i * 4) % 256, np.uint8))
    writer.release()
    return path


def _alert(ident: str, trigger: float) -> dict[str, Any]:
    return {"id": ident, "code": "one_card_exposed", "media": {"trigger": trigger}}


def _frames(clip: Path) -> int:
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                          "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", str(clip)],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_a_clip_starts_once_the_video_passes_its_end_and_the_rest_at_the_finish(tmp_path: Path) -> None:
    video = _video(tmp_path / "v.avi")
    cutter = ClipCutter(video, tmp_path / "out", ClipSpec(before_s=1.0, after_s=1.0))
    early, late = _alert("a1", 1.5), _alert("a2", 4.5)
    cutter.offer([early, late, {"id": "no-media", "code": "x"}])
    cutter.advance(2.0)  # 1.5 + 1.0 not passed yet: nothing started
    assert cutter.cutting == [] and cutter.waiting == ["a1", "a2"]
    cutter.advance(2.6)
    assert cutter.cutting == ["a1"] and cutter.waiting == ["a2"]
    cutter.finish(until_s=6.5)  # the late one (its end past the video's) is cut at the finish
    assert early["clip"] == {"path": "a1.mp4", "begin": 0.5, "end": 2.5}
    assert late["clip"]["path"] == "a2.mp4" and late["clip"]["begin"] == 3.5
    for ident in ("a1", "a2"):
        assert _frames(tmp_path / "out" / "clips" / f"{ident}.mp4") >= 10


def test_a_clip_that_fails_beside_the_review_is_cut_again_and_reported_at_the_end(tmp_path: Path) -> None:
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not a video at all")
    alert = _alert("b1", 1.0)
    cutter = ClipCutter(broken, tmp_path / "out", ClipSpec())
    cutter.offer([alert])
    cutter.finish(until_s=10.0)
    assert "clip" not in alert  # not attached: the final pass owns the error
    problems = attach_media(broken, [alert], tmp_path / "out", ClipSpec())
    assert any("clip for alert b1" in p for p in problems)


def test_an_abandoned_cutter_leaves_the_clips_to_the_resumed_review(tmp_path: Path) -> None:
    video = _video(tmp_path / "v.avi")
    cutter = ClipCutter(video, tmp_path / "out", ClipSpec(before_s=1.0, after_s=1.0))
    alert = _alert("c1", 4.0)
    cutter.offer([alert])
    cutter.abandon()
    assert "clip" not in alert
    attach_media(video, [alert], tmp_path / "out", ClipSpec(before_s=1.0, after_s=1.0))
    assert alert["clip"]["path"] == "c1.mp4" and (tmp_path / "out" / "clips" / "c1.mp4").exists()
