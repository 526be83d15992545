"""Ground truth matches the pixels: polygons, visible shares, zones, piles, lens, crops."""

from __future__ import annotations

import numpy as np
import pytest

from monitor.render.camera import Camera, default_camera
from monitor.render.card_art import PX_PER_MM, TEX_H, TEX_W, rounded_card_alpha
from monitor.render.deck import CardDesign
from monitor.render.renderer import Renderer
from monitor.render.scene import CardObj, ChipStack, Die, Occluder, Scene, arm_outline

MAGENTA = (255, 0, 255)  # BGR


class SolidDesign(CardDesign):
    """Every face a flat colour: makes 'is this pixel the card' a colour test."""

    def __init__(self, color: tuple[int, int, int] = MAGENTA) -> None:
        super().__init__("solid")
        self.color = color

    def _make(self, key: str, variant: int) -> np.ndarray:
        img = np.zeros((TEX_H, TEX_W, 3), np.uint8)
        img[:] = self.color
        return np.dstack([img, rounded_card_alpha(TEX_W, TEX_H, PX_PER_MM)])


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer({"solid": SolidDesign(), "blue": SolidDesign((255, 0, 0))})


def small_camera(dist: tuple[float, ...] = (0, 0, 0, 0, 0)) -> Camera:
    # 960x540 over 1.35 m of table: cards ~45 px wide, cheap to render
    return Camera.overhead(
        (960, 540), view_width_mm=1350, height_mm=2000, center=(0, 0), yaw_deg=0, dist=dist
    )


def _poly_mask(shape: tuple[int, int], poly: np.ndarray) -> np.ndarray:
    import cv2

    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
    return m.astype(bool)


def _is_magenta(img: np.ndarray) -> np.ndarray:
    b, g, r = (img[..., i].astype(int) for i in range(3))
    return (b > 200) & (r > 200) & (g < 60)


@pytest.mark.parametrize("dist", [(0, 0, 0, 0, 0), (-0.18, 0.03, 0.0005, -0.0005, 0)])
def test_card_pixels_are_where_the_polygon_says(renderer: Renderer, dist: tuple[float, ...]) -> None:
    import cv2

    scene = Scene(table_style="green")
    placements = [(-300.0, -40.0, 0.0), (0.0, 150.0, 33.0), (420.0, 200.0, -71.0), (-550.0, 230.0, 90.0)]
    for x, y, a in placements:
        scene.add(CardObj("As", x, y, a, design="solid"))
    frame = renderer.render(scene, small_camera(dist))
    magenta = _is_magenta(frame.image)
    k = np.ones((5, 5), np.uint8)
    for o in frame.objects:
        poly = np.asarray(o.polygon)
        assert poly.shape == (4, 2)
        inside = _poly_mask(magenta.shape, poly)
        core = cv2.erode(inside.astype(np.uint8), k).astype(bool)
        ring = cv2.dilate(inside.astype(np.uint8), k).astype(bool) & ~inside
        # the card's interior is all card colour; just outside its outline there is none
        assert magenta[core].mean() > 0.99, f"card {o.oid}: only {magenta[core].mean():.3f} of its interior"
        assert magenta[ring].mean() < 0.02, f"card {o.oid}: {magenta[ring].mean():.3f} of its outside ring"
        assert o.visible_share == pytest.approx(1.0, abs=0.03)
        assert o.zone != "off_table"
    # printed order: the card's first corner is its top-left as printed; for angle 0 that is the
    # image's top-left (dealer at the bottom, so the card's top points up the image)
    p0 = np.asarray(frame.objects[0].polygon)
    assert p0[0][0] < p0[1][0] and p0[0][1] < p0[3][1]


def test_visible_share_under_occlusion(renderer: Renderer) -> None:
    scene = Scene(table_style="green")
    scene.add(CardObj("Kd", 0, 0, 0, design="solid"))  # 1: half covered by card 2
    scene.add(CardObj("Qd", 31.5, 0, 0, design="blue", z=0.3))  # 2: covers the right half of 1
    scene.add(CardObj("2c", -300, 0, 0, design="solid"))  # 3: covered by a hand
    arm, sleeve = arm_outline((-300, 600, 250), (-300, 0, 40), width=90, hand_len=200, spread=0.0)
    scene.add(Occluder(arm, sleeve_points=sleeve))
    scene.add(ChipStack(300, 0, 25, 4))
    scene.add(Die(400, 0, 5, 20))
    frame = renderer.render(scene, small_camera())
    share = {o.oid: o.visible_share for o in frame.objects}
    assert share[1] == pytest.approx(0.5, abs=0.04)
    assert share[2] == pytest.approx(1.0, abs=0.03)
    assert share[3] < 0.6
    assert share[5] == pytest.approx(1.0, abs=0.08) and share[6] == pytest.approx(1.0, abs=0.08)
    # the id map agrees with the counts: every visible pixel of an object carries its id
    for o in frame.objects:
        assert int((frame.id_map == o.oid).sum()) == o.visible_px
    chips = frame.by_id(5)
    assert chips.label == "chip" and chips.identity == "25" and chips.count == 4
    assert frame.by_id(6).label == "dice" and frame.by_id(6).identity == "5"


def test_zones_and_piles(renderer: Renderer) -> None:
    scene = Scene(table_style="green")
    lay = scene.layout
    cx, cy = lay.pile(3).center
    for k in range(7):
        scene.add(
            CardObj("As", cx + k * 0.5, cy, k * 0.7, face_up=False, design="solid", z=k * 0.3, pile="pile3")
        )
    sx, sy = lay.seat(5).back_hand.center
    scene.add(CardObj("Jk", sx, sy, 0, design="solid"))
    frame = renderer.render(scene, default_camera(960, 540))
    cards = [o for o in frame.objects if o.kind == "card"]
    assert {o.zone for o in cards[:7]} == {"pile3"} and cards[7].zone == "seat5.back"
    assert cards[0].label == "card_face_down" and cards[7].label == "card_face_up"
    assert cards[6].visible_share > 0.95 and cards[0].visible_share < 0.2  # the top card hides the rest
    piles = [o for o in frame.objects if o.kind == "pile"]
    assert len(piles) == 1 and piles[0].count == 7 and piles[0].zone == "pile3"
    assert piles[0].members == [1, 2, 3, 4, 5, 6, 7]
    # slivers of the lower cards under a pixel wide do not count as seen: a 22-px card pile reads ~0.95
    assert 0.92 <= piles[0].visible_share <= 1.0


def test_lens_maps_invert_the_projection() -> None:
    cam = Camera.overhead((960, 540), dist=(-0.2, 0.05, 0.001, -0.001, 0))
    mx, my = cam.distortion_maps()
    pts = np.array([[x, y, 0.0] for x in (-900, -300, 0, 450, 1000) for y in (-300, 0, 400, 650)])
    dist_px = cam.project(pts)
    ideal_px = cam.project_ideal(pts)
    for (u, v), (iu, iv) in zip(dist_px, ideal_px, strict=True):
        if 0 <= u < 959 and 0 <= v < 539:
            ui, vi = round(u), round(v)
            # the map at the distorted pixel points back at the ideal pixel (within rounding of u, v)
            assert abs(mx[vi, ui] - (iu + ui - u)) < 1.5 and abs(my[vi, ui] - (iv + vi - v)) < 1.5
    H = cam.plane_homography(0.0)
    h = (H @ np.column_stack([pts[:, :2], np.ones(len(pts))]).T).T
    assert np.allclose(h[:, :2] / h[:, 2:], ideal_px, atol=1e-6)
