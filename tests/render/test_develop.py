"""The strip-wise develop step gives the reference's pixels (light, lens remap, sensor), bit for bit."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from monitor.render.camera import default_camera
from monitor.render.develop import develop
from monitor.render.effects import Effects, apply_light, apply_sensor
from monitor.render.random_scene import random_camera, random_scene
from monitor.render.renderer import Renderer

RES = (480, 272)  # small frames; strips of 32 rows still cut each into many


def _reference(ideal, gloss, e, maps):  # type: ignore[no-untyped-def]
    img = apply_light(ideal.copy(), gloss, e)
    if maps is not None:
        img = cv2.remap(img, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return apply_sensor(img, e)


def _ideal(seed: int, lens: bool):  # type: ignore[no-untyped-def]
    """A rendered ideal image and gloss mask (no effects) and the lens maps of a random camera."""
    rng = np.random.default_rng(seed)
    r = Renderer()
    cam = default_camera(*RES)
    for _ in range(200):  # a random camera with (or without) lens distortion
        c = random_camera(rng, RES, distortion=1.0 if lens else 0.0)
        if c.distorted == lens:
            cam = c
            break
    scene = random_scene(rng, "classic", "green", 0)
    captured = {}
    import monitor.render.renderer as R

    real = R.develop

    def grab(img, gloss, e, m, size):  # type: ignore[no-untyped-def]
        # the lens maps too: the ones the renderer made for this camera
        captured["ideal"], captured["gloss"], captured["maps"] = img.copy(), gloss.copy(), m
        return real(img, gloss, e, m, size)

    R.develop = grab
    try:
        r.render(scene, cam, Effects())
    finally:
        R.develop = real
    return captured["ideal"], captured["gloss"], captured["maps"], (cam.width, cam.height)


CASES = {
    "plain": Effects(),
    "light": Effects(exposure=1.2, white_balance=(0.95, 1.0, 1.07), vignette=0.3, unevenness=0.15, seed=3),
    "glare+gamma": Effects(
        glare=[(0.4, 0.5, 0.2, 90.0), (0.7, 0.3, 0.1, 40.0)], glare_felt=0.3, gamma=1.15, seed=4
    ),
    "noise": Effects(noise=3.25, seed=5, frame=7),
    "defocus+noise": Effects(defocus=0.7, noise=2.0, gamma=0.9, seed=6),
    "shake+noise": Effects(motion_blur=(4.2, 33.0), noise=1.5, vignette=0.2, seed=7),
    "all": Effects(
        exposure=0.85,
        vignette=0.25,
        unevenness=0.1,
        glare=[(0.5, 0.5, 0.15, 70.0)],
        gamma=1.1,
        defocus=0.5,
        motion_blur=(3.0, 120.0),
        noise=4.5,
        seed=8,
    ),
}


@pytest.mark.parametrize("lens", [False, True], ids=["no-lens", "lens"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_develop_is_the_reference_bit_for_bit(case: str, lens: bool) -> None:
    ideal, gloss, maps, size = _ideal(11 if lens else 12, lens)
    assert (maps is not None) == lens
    e = CASES[case]
    want = _reference(ideal, gloss, e, maps)
    got = develop(ideal.copy(), gloss, e, maps, size)
    assert got.shape == want.shape == (size[1], size[0], 3)
    assert np.array_equal(got, want), f"{case}: {np.count_nonzero(got != want)} values differ"


def test_develop_strip_height_does_not_change_the_frame() -> None:
    ideal, gloss, maps, size = _ideal(13, True)
    e = replace(CASES["all"], seed=21)
    frames = [develop(ideal.copy(), gloss, e, maps, size, rows=rows) for rows in (1, 7, 32, 1000)]
    for f in frames[1:]:
        assert np.array_equal(f, frames[0])


def test_develop_rejects_what_it_cannot_develop() -> None:
    ideal = np.zeros((40, 60, 3), np.uint8)
    gloss = np.zeros((40, 60), np.uint8)
    with pytest.raises(ValueError, match="uint8 HxWx3"):
        develop(ideal.astype(np.float32), gloss, Effects())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no lens"):
        develop(ideal, gloss, Effects(), None, (30, 20))
