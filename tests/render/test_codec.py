"""H.264 and JPEG artifacts are real encode/decode round trips, and the recorder writes real H.264."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.render.camera import default_camera
from monitor.render.codec import h264_roundtrip, jpeg_roundtrip, video_codec
from monitor.render.effects import Effects
from monitor.render.random_scene import random_scene
from monitor.render.renderer import Renderer
from monitor.render.rounds.video import VideoWriter
from tests.support.paths import SAMPLE_RECORDING


@pytest.fixture(scope="module")
def frame_and_scene():  # type: ignore[no-untyped-def]
    scene = random_scene(np.random.default_rng(4), "classic", "green", phase="showdown")
    cam = default_camera(640, 360)
    r = Renderer()
    return r, scene, cam, r.render(scene, cam, Effects(noise=2.0, seed=3)).image


def test_h264_roundtrip_loses_more_at_higher_crf(frame_and_scene) -> None:  # type: ignore[no-untyped-def]
    img = frame_and_scene[3]
    psnr = {crf: cv2.PSNR(img, h264_roundtrip(img, crf)) for crf in (18, 30, 42)}
    assert psnr[18] > psnr[30] > psnr[42]
    assert 20.0 < psnr[42] < 40.0  # visibly degraded, still the same picture
    assert psnr[18] < 60.0  # not a copy


def test_h264_is_4_2_0_even_when_lossless() -> None:
    # CRF 0 is lossless for the YUV planes, but the chroma planes are half size: a one-pixel red line
    # on grey bleeds its colour into the neighbouring column and keeps its brightness.
    img = np.full((64, 64, 3), 128, np.uint8)
    img[:, 31] = (0, 0, 255)
    out = h264_roundtrip(img, 0)
    line, beside = out[:, 31].astype(int), out[:, 30].astype(int)
    assert np.all(line[:, 2] < 250)  # the red is diluted...
    assert np.all(beside[:, 2] - beside[:, 0] > 20)  # ...into the next column
    luma = cv2.cvtColor(out, cv2.COLOR_BGR2GRAY).astype(int)
    want = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(int)
    assert np.abs(luma - want).max() <= 12


def test_h264_odd_sizes_and_bad_input() -> None:
    img = np.random.default_rng(0).integers(0, 255, (75, 101, 3), dtype=np.uint8)
    assert h264_roundtrip(img, 23).shape == (75, 101, 3)
    with pytest.raises(ValueError, match="CRF 60"):
        h264_roundtrip(img, 60)
    with pytest.raises(ValueError, match="8-bit BGR"):
        h264_roundtrip(img[..., 0], 23)
    with pytest.raises(ValueError, match="quality 0"):
        jpeg_roundtrip(img, 0)


def test_effects_h264_changes_pixels_not_truth(frame_and_scene) -> None:  # type: ignore[no-untyped-def]
    r, scene, cam, _ = frame_and_scene
    plain = r.render(scene, cam, Effects(seed=5))
    coded = r.render(scene, cam, Effects(seed=5, h264_crf=34))
    assert plain.image.shape == coded.image.shape
    assert 20.0 < cv2.PSNR(plain.image, coded.image) < 45.0  # it also wipes out part of the noise
    assert [o.to_json() for o in plain.objects] == [o.to_json() for o in coded.objects]
    # the random draw includes H.264 only when asked for
    rng = np.random.default_rng(1)
    assert all(Effects.random(rng).h264_crf is None for _ in range(20))
    drawn = [Effects.random(rng, h264=1.0).h264_crf for _ in range(20)]
    assert all(c is not None and 18 <= c <= 35 for c in drawn)


def _write(path: Path, n: int) -> VideoWriter:
    w = VideoWriter(path, (320, 240), 10, crf=30)
    for i in range(n):
        img = np.full((240, 320, 3), 60, np.uint8)
        cv2.rectangle(img, (10 + 20 * i, 50), (60 + 20 * i, 120), (30, 200, 240), -1)
        w.write(img)
    w.close()
    return w


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="the ffmpeg program is not installed")
def test_recorder_writes_real_h264_through_ffmpeg(tmp_path: Path) -> None:
    w = _write(tmp_path / "a.mp4", 6)
    assert w.codec == "h264 (ffmpeg)"
    assert video_codec(tmp_path / "a.mp4") == ("h264", 6, (320, 240))


def test_recorder_writes_real_h264_through_pyav(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)  # as on a machine without the program
    w = _write(tmp_path / "b.mp4", 5)
    assert w.codec == "h264 (PyAV)"
    name, n, size = video_codec(tmp_path / "b.mp4")
    assert (name, n, size) == ("h264", 5, (320, 240))
    # the moving rectangle is where it was drawn in the last frame
    import av

    with av.open(str(tmp_path / "b.mp4")) as f:
        last = [fr.to_ndarray(format="bgr24") for fr in f.decode(video=0)][-1]
    assert last[85, 10 + 80 + 25, 2] > 200 and last[85, 5, 2] < 100


def test_shipped_sample_recording_is_h264() -> None:
    path = SAMPLE_RECORDING / "video.mp4"
    import av

    with av.open(str(path)) as f:
        st = f.streams.video[0]
        assert st.codec_context.name == "h264"
        assert st.codec_context.pix_fmt == "yuv420p"
