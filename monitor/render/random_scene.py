"""Seeded random table moments and cameras, for datasets (domain randomization).

A scene is one plausible instant of a Pai Gow round: the deal in progress (piles of seven in the
centre, dealt offsets), piles delivered to the seats, hands set face down, the showdown (hands
face up, fanned or spread, the banker's hand at the banker's place), or loose exposed cards; with
bets in stacks and spreads on the betting spots, a few stacks resting on or against cards, three
dice, and arms reaching in. Every card of one scene comes from one shuffled 53-card deck, so no
card appears twice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from monitor.geometry import Rect, TableLayout, default_layout
from monitor.render.camera import Camera
from monitor.render.scene import (
    DENOMINATIONS,
    CardObj,
    ChipStack,
    Die,
    Occluder,
    Scene,
    arm_outline,
)
from monitor.rules.cards import PAI_GOW_53

PHASES = ("deal", "delivered", "set", "showdown", "scatter")
CARD_THICKNESS_MM = 0.3
SKIN = [(150, 180, 225), (120, 150, 200), (90, 120, 170), (60, 85, 130), (45, 60, 95)]  # BGR
SLEEVES = [(30, 30, 30), (40, 40, 120), (110, 60, 30), (200, 200, 200), (60, 90, 60), (20, 20, 60)]


@dataclass
class _Deck:
    keys: list[str]
    pos: int = 0

    def draw(self, n: int) -> list[str]:
        out = self.keys[self.pos : self.pos + n]
        self.pos += len(out)
        return out

    @property
    def left(self) -> int:
        return len(self.keys) - self.pos


def _seat_angle(layout: TableLayout, seat: int) -> float:
    """Card angle (deg) that makes a card read upright from the seat's player."""
    back = layout.seat(seat).back_hand
    return back.angle_deg if isinstance(back, Rect) else 0.0


def _rot(v: tuple[float, float], deg: float) -> tuple[float, float]:
    a = math.radians(deg)
    return (v[0] * math.cos(a) - v[1] * math.sin(a), v[0] * math.sin(a) + v[1] * math.cos(a))


class SceneMaker:
    """Builds random scenes for one deck design on one table style."""

    def __init__(
        self,
        rng: np.random.Generator,
        design: str,
        table_style: str,
        table_variant: int = 0,
        layout: TableLayout | None = None,
        arms: float = 0.35,
        variants: int = 1,
    ) -> None:
        self.rng = rng
        self.design = design
        self.layout = layout or default_layout()
        self.scene = Scene(layout=self.layout, table_style=table_style, table_variant=table_variant)
        keys = [c.text for c in PAI_GOW_53]
        rng.shuffle(keys)
        self.deck = _Deck(keys)
        self.arms = arms
        self.variants = variants
        az = rng.uniform(0, 2 * math.pi)
        self.scene.light_dir = (0.35 * math.cos(az), 0.35 * math.sin(az), 1.0)

    # -- primitives --------------------------------------------------------------------------------
    def card(
        self,
        key: str,
        x: float,
        y: float,
        angle: float,
        face_up: bool,
        z: float = 0.0,
        pile: str | None = None,
    ) -> CardObj:
        r = self.rng
        c = CardObj(
            key,
            x,
            y,
            angle,
            face_up=face_up,
            design=self.design,
            z=z,
            pile=pile,
            variant=int(r.integers(self.variants)),
            bend=float(r.normal(0, 0.35)) if r.random() < 0.5 else 0.0,
        )
        self.scene.add(c)
        return c

    def pile(
        self,
        x: float,
        y: float,
        n: int,
        angle: float,
        pile_id: str,
        face_up: bool = False,
        z0: float = 0.0,
        spread_mm: float = 2.0,
    ) -> None:
        """A squared pile as dealt: each card a little off the one below."""
        r = self.rng
        for k, key in enumerate(self.deck.draw(n)):
            self.card(
                key,
                x + r.normal(0, spread_mm),
                y + r.normal(0, spread_mm),
                angle + r.normal(0, 2.5),
                face_up,
                z=z0 + k * CARD_THICKNESS_MM,
                pile=pile_id,
            )

    def fan(
        self,
        x: float,
        y: float,
        n: int,
        angle: float,
        face_up: bool,
        step_mm: float,
        fan_deg: float,
        z0: float = 0.0,
    ) -> None:
        """A hand spread sideways (along the card's own x axis), each card turned a little more."""
        r = self.rng
        for k, key in enumerate(self.deck.draw(n)):
            off = (k - (n - 1) / 2) * step_mm
            dx, dy = _rot((off, -abs(off) * 0.08 * (fan_deg / 10)), angle)
            self.card(
                key,
                x + dx + r.normal(0, 1),
                y + dy + r.normal(0, 1),
                angle - (k - (n - 1) / 2) * fan_deg + r.normal(0, 1.5),
                face_up,
                z=z0 + k * CARD_THICKNESS_MM,
            )

    def chips(self, x: float, y: float, radius: float) -> None:
        r = self.rng
        if r.random() < 0.7:  # stacks
            for _ in range(int(r.integers(1, 4))):
                a, d = r.uniform(0, 2 * math.pi), r.uniform(0, radius * 0.6)
                self.scene.add(
                    ChipStack(
                        x + d * math.cos(a),
                        y + d * math.sin(a),
                        int(r.choice(DENOMINATIONS[:5])),
                        int(r.integers(1, 12)),
                        angle_deg=float(r.uniform(0, 360)),
                    )
                )
        else:  # a spread of single chips, some overlapping
            den = int(r.choice(DENOMINATIONS[:5]))
            for _ in range(int(r.integers(2, 7))):
                a, d = r.uniform(0, 2 * math.pi), r.uniform(0, radius)
                self.scene.add(
                    ChipStack(
                        x + d * math.cos(a), y + d * math.sin(a), den, 1, angle_deg=float(r.uniform(0, 360))
                    )
                )

    def dice(self) -> None:
        r = self.rng
        cx, cy = self.layout.spot("dice")
        for _ in range(3):
            self.scene.add(
                Die(
                    cx + r.uniform(-60, 60),
                    cy + r.uniform(-45, 45),
                    int(r.integers(1, 7)),
                    float(r.uniform(0, 90)),
                    roll=int(r.integers(4)),
                )
            )

    def arm(self, start: tuple[float, float], target: tuple[float, float]) -> None:
        r = self.rng
        s = (start[0], start[1], float(r.uniform(180, 320)))
        e = (target[0] + r.normal(0, 30), target[1] + r.normal(0, 30), float(r.uniform(25, 90)))
        outline, sleeve = arm_outline(s, e, width=float(r.uniform(70, 95)), spread=float(r.uniform(0.1, 0.9)))
        skin = SKIN[int(r.integers(len(SKIN)))]
        sleeve_col = SLEEVES[int(r.integers(len(SLEEVES)))] if r.random() < 0.8 else None
        # a third of the hands are moving while the shutter is open (dealing, reaching): motion blur
        motion = (float(r.normal(0, 14)), float(r.normal(0, 14))) if r.random() < 0.33 else (0.0, 0.0)
        self.scene.add(Occluder(outline, skin, sleeve_col, sleeve if sleeve_col else None, motion=motion))

    # -- phases ------------------------------------------------------------------------------------
    def build(self, phase: str | None = None) -> Scene:
        r = self.rng
        phase = phase or str(r.choice(PHASES, p=[0.2, 0.15, 0.15, 0.3, 0.2]))
        lay = self.layout
        bets = [s.number for s in lay.seats if r.random() < 0.75] or [int(r.integers(1, 8))]
        for s in bets:
            c = lay.seat(s).betting_spot.center
            self.chips(c[0], c[1], 55)
        if r.random() < 0.8:
            self.dice()
        getattr(self, f"_{phase}")(bets)
        self._chips_on_cards()
        for _ in range(int(r.poisson(self.arms * 1.5))):
            if r.random() < 0.35:
                d = lay.dealer_position
                tgt = lay.pile(int(r.integers(1, 8))).center if r.random() < 0.6 else lay.spot("banker")
                self.arm((d[0] + r.uniform(-250, 250), d[1]), tgt)
            else:
                seat = lay.seat(int(r.integers(1, 8)))
                tgt = seat.back_hand.center if r.random() < 0.6 else seat.betting_spot.center
                self.arm(seat.position, tgt)
        return self.scene

    def _chips_on_cards(self) -> None:
        """A few stacks resting on or against cards (a payout set down by a hand, a pushed bet), so
        chips hide parts of cards as they do on a real table."""
        r = self.rng
        cards = self.scene.cards()
        if not cards:
            return
        for _ in range(int(r.poisson(0.7))):
            c = cards[int(r.integers(len(cards)))]
            a, d = r.uniform(0, 2 * math.pi), r.uniform(15, 55)
            x, y = c.x + d * math.cos(a), c.y + d * math.sin(a)
            under = [k.z for k in cards if abs(k.x - x) < 55 and abs(k.y - y) < 55]
            self.scene.add(
                ChipStack(
                    x,
                    y,
                    int(r.choice(DENOMINATIONS[:5])),
                    int(r.integers(1, 6)),
                    z=max(under) + CARD_THICKNESS_MM if under else 0.0,
                    angle_deg=float(r.uniform(0, 360)),
                )
            )

    def _deal(self, bets: list[int]) -> None:
        r = self.rng
        lay = self.layout
        full = int(r.integers(0, 8))
        for p in range(1, 8):
            c = lay.pile(p).center
            n = (
                7
                if p <= full
                else int(r.integers(0, 8))
                if p == full + 1
                else int(r.integers(max(0, 6 - full), 7))
            )
            n = min(n, self.deck.left)
            if n:
                self.pile(c[0], c[1], n, r.normal(0, 4), f"pile{p}")
        if self.deck.left >= 4 and r.random() < 0.6:
            c = lay.stub.center
            self.fan(c[0], c[1], min(4, self.deck.left), r.normal(0, 5), False, float(r.uniform(0, 15)), 0.0)
        if self.deck.left and r.random() < 0.4:  # an exposed card
            c = lay.spot("center")
            self.card(
                self.deck.draw(1)[0],
                c[0] + r.uniform(-400, 400),
                c[1] + r.uniform(-60, 60),
                float(r.uniform(0, 360)),
                True,
            )

    def _delivered(self, bets: list[int]) -> None:
        r = self.rng
        for s in range(1, 8):
            if self.deck.left < 7:
                break
            if r.random() < 0.3:  # still in the centre
                c = self.layout.pile(s).center
                self.pile(c[0], c[1], 7, r.normal(0, 4), f"pile{s}")
            else:
                seat = self.layout.seat(s)
                c = seat.front_hand.center
                self.pile(
                    c[0] + r.normal(0, 15),
                    c[1] + r.normal(0, 15),
                    7,
                    _seat_angle(self.layout, s) + r.normal(0, 8),
                    f"seat{s}",
                    spread_mm=3.0,
                )

    def _set(self, bets: list[int]) -> None:
        self._hands(bets, face_up_prob=0.1)

    def _showdown(self, bets: list[int]) -> None:
        r = self.rng
        self._hands(bets, face_up_prob=0.9)
        if self.deck.left >= 7:
            c = self.layout.spot("banker")
            ang = 180.0 if r.random() < 0.6 else 0.0
            if r.random() < 0.5:
                self.fan(c[0] - 110, c[1], 2, ang + r.normal(0, 3), True, float(r.uniform(20, 66)), 0)
                self.fan(c[0] + 70, c[1], 5, ang + r.normal(0, 3), True, float(r.uniform(14, 40)), 0)
            else:
                self.fan(c[0], c[1], 7, ang + r.normal(0, 3), True, float(r.uniform(16, 60)), 0)

    def _hands(self, bets: list[int], face_up_prob: float) -> None:
        r = self.rng
        for s in bets:
            if self.deck.left < 7:
                break
            seat = self.layout.seat(s)
            ang = _seat_angle(self.layout, s) + r.normal(0, 6)
            up = bool(r.random() < face_up_prob)
            b, f = seat.back_hand.center, seat.front_hand.center
            style = r.random()
            if style < 0.5:  # fanned, overlapping
                self.fan(b[0], b[1], 5, ang, up, float(r.uniform(12, 30)), float(r.uniform(0, 6)))
                self.fan(f[0], f[1], 2, ang, up, float(r.uniform(12, 40)), float(r.uniform(0, 6)))
            elif style < 0.8:  # spread apart, barely touching
                self.fan(b[0], b[1], 5, ang, up, float(r.uniform(30, 45)), 0)
                self.fan(f[0], f[1], 2, ang, up, float(r.uniform(40, 66)), 0)
            else:  # squared piles
                self.pile(b[0], b[1], 5, ang, f"seat{s}.back", up)
                self.pile(f[0], f[1], 2, ang, f"seat{s}.front", up)

    def _scatter(self, bets: list[int]) -> None:
        """Loose cards all over the felt, mostly face up (for identity variety)."""
        r = self.rng
        x0, y0, x1, y1 = self.layout.bounds
        n = int(r.integers(15, 45))
        for key in self.deck.draw(n):
            for _ in range(20):
                x, y = r.uniform(x0 + 150, x1 - 150), r.uniform(y0 + 150, y1 - 120)
                if self.layout.zone_at(x, y) not in ("off_table", "tray"):
                    break
            self.card(key, x, y, float(r.uniform(0, 360)), bool(r.random() < 0.85), z=float(r.uniform(0, 1)))


def random_scene(
    rng: np.random.Generator,
    design: str,
    table_style: str,
    table_variant: int = 0,
    phase: str | None = None,
    arms: float = 0.35,
    variants: int = 1,
) -> Scene:
    return SceneMaker(rng, design, table_style, table_variant, arms=arms, variants=variants).build(phase)


def random_camera(
    rng: np.random.Generator,
    resolution: tuple[int, int] = (1920, 1080),
    card_px_1080: tuple[float, float] = (40.0, 70.0),
    oblique: float = 0.3,
    distortion: float = 0.5,
    yaw_spread: float = 35.0,
) -> Camera:
    """A camera over a random part of the table; a card is ``card_px_1080`` px wide scaled to the width."""
    w, h = resolution
    card_px = rng.uniform(*card_px_1080) * w / 1920
    view_w = w * 63.0 / card_px  # mm across the image at the aim point
    tx = float(np.clip(rng.normal(0, 300), -800, 800))
    ty = float(np.clip(rng.normal(130, 180), -250, 500))
    if rng.random() < oblique:
        tilt = math.radians(rng.uniform(22, 50))
        az = math.radians(rng.choice([-90.0, 0.0, 90.0, 180.0]) + rng.normal(0, 25))  # side the camera is on
    else:
        tilt = math.radians(abs(rng.normal(0, 6)))
        az = rng.uniform(0, 2 * math.pi)
    dist_mm = rng.uniform(1900, 3300)
    horiz = dist_mm * math.sin(tilt)
    # azimuth 0: camera on the dealer's side (-y) looking toward the players
    eye = (tx + horiz * math.sin(az), ty - horiz * math.cos(az), dist_mm * math.cos(tilt))
    yaw = math.radians(rng.normal(0, yaw_spread)) if rng.random() < 0.8 else rng.uniform(0, 2 * math.pi)
    up_dir = az + yaw
    up = (-math.sin(up_dir), math.cos(up_dir), 0.0)
    hfov = math.degrees(2 * math.atan(view_w / 2 / dist_mm))
    dist = (0.0, 0.0, 0.0, 0.0, 0.0)
    if rng.random() < distortion:
        dist = (
            float(rng.uniform(-0.22, 0.05)),
            float(rng.uniform(-0.02, 0.06)),
            float(rng.normal(0, 0.001)),
            float(rng.normal(0, 0.001)),
            0.0,
        )
    off = (float(rng.normal(0, w * 0.01)), float(rng.normal(0, h * 0.01)))
    return Camera.from_pose(w, h, hfov, eye, (tx, ty, 0.0), up, dist, off)
