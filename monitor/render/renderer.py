"""Scene + camera -> image + ground truth.

The renderer draws an ideal pinhole image by painter's order (table texture, then each object in
scene order), compositing each object only inside its own bounding box: cards are perspective
warps of cached mip-mapped textures, chips and dice small textured solids, arms filled outlines
with cast shadows. While compositing it writes an object-id buffer, so the ground truth says how
much of every object is actually visible. Then light, the lens (distortion remap) and the sensor.

Ground truth per object (:class:`ObjectTruth`): identity, detection label, the outline in final
image pixels (a card's four corners in printed order: top-left, top-right, bottom-right,
bottom-left), the table position and zone, and the visible share (visible pixels / own pixels).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from monitor.perception.imageio import as_image
from monitor.render.camera import Camera
from monitor.render.deck import BACK, CardDesign, load_design
from monitor.render.develop import LensMaps, develop
from monitor.render.effects import Effects
from monitor.render.props import chip_face, die_face, spot_color
from monitor.render.scene import CHIP_DIAMETER_MM, CHIP_THICKNESS_MM, CardObj, ChipStack, Die, Occluder, Scene
from monitor.render.table_art import CHIP_COLORS, table_texture

Image = NDArray[np.uint8]
F64 = NDArray[np.float64]
BGR = tuple[float, float, float]
# Rounded corners take (4 - pi) r^2 = 8.8 mm^2 off a 63 x 88 card.
CARD_FILL = 1.0 - (4 - math.pi) * 3.2**2 / (63 * 88)

LABELS = ("card_face_up", "card_face_down", "pile", "chip", "dice", "hand")
_RING_T = np.linspace(0, 2 * math.pi, 40, endpoint=False)  # a chip's rim, 40 points
_SIX = np.arange(6) * math.pi / 3  # a chip's six edge spots
_SPOT_DA = np.array([-0.19, 0.19, 0.19, -0.19])  # a spot quad's corners: rim angle offsets...
_SPOT_DZ = np.array([0.0, 0.0, CHIP_THICKNESS_MM - 0.25, CHIP_THICKNESS_MM - 0.25])  # ...and heights
_CHIP_RING_AREA = 0.5 * len(_RING_T) * (CHIP_DIAMETER_MM / 2) ** 2 * math.sin(2 * math.pi / len(_RING_T))
# shadow ring, bottom ring, top ring (x, y filled per stack), then 4 points of the top face square
_CHIP_TEMPLATE = np.zeros((3 * len(_RING_T) + 4, 3))
_CHIP_TEMPLATE[: 3 * len(_RING_T), :2] = np.tile(
    (CHIP_DIAMETER_MM / 2) * np.stack([np.cos(_RING_T), np.sin(_RING_T)], axis=1), (3, 1)
)
# three channels each (BGR), which tuple() over a generator cannot say
_CHIP_SIDE = cast(dict[int, BGR], {d: tuple(0.7 * float(c) for c in CHIP_COLORS[d]) for d in CHIP_COLORS})
_CHIP_SPOT = cast(dict[int, BGR], {d: tuple(0.8 * float(c) for c in spot_color(d)) for d in CHIP_COLORS})
_TRUTH_T = np.linspace(0, 2 * math.pi, 24, endpoint=False)
_TRUTH_RING = (CHIP_DIAMETER_MM / 2) * np.stack([np.cos(_TRUTH_T), np.sin(_TRUTH_T)], axis=1)  # 24 points


@dataclass
class ObjectTruth:
    oid: int
    kind: str  # card | pile | chips | die | arm
    label: str  # detection class (LABELS) or "arm" (whose hand is the "hand" class)
    identity: str  # card 'As'/'Jk' (true even face down), chip denomination, die value, pile id
    polygon: list[list[float]]  # final image px
    table_xy: tuple[float, float]
    zone: str
    visible_share: float
    visible_px: int
    area_px: float
    face_up: bool | None = None
    design: str | None = None
    pile: str | None = None
    members: list[int] = field(default_factory=list)
    count: int | None = None  # chips in a stack, cards in a pile

    def bbox(self) -> tuple[float, float, float, float]:
        p = np.asarray(self.polygon)
        return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))

    def to_json(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items()}
        d["polygon"] = [[round(x, 2), round(y, 2)] for x, y in self.polygon]
        d["table_xy"] = [round(self.table_xy[0], 1), round(self.table_xy[1], 1)]
        d["visible_share"] = round(self.visible_share, 4)
        d["area_px"] = round(self.area_px, 1)
        return d


@dataclass
class Frame:
    image: Image  # BGR, final
    objects: list[ObjectTruth]
    camera: Camera
    ideal_ids: NDArray[np.uint16]  # the id buffer of the ideal (undistorted, padded) image
    lens_maps: tuple[NDArray[Any], NDArray[Any]] | None = None  # remap() maps ideal -> final, if any

    @cached_property
    def id_map(self) -> NDArray[np.uint16]:
        """Final image: oid of the visible object at each pixel, 0 for the table. Put through the
        lens only when asked for (most frames never are)."""
        if self.lens_maps is None:
            return self.ideal_ids
        mx, my = self.lens_maps
        return np.asarray(
            cv2.remap(self.ideal_ids, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT), np.uint16
        )

    def by_id(self, oid: int) -> ObjectTruth:
        for o in self.objects:
            if o.oid == oid:
                return o
        raise KeyError(f"no object {oid}")


_GAIN_SRC = np.array([[0, 0], [2, 0], [2, 16], [0, 16]], np.float32)  # the 2 x 16 bend-gain texture
_BEND_COS = np.repeat(np.cos(np.linspace(0, math.pi, 16))[:, None], 2, axis=1)  # its shape, 16 x 2
_PREMULT_MAX = 512  # premultiplied mip levels kept (small: a 1080p card uses a ~110 px level)


def _shoelace(p: F64) -> float:
    x, y = p[:, 0], p[:, 1]
    return float(abs(np.dot(x[:-1], y[1:]) + x[-1] * y[0] - np.dot(y[:-1], x[1:]) - y[-1] * x[0]) / 2)


def _mip_level(tex_w: int, img_w: float, levels: int) -> int:
    if img_w <= 0:
        return levels - 1
    return min(max(math.floor(math.log2(max(tex_w / img_w, 1.0))), 0), levels - 1)


_PREMULT: OrderedDict[tuple[int, int], tuple[Image, Image]] = OrderedDict()


def _premultiplied(mips: tuple[Image, ...], lvl: int) -> Image:
    """The mip level with its colour multiplied by its alpha (BGRA), cached.

    Premultiplied texels interpolate right at a card's edge (no dark fringe from the transparent
    texels' colour) and make compositing two saturating uint8 operations. Keyed by the level's
    identity; the cache holds the level itself, so the id cannot be reused while cached.
    """
    tex = mips[lvl]
    key = (id(tex), lvl)
    got = _PREMULT.get(key)
    if got is None:
        a = cv2.cvtColor(np.ascontiguousarray(tex[..., 3]), cv2.COLOR_GRAY2BGRA)
        a[..., 3] = 255
        got = (tex, as_image(cv2.multiply(tex, a, scale=1.0 / 255)))
        _PREMULT[key] = got
        if len(_PREMULT) > _PREMULT_MAX:
            _PREMULT.popitem(last=False)
    else:
        _PREMULT.move_to_end(key)
    return got[1]


@lru_cache(maxsize=64)
def _tex_corners(th: int, tw: int) -> NDArray[np.float32]:
    # texture pixel centres are at integers, so its outer edges sit half a texel outside them
    return np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]], np.float32)


def _over(roi: Image, premult_bgr: Image, keep: Image) -> None:
    """roi = premult + roi * keep / 255, in place, uint8: the 'over' operator when keep = 255 - alpha."""
    cv2.add(cv2.multiply(roi, cv2.cvtColor(keep, cv2.COLOR_GRAY2BGR), scale=1.0 / 255), premult_bgr, dst=roi)


AFFINE_TOL = 0.25  # px: where the quad's fourth corner may sit off an affine warp's (L1)


def _warp(src: NDArray[Any], m: NDArray[np.float64], size: tuple[int, int], border: int) -> NDArray[Any]:
    """Bilinear warp by a 2x3 (affine) or 3x3 (perspective) matrix; borders transparent/replicated.

    A quad whose fourth corner an affine map through the other three lands within AFFINE_TOL px
    shows no perspective: warpAffine is then ~1.4x cheaper than warpPerspective for the same pixels.
    """
    if m.shape[0] == 2:
        return cv2.warpAffine(
            src, m, size, flags=cv2.INTER_LINEAR, borderMode=border, borderValue=(0, 0, 0, 0)
        )
    return cv2.warpPerspective(
        src, m, size, flags=cv2.INTER_LINEAR, borderMode=border, borderValue=(0, 0, 0, 0)
    )


class _Canvas:
    """The ideal image being composited, with its id buffer."""

    def __init__(self, img: Image) -> None:
        self.img = img
        h, w = img.shape[:2]
        self.h, self.w = h, w
        self.ids = np.zeros((h, w), np.uint16)
        self.gloss = np.zeros((h, w), np.uint8)  # 255 where a glossy card is on top (for glare)

    def roi(self, pts: F64, pad: int = 2) -> tuple[int, int, int, int] | None:
        lo = pts.min(axis=0)
        hi = pts.max(axis=0)
        x0 = max(0, math.floor(lo[0]) - pad)
        y0 = max(0, math.floor(lo[1]) - pad)
        x1 = min(self.w, math.ceil(hi[0]) + pad + 1)
        y1 = min(self.h, math.ceil(hi[1]) + pad + 1)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def blit(
        self,
        mips: tuple[Image, ...],
        quad: F64,
        oid: int,
        shade: float = 1.0,
        bend: float = 0.0,
        glossy: bool = False,
        shadow: float = 0.0,
    ) -> None:
        """Warp a BGRA texture onto the image quad (its corners TL, TR, BR, BL) and composite it.

        Only the quad's bounding box is touched; the texture is a premultiplied mip level close to
        the drawn size, so the warp neither aliases nor wastes work. ``shadow`` > 0 first darkens
        what lies under the texture's outline moved one pixel right and down by that share (a thin
        object's contact shadow, too small to blur), in the same pass.
        """
        r = self.roi(quad)
        if r is None:
            return
        x0, y0, x1, y1 = r
        dx, dy = quad[1, 0] - quad[0, 0], quad[1, 1] - quad[0, 1]
        lvl = _mip_level(mips[0].shape[1], math.hypot(dx, dy), len(mips))
        tex = _premultiplied(mips, lvl)
        src = _tex_corners(tex.shape[0], tex.shape[1])
        dst = (quad - (x0, y0)).astype(np.float32)
        size = (x1 - x0, y1 - y0)
        aff = cast(F64, cv2.getAffineTransform(src[:3], dst[:3]))
        miss = aff[:, :2] @ src[3] + aff[:, 2] - dst[3]
        affine = abs(float(miss[0])) + abs(float(miss[1])) <= AFFINE_TOL
        warped = _warp(
            tex,
            aff if affine else cast(F64, cv2.getPerspectiveTransform(src, dst)),
            size,
            cv2.BORDER_CONSTANT,
        )
        alpha = cv2.extractChannel(warped, 3)
        col = as_image(cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR))
        if bend != 0.0:
            # A bowed card catches the light along its length: a smooth gain across the texture's v
            # axis (fixed point, 128 = 1.0), warped like the card.
            g8 = np.clip(128.5 + (bend * 0.18 * 128) * _BEND_COS, 0, 255).astype(np.uint8)
            m = cast(
                F64,
                cv2.getAffineTransform(_GAIN_SRC[:3], dst[:3])
                if affine
                else cv2.getPerspectiveTransform(_GAIN_SRC, dst),
            )
            gain = _warp(g8, m, size, cv2.BORDER_REPLICATE)
            col = as_image(cv2.multiply(col, cv2.cvtColor(gain, cv2.COLOR_GRAY2BGR), scale=1.0 / 128))
        if shade != 1.0:
            col = as_image(cv2.convertScaleAbs(col, alpha=shade))
        keep = as_image(cv2.bitwise_not(alpha))
        if shadow > 0.0:
            sh = np.zeros_like(alpha)
            sh[1:, 1:] = alpha[:-1, :-1]
            sh_keep = cv2.convertScaleAbs(sh, alpha=-shadow, beta=255)
            keep = as_image(cv2.multiply(keep, sh_keep, scale=1.0 / 255))
        _over(self.img[y0:y1, x0:x1], col, keep)
        cover = alpha > 127
        self.ids[y0:y1, x0:x1][cover] = oid
        self.gloss[y0:y1, x0:x1][cover] = 255 if glossy else 0

    def fill(self, pts: F64, color: tuple[float, float, float], oid: int | None) -> None:
        """Fill a polygon in one colour (anti-aliased), writing the id buffer where it covers."""
        self.fill_many(pts[None], color, oid)

    def fill_many(self, polys: F64, color: tuple[float, float, float], oid: int | None) -> None:
        """Fill polygons (M, K, 2) in one colour (anti-aliased) with one call, inside their common box."""
        r = self.roi(polys.reshape(-1, 2))
        if r is None:
            return
        x0, y0, x1, y1 = r
        ps = list(np.round((polys - (x0, y0)) * 16).astype(np.int32))
        cv2.fillPoly(self.img[y0:y1, x0:x1], ps, color, cv2.LINE_AA, shift=4)
        if oid is not None:
            cv2.fillPoly(self.ids[y0:y1, x0:x1], ps, oid, cv2.LINE_8, shift=4)
            cv2.fillPoly(self.gloss[y0:y1, x0:x1], ps, 0, cv2.LINE_8, shift=4)

    def shadow(self, pts: F64, strength: float, blur_px: float) -> None:
        """Darken the image under a soft shadow of the polygon (uint8: 255 - shadow is what stays)."""
        pad = int(blur_px * 3) + 2
        r = self.roi(pts, pad)
        if r is None:
            return
        x0, y0, x1, y1 = r
        level = round(255 * (1.0 - strength))
        # a wide blur is smooth: draw and blur it at 1/k size (k up to 8), then scale it up
        k = min(8, int(blur_px / 1.5)) if blur_px >= 3.0 else 1
        w, h = x1 - x0, y1 - y0
        m = np.full((-(-h // k), -(-w // k)), 255, np.uint8)
        # pixel centres: full-size pixel i sits at (i + 0.5) / k - 0.5 of the small mask
        p = (pts - (x0, y0) + 0.5) / k - 0.5
        cv2.fillPoly(m, [np.round(p * 16).astype(np.int32)], level, cv2.LINE_AA, shift=4)
        if blur_px > 0.3:
            m = as_image(cv2.GaussianBlur(m, (0, 0), blur_px / k))
        if k > 1:
            up = (m.shape[1] * k, m.shape[0] * k)
            m = as_image(cv2.resize(m, up, interpolation=cv2.INTER_LINEAR))[:h, :w]
        roi = self.img[y0:y1, x0:x1]
        cv2.multiply(roi, cv2.cvtColor(m, cv2.COLOR_GRAY2BGR), dst=roi, scale=1.0 / 255)


class Renderer:
    """Renders scenes; keeps the caches (designs, table textures, warped backgrounds, lens maps)."""

    def __init__(self, designs: dict[str, CardDesign] | None = None) -> None:
        self.designs: dict[str, CardDesign] = dict(designs or {})
        self._bg: OrderedDict[tuple[Any, ...], Image] = OrderedDict()
        self._lens: OrderedDict[tuple[Any, ...], tuple[Any, ...]] = OrderedDict()

    def forget_views(self) -> None:
        """Drop the per-camera caches (warped tables, lens maps); textures stay."""
        self._bg.clear()
        self._lens.clear()

    def design(self, name: str) -> CardDesign:
        d = self.designs.get(name)
        if d is None:
            d = load_design(name)
            self.designs[name] = d
        return d

    # ---- lens ----------------------------------------------------------------------------------
    def _ideal_camera(
        self, cam: Camera
    ) -> tuple[Camera, LensMaps | None]:
        if not cam.distorted:
            return cam, None
        key = (cam.width, cam.height, tuple(cam.K.ravel()), tuple(cam.dist))
        got = self._lens.get(key)
        if got is None:
            mx, my = cam.distortion_maps()
            px = math.ceil(max(0.0, -float(mx.min()), float(mx.max()) - cam.width + 1)) + 2
            py = math.ceil(max(0.0, -float(my.min()), float(my.max()) - cam.height + 1)) + 2
            # fixed-point maps make remap() about twice as fast
            m1, m2 = cv2.convertMaps(mx + px, my + py, cv2.CV_16SC2)
            got = (px, py, m1, m2)
            self._lens[key] = got
            if len(self._lens) > 4:
                self._lens.popitem(last=False)
        px, py, mx, my = got
        K = cam.K.copy()
        K[0, 2] += px
        K[1, 2] += py
        ideal = Camera(cam.width + 2 * px, cam.height + 2 * py, K, cam.R, cam.t)
        return ideal, (mx, my)

    # ---- background ----------------------------------------------------------------------------
    def _background(self, scene: Scene, cam: Camera) -> Image:
        ppm = 1.0 / cam.mm_per_px(0.0, 0.0)
        # the texture level nearest the view (the felt is smooth: a little magnification is invisible)
        tex_ppm = 2.0 if ppm > 1.5 else 1.0 if ppm > 0.6 else 0.5
        key = (
            scene.table_style,
            scene.table_variant,
            tex_ppm,
            cam.width,
            cam.height,
            tuple(cam.K.ravel()),
            tuple(cam.R.ravel()),
            tuple(cam.t),
        )
        got = self._bg.get(key)
        if got is None:
            tex = table_texture(scene.layout, scene.table_style, tex_ppm, scene.table_variant)
            H = cam.plane_homography(0.0) @ np.linalg.inv(tex.table_to_tex())
            got = as_image(
                cv2.warpPerspective(
                    tex.image,
                    H,
                    (cam.width, cam.height),
                    flags=cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT,
                    borderValue=tex.floor,
                )
            )
            self._bg[key] = got
            if len(self._bg) > 3:
                self._bg.popitem(last=False)
        return got.copy()

    # ---- objects -------------------------------------------------------------------------------
    def _card(self, cv: _Canvas, cam: Camera, card: CardObj, oid: int) -> float:
        quad = cam.project_ideal(card.corners())
        d = self.design(card.design)
        mips = d.mips(card.key if card.face_up else BACK, card.variant)
        # a card lying on others throws a thin shadow on them
        cv.blit(mips, quad, oid, bend=card.bend, glossy=True, shadow=0.15 if card.z > 0.5 else 0.0)
        return _shoelace(quad) * CARD_FILL

    def _chips(self, cv: _Canvas, cam: Camera, st: ChipStack, oid: int, light: F64) -> float:
        r = CHIP_DIAMETER_MM / 2
        n = len(_RING_T)
        ztop = st.z + st.height
        # one projection: the contact shadow (the footprint pushed away from the light), the bottom
        # and top rims, and the top face's texture square (turned with the stack's spot pattern)
        pts = _CHIP_TEMPLATE.copy()
        pts[:, 0] += st.x
        pts[:, 1] += st.y
        pts[:n, :2] -= light[:2] / light[2] * (st.height * 0.7)
        pts[: 2 * n, 2] = st.z
        pts[2 * n :, 2] = ztop
        a = math.radians(st.angle_deg)
        ca, sa = math.cos(a) * r, math.sin(a) * r
        pts[3 * n :, 0] = st.x + np.array([-ca - sa, ca - sa, ca + sa, -ca + sa])
        pts[3 * n :, 1] = st.y + np.array([-sa + ca, sa + ca, sa - ca, -sa - ca])
        proj = cam.project_ideal(pts)
        bottom, top, quad = proj[n : 2 * n], proj[2 * n : 3 * n], proj[3 * n :]
        px_per_mm = math.sqrt(_shoelace(bottom) / _CHIP_RING_AREA)
        cv.shadow(proj[:n], 0.45, max(1.0, 3.0 * px_per_mm))
        hull = _hull(proj[n : 3 * n])
        cv.fill(hull, _CHIP_SIDE[st.denomination], oid)
        # edge spots on the side, where the side shows (oblique views, image edges): all spot quads of
        # the stack projected in one call, only those on the half of the rim facing the camera
        hull_area = _shoelace(hull)
        if hull_area - _shoelace(top) > 4.0:
            eye = cam.center
            k = np.arange(st.count)
            # chips in a stack never line their spots up: each turned 0.7 rad from the one below
            ang = (a + k[:, None] * 0.7 + _SIX[None, :]).ravel()
            kk = np.repeat(k, 6)
            facing = np.cos(ang) * (eye[0] - st.x) + np.sin(ang) * (eye[1] - st.y) > 0
            if facing.any():
                ang, kk = ang[facing], kk[facing]
                za = st.z + kk * CHIP_THICKNESS_MM
                # a spot: 0.38 rad of rim, the chip's height less a 0.25 mm groove
                qa = ang[:, None] + _SPOT_DA[None, :]
                qz = za[:, None] + _SPOT_DZ[None, :]
                quads = np.stack([st.x + r * np.cos(qa), st.y + r * np.sin(qa), qz], axis=-1)
                pq = cam.project_ideal(quads.reshape(-1, 3)).reshape(-1, 4, 2)
                cv.fill_many(pq, _CHIP_SPOT[st.denomination], None)
        cv.blit((chip_face(st.denomination),), quad, oid)
        return hull_area

    def _die(self, cv: _Canvas, cam: Camera, die: Die, oid: int, light: F64) -> float:
        R = die.rotation()
        h = die.size / 2
        center = np.array([die.x, die.y, h])
        eye = cam.center
        sh = np.array(
            [[die.x - h, die.y - h], [die.x + h, die.y - h], [die.x + h, die.y + h], [die.x - h, die.y + h]]
        )
        cv.shadow(cam.project_ideal(np.column_stack([sh - light[:2] / light[2] * h, np.zeros(4)])), 0.45, 2.0)
        corners = []
        for value, n in sorted(DIE_NORMALS.items()):
            nn = R @ np.array(n, float)
            fc = center + nn * h
            if np.dot(nn, eye - fc) <= 0:
                continue
            # face square: two in-face axes from the die frame, rotated with it
            a1 = R @ np.array(_FACE_AXES[value][0], float)
            a2 = R @ np.array(_FACE_AXES[value][1], float)
            sq = np.array(
                [fc - a1 * h - a2 * h, fc + a1 * h - a2 * h, fc + a1 * h + a2 * h, fc - a1 * h + a2 * h]
            )
            quad = cam.project_ideal(sq)
            corners.append(quad)
            lam = float(np.clip(np.dot(nn, light / np.linalg.norm(light)), 0, 1))
            cv.blit((die_face(value),), quad, oid, shade=float(0.45 + 0.55 * lam))
        allp = np.concatenate(corners) if corners else cam.project_ideal(center[None])
        hull = cv2.convexHull(allp.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        return _shoelace(hull)

    def _arm_shadow(self, cv: _Canvas, cam: Camera, occ: Occluder, light: F64) -> None:
        # cast shadow on the felt (and whatever lies there) along the light direction
        p = occ.points
        sh = p[:, :2] - light[:2] / light[2] * p[:, 2:3]
        ppm = 1.0 / cam.mm_per_px(float(p[:, 0].mean()), float(p[:, 1].mean()))
        cv.shadow(cam.project_ideal(np.column_stack([sh, np.zeros(len(sh))])), 0.45, max(2.0, 20 * ppm))

    def _occluder(
        self, cv: _Canvas, cam: Camera, occ: Occluder, oid: int, light: F64, shadow: bool = True
    ) -> float:
        p = occ.points
        if shadow:
            self._arm_shadow(cv, cam, occ, light)
        ppm = 1.0 / cam.mm_per_px(float(p[:, 0].mean()), float(p[:, 1].mean()))
        poly = cam.project_ideal(p)
        cv.fill(poly, occ.color, oid)
        # rounded look: darken toward the outline
        r = cv.roi(poly, 1)
        if r is not None:
            x0, y0, x1, y1 = r
            m = (cv.ids[y0:y1, x0:x1] == oid).astype(np.uint8)
            d = cv2.distanceTransform(m, cv2.DIST_L2, 3)
            k = np.clip(d / max(2.0, 18 * ppm), 0, 1)
            g = (0.72 + 0.28 * np.sqrt(k))[..., None]
            roi = cv.img[y0:y1, x0:x1]
            sel = m.astype(bool)
            roi[sel] = (roi[sel].astype(np.float32) * g[sel]).astype(np.uint8)
        if occ.sleeve is not None and occ.sleeve_points is not None:
            cv.fill(cam.project_ideal(occ.sleeve_points), occ.sleeve, oid)
        return _shoelace(poly)

    def _moving(
        self, cv: _Canvas, cam: Camera, objs: list[CardObj | Occluder], first: int, light: F64
    ) -> dict[int, float]:
        """Objects moving together while the shutter is open (one card, an arm, a stack carried as
        one; ids ``first``, ``first + 1``, ...): drawn sharp at their mid-exposure place, then
        smeared as one layer along their image motion over what lay there before. A pixel's id is
        the topmost group member whose sharp footprint the motion sweeps over it, where the smeared
        alpha is over one half. Returns each member's own drawn area."""
        pts, centres = [], []
        for o in objs:
            if isinstance(o, CardObj):
                pts.append(o.corners())
                centres.append((o.x, o.y, o.z))
            else:
                pts.append(
                    o.points if o.sleeve_points is None else np.concatenate([o.points, o.sleeve_points])
                )
                centres.append(tuple(o.points.mean(axis=0)))
        c = np.mean(np.asarray(centres, np.float64), axis=0)
        half = np.array([objs[0].motion[0] / 2, objs[0].motion[1] / 2, 0.0])
        ends = cam.project_ideal(np.array([c - half, c + half]))
        dx, dy = ends[1] - ends[0]
        length = math.hypot(dx, dy)
        r = (
            cv.roi(cam.project_ideal(np.concatenate(pts)), math.ceil(length / 2) + 3)
            if length >= 1.0
            else None
        )
        areas: dict[int, float] = {}
        if r is None:  # under a pixel of travel (or out of view): drawn sharp
            for k, o in enumerate(objs):
                oid = first + k
                areas[oid] = (
                    self._card(cv, cam, o, oid)
                    if isinstance(o, CardObj)
                    else self._occluder(cv, cam, o, oid, light)
                )
            return areas
        x0, y0, x1, y1 = r
        for o in objs:  # cast shadows are soft already: they stay under the smear
            if isinstance(o, Occluder):
                self._arm_shadow(cv, cam, o, light)
        bg = cv.img[y0:y1, x0:x1].copy()
        ids_bg = cv.ids[y0:y1, x0:x1].copy()
        gloss_bg = cv.gloss[y0:y1, x0:x1].copy()
        for k, o in enumerate(objs):
            oid = first + k
            if isinstance(o, CardObj):
                areas[oid] = self._card(cv, cam, o, oid)
            else:
                areas[oid] = self._occluder(cv, cam, o, oid, light, shadow=False)
        roi, ids = cv.img[y0:y1, x0:x1], cv.ids[y0:y1, x0:x1]
        last = first + len(objs) - 1
        mine = (ids >= first) & (ids <= last)
        mask = np.where(mine, np.uint8(255), np.uint8(0))
        layer = as_image(cv2.multiply(roi, cv2.cvtColor(mask, cv2.COLOR_GRAY2BGR), scale=1.0 / 255))
        smeared = _smear(np.dstack([layer, mask]), dx, dy)
        layer, mask = np.ascontiguousarray(smeared[..., :3]), np.ascontiguousarray(smeared[..., 3])
        roi[:] = bg
        _over(roi, layer, as_image(cv2.bitwise_not(mask)))
        top = _smear(np.where(mine, ids, np.uint16(0)), dx, dy, reduce="max") if len(objs) > 1 else None
        ids[:] = ids_bg
        cover = mask > 127
        if top is None:
            ids[cover] = first
        else:
            cover &= top >= first
            ids[cover] = top[cover]
        gloss = cv.gloss[y0:y1, x0:x1]
        gloss[:] = gloss_bg
        glossy = np.array([isinstance(o, CardObj) for o in objs])
        gloss[cover] = np.where(glossy[ids[cover].astype(np.int64) - first], np.uint8(255), np.uint8(0))
        return areas

    # ---- the frame -----------------------------------------------------------------------------
    def render(self, scene: Scene, camera: Camera, effects: Effects | None = None) -> Frame:
        ideal, maps = self._ideal_camera(camera)
        cv = _Canvas(self._background(scene, ideal))
        light = np.asarray(scene.light_dir, float)
        areas: dict[int, float] = {}
        objs = scene.objects
        skip = 0  # objects already drawn as part of a moving group
        for i, obj in enumerate(objs, start=1):
            if skip:
                skip -= 1
                continue
            if isinstance(obj, CardObj | Occluder) and obj.motion != (0.0, 0.0):
                group: list[CardObj | Occluder] = [obj]
                for nxt in objs[i:]:  # the run of objects moving with it (a carried stack)
                    if not isinstance(nxt, CardObj | Occluder) or not _same_motion(nxt.motion, obj.motion):
                        break
                    group.append(nxt)
                areas.update(self._moving(cv, ideal, group, i, light))
                skip = len(group) - 1
            elif isinstance(obj, CardObj):
                areas[i] = self._card(cv, ideal, obj, i)
            elif isinstance(obj, ChipStack):
                areas[i] = self._chips(cv, ideal, obj, i, light)
            elif isinstance(obj, Die):
                areas[i] = self._die(cv, ideal, obj, i, light)
            elif isinstance(obj, Occluder):
                areas[i] = self._occluder(cv, ideal, obj, i, light)
            else:
                raise TypeError(f"scene object {i} is a {type(obj).__name__}, not a card, chips, die or arm")
        counts = _id_counts(cv.ids, len(scene.objects))
        img = cv.img
        if effects is not None:
            img = develop(img, cv.gloss, effects, maps, (camera.width, camera.height))
        elif maps is not None:
            img = as_image(
                cv2.remap(img, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            )
        objects = self._truth(scene, camera, ideal, counts, areas)
        return Frame(img, objects, camera, cv.ids, maps)

    def _truth(
        self, scene: Scene, cam: Camera, ideal: Camera, counts: NDArray[np.int64], areas: dict[int, float]
    ) -> list[ObjectTruth]:
        lay = scene.layout
        # every object's outline points in table mm, projected through the lens in one call
        shapes: list[F64] = []
        for obj in scene.objects:
            if isinstance(obj, CardObj):
                shapes.append(obj.corners())
            elif isinstance(obj, ChipStack):
                ring = np.stack([obj.x + _TRUTH_RING[:, 0], obj.y + _TRUTH_RING[:, 1]], axis=1)
                pts = np.empty((48, 3))
                pts[:24, :2], pts[:24, 2] = ring, obj.z
                pts[24:, :2], pts[24:, 2] = ring, obj.z + obj.height
                shapes.append(pts)
            elif isinstance(obj, Die):
                h = obj.size / 2
                a = math.radians(obj.angle_deg)
                ca, sa = math.cos(a), math.sin(a)
                shapes.append(
                    np.array(
                        [
                            [
                                obj.x + sx * h * ca - sy * h * sa,
                                obj.y + sx * h * sa + sy * h * ca,
                                sz * obj.size,
                            ]
                            for sx in (-1, 1)
                            for sy in (-1, 1)
                            for sz in (0, 1)
                        ]
                    )
                )
            else:
                shapes.append(np.asarray(obj.points, np.float64))
        ends = np.cumsum([len(p) for p in shapes])
        proj = np.split(cam.project(np.concatenate(shapes)), ends[:-1]) if shapes else []
        out: list[ObjectTruth] = []
        piles: dict[str, list[int]] = {}
        for i, (obj, poly) in enumerate(zip(scene.objects, proj, strict=True), start=1):
            vis = int(counts[i])
            area = max(areas.get(i, 0.0), 1e-6)
            share = float(min(1.0, vis / area))
            if isinstance(obj, CardObj):
                out.append(
                    ObjectTruth(
                        i,
                        "card",
                        "card_face_up" if obj.face_up else "card_face_down",
                        obj.key,
                        poly.tolist(),
                        (obj.x, obj.y),
                        "",
                        share,
                        vis,
                        area,
                        face_up=obj.face_up,
                        design=obj.design,
                        pile=obj.pile,
                    )
                )
                if obj.pile is not None:
                    piles.setdefault(obj.pile, []).append(i)
            elif isinstance(obj, ChipStack):
                hull = _hull(poly)
                out.append(
                    ObjectTruth(
                        i,
                        "chips",
                        "chip",
                        str(obj.denomination),
                        hull.tolist(),
                        (obj.x, obj.y),
                        "",
                        share,
                        vis,
                        area,
                        count=obj.count,
                    )
                )
            elif isinstance(obj, Die):
                out.append(
                    ObjectTruth(
                        i,
                        "die",
                        "dice",
                        str(obj.value),
                        _hull(poly).tolist(),
                        (obj.x, obj.y),
                        "",
                        share,
                        vis,
                        area,
                    )
                )
            else:
                cx, cy = float(obj.points[:, 0].mean()), float(obj.points[:, 1].mean())
                out.append(ObjectTruth(i, "arm", "arm", "arm", poly.tolist(), (cx, cy), "", share, vis, area))
        base = len(scene.objects)
        for n, (pid, members) in enumerate(sorted(piles.items()), start=1):
            if len(members) < 2:
                continue
            hull = _hull(np.concatenate([proj[m - 1] for m in members]))
            cards = [scene.objects[m - 1] for m in members]
            ipolys = [ideal.project_ideal(c.corners()) for c in cards if isinstance(c, CardObj)]
            union = _union_area(ipolys)
            vis = int(sum(counts[m] for m in members))
            xs = [out[m - 1].table_xy for m in members]
            cx, cy = float(np.mean([p[0] for p in xs])), float(np.mean([p[1] for p in xs]))
            out.append(
                ObjectTruth(
                    base + n,
                    "pile",
                    "pile",
                    pid,
                    hull.tolist(),
                    (cx, cy),
                    "",
                    float(min(1.0, vis / max(union, 1e-6))),
                    vis,
                    union,
                    members=members,
                    count=len(members),
                )
            )
        if out:  # one vectorized zone lookup for every object
            for o, z in zip(out, lay.zones_at(np.array([o.table_xy for o in out])), strict=True):
                o.zone = z
        return out


def _shift_reduce(img: NDArray[Any], offs: NDArray[np.int_], reduce: str) -> NDArray[Any]:
    """The mean (uint8) or maximum of ``img`` shifted by each whole-pixel offset (x, y), zeros coming
    in at the edges."""
    px, py = int(np.abs(offs[:, 0]).max()), int(np.abs(offs[:, 1]).max())
    src = cast(NDArray[Any], cv2.copyMakeBorder(img, py, py, px, px, cv2.BORDER_CONSTANT, value=0))
    h, w = img.shape[:2]
    if reduce == "max":
        out = np.zeros_like(img)
        for ox, oy in offs:
            np.maximum(out, src[py - oy : py - oy + h, px - ox : px - ox + w], out=out)
        return out
    acc = np.zeros(img.shape, np.uint16)
    for ox, oy in offs:
        acc += src[py - oy : py - oy + h, px - ox : px - ox + w]
    n = len(offs)
    return np.asarray((acc + n // 2) // n, np.uint8)


def _smear(img: NDArray[Any], dx: float, dy: float, reduce: str = "mean") -> NDArray[Any]:
    """Linear motion blur over the segment from -(dx, dy)/2 to +(dx, dy)/2: a box of n one-pixel
    steps along it, done as a box of ``a`` steps and then a box of ``b`` steps ``a`` pixels apart
    (n = a * b), i.e. about 2 sqrt(n) shifted sums instead of n (a 2-D line kernel through filter2D
    costs about 10 ms on a hand-sized region). ``reduce="max"`` sweeps a maximum instead (ids)."""
    length = math.hypot(dx, dy)
    n = max(2, math.ceil(length) + 1)
    u = np.array([dx, dy]) / max(length, 1e-9) * (length / (n - 1))  # one step along the segment
    a = max(1, round(math.sqrt(n)))
    b = max(1, round(n / a))
    first = np.round(np.outer(np.arange(a) - (a - 1) / 2, u)).astype(int)
    second = np.round(np.outer((np.arange(b) - (b - 1) / 2) * a, u)).astype(int)
    return _shift_reduce(_shift_reduce(img, first, reduce), second, reduce)


def _same_motion(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return abs(a[0] - b[0]) < 0.05 and abs(a[1] - b[1]) < 0.05


def _hull(p: F64) -> F64:
    return np.asarray(cv2.convexHull(p.astype(np.float32)).reshape(-1, 2), np.float64)


def _id_counts(ids: NDArray[np.uint16], n: int) -> NDArray[np.int64]:
    """Pixels per id 0..n (0's count left at 0: nobody asks for the table's). Objects cover a small
    part of a frame, so counting only the covered pixels is 3-4x faster than a histogram of all."""
    return np.bincount(ids[ids > 0], minlength=n + 1)


def _union_area(polys: list[F64]) -> float:
    """Area in px of the union of polygons, rasterized at 4x so edge pixels count fairly."""
    ss = 4
    allp = np.concatenate(polys)
    x0, y0 = np.floor(allp.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(allp.max(axis=0)).astype(int) + 2
    m = np.zeros(((y1 - y0) * ss, (x1 - x0) * ss), np.uint8)
    for p in polys:
        cv2.fillPoly(m, [np.round((p - (x0, y0)) * ss * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
    return float(m.sum()) / (ss * ss) * CARD_FILL


DIE_NORMALS = {1: (0, 0, 1), 6: (0, 0, -1), 2: (0, 1, 0), 5: (0, -1, 0), 3: (1, 0, 0), 4: (-1, 0, 0)}
_FACE_AXES = {
    1: ((1, 0, 0), (0, 1, 0)),
    6: ((1, 0, 0), (0, -1, 0)),
    2: ((1, 0, 0), (0, 0, 1)),
    5: ((1, 0, 0), (0, 0, -1)),
    3: ((0, 1, 0), (0, 0, 1)),
    4: ((0, 1, 0), (0, 0, -1)),
}
