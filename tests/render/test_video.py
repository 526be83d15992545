"""The recorder's video path: rendering in worker processes gives the very frames and truth the
sequential path gives, the mp4 is real H.264, and the sensor noise changes from frame to frame."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from monitor.render.camera import default_camera
from monitor.render.codec import video_codec
from monitor.render.renderer import Renderer
from monitor.render.rounds.play import PlayedRound, play_many
from monitor.render.rounds.script import load_script, shipped_scripts
from monitor.render.rounds.video import (
    RenderOptions,
    frames,
    frames_parallel,
    studio_effects,
    write_recording,
)
from monitor.render.scene import CardObj, Scene

OPTS = RenderOptions(resolution="320x180", fps=2, effects=True)


@pytest.fixture(scope="module")
def rounds() -> list[PlayedRound]:
    return play_many([(load_script(shipped_scripts()["paigow_stub_three"]), "stub_three")])


def test_parallel_frames_equal_sequential_frames(rounds: list[PlayedRound]) -> None:
    seq = list(frames(rounds, OPTS))
    par = list(frames_parallel(rounds, OPTS, workers=2))
    assert [f.index for f in par] == [f.index for f in seq]
    for a, b in zip(seq, par, strict=True):
        assert a.truth == b.truth
        assert np.array_equal(a.image, b.image)
    rendered = [f for f in seq if "same_as" not in f.truth]
    assert 5 < len(rendered) < len(seq)  # still pictures are repeated, not re-rendered


def test_sensor_noise_is_fresh_each_frame_under_the_same_light() -> None:
    scene = Scene(table_style="green")
    cam = default_camera(320, 180)
    fx = studio_effects()
    r = Renderer()
    one, again, two = (r.render(scene, cam, replace(fx, frame=k)).image.astype(int) for k in (1, 1, 2))
    assert np.array_equal(one, again)
    d = one - two
    assert 0.5 < np.abs(d).mean() < 3.0 and abs(d.mean()) < 0.2  # zero-mean noise, light unchanged


def test_parallel_recording_is_h264_with_a_truth_line_per_frame(
    rounds: list[PlayedRound], tmp_path: Path
) -> None:
    res = write_recording(rounds, tmp_path, OPTS, workers=2)
    assert res.ok and res.codec.startswith("h264")
    name, n, size = video_codec(tmp_path / "video.mp4")
    assert (name, n, size) == ("h264", res.frames, (320, 180))
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    assert [t["frame"] for t in truth] == list(range(n))
    assert res.rendered == sum("objects" in t for t in truth)


def test_a_moving_card_is_smeared_along_its_motion_and_keeps_its_truth() -> None:
    cam = default_camera(960, 540)
    r = Renderer()
    empty = r.render(Scene(table_style="green"), cam).image.astype(int)

    def render(motion: tuple[float, float]):  # type: ignore[no-untyped-def]
        scene = Scene(table_style="green")
        scene.add(CardObj("Kh", -300.0, 100.0, angle_deg=0.0, face_up=True, motion=motion))
        return r.render(scene, cam)

    still, moving = render((0.0, 0.0)), render((60.0, 0.0))
    assert still.objects[0].polygon == moving.objects[0].polygon  # truth: the mid-exposure place

    def extent(frame, axis: int) -> int:  # type: ignore[no-untyped-def]
        changed = np.abs(frame.image.astype(int) - empty).max(axis=2) > 12
        return int(np.ptp(np.flatnonzero(changed.any(axis=axis))))

    mm_px = 1.0 / cam.mm_per_px(-300.0, 100.0)
    widen = (extent(moving, 0) - extent(still, 0)) / (60.0 * mm_px)
    assert 0.6 < widen < 1.2  # the smear spans about the travel...
    assert abs(extent(moving, 1) - extent(still, 1)) <= 2  # ...and only along it
    o = moving.objects[0]
    assert int((moving.id_map == o.oid).sum()) == o.visible_px
    assert abs(o.visible_px - still.objects[0].visible_px) < 0.12 * still.objects[0].visible_px


def test_a_carried_stack_is_smeared_as_one_and_the_top_card_keeps_the_most_pixels() -> None:
    cam = default_camera(960, 540)
    scene = Scene(table_style="green")
    for k in range(3):  # a squared stack of three carried together
        scene.add(CardObj("Kh", -300.0 + k, 100.0, face_up=False, z=0.3 * k, motion=(50.0, 20.0)))
    f = Renderer().render(scene, cam)
    cards = [o for o in f.objects if o.kind == "card"]
    for o in cards:
        assert int((f.id_map == o.oid).sum()) == o.visible_px
    assert cards[2].visible_share > 0.8 and cards[0].visible_px < 0.2 * cards[2].visible_px
