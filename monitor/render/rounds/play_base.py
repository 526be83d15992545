"""What every scripted round shares: the clock of true events, the deck, chips, arms and table spots.

A player (``PaiGowPlayer``, ``HoldemPlayer``) walks the script's actions in order; each action
moves objects on the :class:`Timeline` and stamps the events a perfect observer would report, at
the media time the thing is seen to happen (a card's ``card_dealt`` when it lands). Face-down cards
are reported without identity, as a camera would see them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, ClassVar

import numpy as np

from monitor.geometry import Rect, TableLayout
from monitor.procedure.synth import EPOCH
from monitor.render.rounds.script import Action, ScriptError, Shuffle
from monitor.render.rounds.timeline import ArmTrack, Pose, Timeline, Track, follow, path
from monitor.render.scene import CardObj, ChipStack
from monitor.rules.cards import Card

EventDict = dict[str, Any]
CARD_THICK = 0.3
CHIP_VALUES = (1000, 500, 100, 25, 5, 1)  # dollars, largest first
MAX_STACK = 20
MUCK = (360.0, -250.0)  # Hold'em's muck on the default layout (Pai Gow's is Player.muck(), by the stub)
SKINS = [(150, 180, 225), (120, 150, 200), (90, 120, 170), (60, 85, 130)]
SLEEVES = [(30, 30, 30), (40, 40, 120), (110, 60, 30), (60, 90, 60)]


@dataclass
class EventLog:
    """True events of one recording: seq numbers in order, media times as the script plays."""

    table_id: str
    seq: int = 0
    events: list[EventDict] = field(default_factory=list)

    def add(self, etype: str, t: float, source: str = "vision", **fields: Any) -> EventDict:
        e: EventDict = {
            "type": etype,
            "table_id": self.table_id,
            "seq": self.seq,
            "media_time": round(t, 3),
            "wall_time": (EPOCH + timedelta(seconds=t)).isoformat().replace("+00:00", "Z"),
            "source": source,
            "confidence": 1.0,
            **fields,
        }
        self.seq += 1
        self.events.append(e)
        return e


def chip_split(dollars: int) -> list[tuple[int, int]]:
    """Dollars as chip stacks (denomination, count), fewest chips, at most MAX_STACK a stack."""
    out: list[tuple[int, int]] = []
    left = dollars
    for v in CHIP_VALUES:
        n, left = divmod(left, v)
        while n > 0:
            out.append((v, min(n, MAX_STACK)))
            n -= MAX_STACK
    return out


def seat_angle(layout: TableLayout, seat: int) -> float:
    back = layout.seat(seat).back_hand
    return back.angle_deg if isinstance(back, Rect) else 0.0


def along(center: tuple[float, float], angle: float, offset: float, up: float = 0.0) -> tuple[float, float]:
    """A point ``offset`` mm along a card's x axis (and ``up`` along its y axis) turned ``angle`` deg."""
    a = math.radians(angle)
    return (
        center[0] + offset * math.cos(a) - up * math.sin(a),
        center[1] + offset * math.sin(a) + up * math.cos(a),
    )


def key_of(tr: Track) -> str:
    """The card a track carries."""
    if not isinstance(tr.obj, CardObj):
        raise TypeError(f"track {tr.order} is a {type(tr.obj).__name__}, not a card")
    return tr.obj.key


class Player:
    """The shared machinery; subclasses implement ``act_<name>`` for their game's actions."""

    deck_cards: tuple[Card, ...] = ()
    defaults: ClassVar[dict[str, float]] = {}

    def __init__(self, script: Any, layout: TableLayout, log: EventLog, t0: float, source: str) -> None:
        self.script = script
        self.layout = layout
        self.log = log
        self.t = t0
        self.start = t0  # the round's first moment
        self.source = source
        self.rng = np.random.default_rng(script.seed)
        self.tl = Timeline(layout, script.design, script.table_style)
        self.deck: list[Track] = []
        self.loose: list[Track] = []  # cards out of play, cleared at the end
        self.chips: dict[tuple[int, str | None], list[Track]] = {}
        self.where = source
        self.skin = SKINS[int(self.rng.integers(len(SKINS)))]

    # ---- plumbing ------------------------------------------------------------------------------

    def fail(self, msg: str) -> ScriptError:
        return ScriptError(f"{self.where}: {msg}")

    def ev(self, etype: str, t: float, source: str = "vision", **fields: Any) -> EventDict:
        return self.log.add(etype, t, source, **fields)

    def play(self) -> Timeline:
        for i, a in enumerate(self.script.actions):
            self.where = f"{self.source}: action {i} ({a.do})"
            d = a.duration if a.duration is not None else self.defaults.get(a.do, 1.0)
            handler = getattr(self, f"act_{a.do}")
            used = handler(a, self.t, d)
            self.t += used if used is not None else d
        self.tl.duration = self.t
        return self.tl

    # ---- the dealer's places, from the layout -------------------------------------------------

    def shoulder(self, right: bool = True) -> tuple[float, float, float]:
        x, y = self.layout.dealer_position
        return (float(x) + (200.0 if right else -200.0), float(y) + 60.0, 260.0)

    def muck(self) -> tuple[float, float]:
        """Beside the stub, toward the table's middle and the dealer."""
        sx, sy = self.deck_spot()
        return (sx - math.copysign(200.0, sx), sy - 50.0)

    def tray_spot(self) -> tuple[float, float]:
        """Where lost chips and cleared cards go: the tray, or in front of the dealer without one."""
        if self.layout.tray is not None:
            c = self.layout.tray.center
            return (float(c[0]), float(c[1]))
        x, y = self.layout.dealer_position
        return (float(x), float(y) + 290.0)

    def dealer_arm(
        self, t0: float, t1: float, points: list[tuple[float, float, float, float]], right: bool = True
    ) -> None:
        self.tl.arm(
            ArmTrack(
                t0,
                t1,
                self.shoulder(right),
                path(points),
                skin=(110, 140, 190),
                sleeve=(25, 25, 25),
            )
        )

    def dealing_hand(
        self, t: float, card_time: float, dealt: list[Track], unseen: tuple[int, int] | None = None
    ) -> None:
        """The dealer's right hand carrying each card of a deal in turn (one every ``card_time`` s);
        while deal numbers ``unseen`` (first, last) are dealt, the hand is out of the camera's view."""
        if not dealt:
            return

        def hand(tt: float) -> tuple[float, float, float]:
            k = min(int((tt - t) / card_time), len(dealt) - 1)
            return follow(dealt[k])(tt)

        n = len(dealt)
        lo, hi = unseen if unseen is not None else (n + 1, n + 1)
        lo, hi = max(1, lo), min(n, hi)
        # stretches of deal numbers [a, b], each seen or not
        cuts = [(1, lo - 1, True), (lo, hi, False), (hi + 1, n, True)] if lo <= hi else [(1, n, True)]
        for a, b, seen in cuts:
            if a > b:
                continue
            self.tl.arm(
                ArmTrack(
                    t + (a - 1) * card_time,
                    t + b * card_time,
                    self.shoulder(),
                    hand,
                    skin=(110, 140, 190),
                    sleeve=(25, 25, 25),
                    seen=seen,
                )
            )

    def player_arm(self, seat: int, t0: float, t1: float, target: tuple[float, float]) -> None:
        px, py = self.layout.seat(seat).position
        sh = (px, py, 300.0)
        mid = (t0 + t1) / 2
        pts = [
            (t0, px + (target[0] - px) * 0.5, py + (target[1] - py) * 0.5, 150.0),
            (mid, target[0], target[1], 45.0),
            (t1, px + (target[0] - px) * 0.5, py + (target[1] - py) * 0.5, 150.0),
        ]
        k = seat % len(SLEEVES)
        self.tl.arm(ArmTrack(t0, t1, sh, path(pts), skin=SKINS[(seat + 1) % len(SKINS)], sleeve=SLEEVES[k]))

    # ---- cards ---------------------------------------------------------------------------------

    def new_card(self, key: str, t: float, pose: Pose) -> Track:
        obj = CardObj(key, pose.x, pose.y, pose.angle, face_up=pose.face_up, design=self.script.design)
        return self.tl.add(obj, t, pose)

    def deck_spot(self) -> tuple[float, float]:
        c = self.layout.stub.center
        return (float(c[0]), float(c[1]))

    def build_deck(self, a: Shuffle) -> list[str]:
        if a.cards is not None:
            keys = list(a.cards)
        else:
            keys = [c.text for c in self.deck_cards]
            rng = np.random.default_rng(a.seed if a.seed is not None else self.script.seed)
            rng.shuffle(keys)
        for c in a.remove:
            if c not in keys:
                raise self.fail(f"remove: {c} is not in the deck")
            keys.remove(c)
        for k, c in enumerate(a.extra):
            # an extra card goes somewhere in the middle of the deck, seeded
            pos = int(np.random.default_rng((a.seed or 0) + 101 * k).integers(0, len(keys) + 1))
            keys.insert(pos, c)
        fixed: set[int] = set()
        for n, c in sorted(a.place.items()):
            if n > len(keys):
                raise self.fail(f"place: position {n} is past the end of a {len(keys)}-card deck")
            j = next((j for j, k in enumerate(keys) if k == c and j not in fixed and j != n - 1), None)
            if keys[n - 1] == c:
                fixed.add(n - 1)
                continue
            if j is None:
                raise self.fail(f"place: {c} is not in the deck (add a second one with extra)")
            keys[n - 1], keys[j] = keys[j], keys[n - 1]
            fixed.add(n - 1)
        return keys

    def act_shuffle(self, a: Shuffle, t: float, d: float) -> None:
        for tr in self.deck:  # a deck left from before (after a misdeal it was cleared)
            tr.end = t
        keys = self.build_deck(a)
        x, y = self.deck_spot()
        n = len(keys)
        self.deck = []
        for i, k in enumerate(keys):
            pose = Pose(
                x + float(self.rng.normal(0, 0.6)),
                y + float(self.rng.normal(0, 0.6)),
                float(self.rng.normal(0, 1.0)),
                (n - 1 - i) * CARD_THICK,
            )
            tr = self.new_card(k, t, pose)
            # riffle: the deck splits in two halves and comes back together
            side = -55.0 if i % 2 else 55.0
            tr.move(t + 0.15 * d, t + 0.4 * d, pose.moved(side, 0.0))
            tr.move(t + 0.55 * d, t + 0.85 * d, pose)
            self.deck.append(tr)
        self.dealer_arm(
            t,
            t + d,
            [(t, x - 120, y - 60, 80.0), (t + 0.5 * d, x - 70, y - 40, 50.0), (t + d, x - 120, y - 60, 80.0)],
            right=False,
        )
        self.ev("shuffle_done", t + d)

    def draw(self) -> Track:
        if not self.deck:
            raise self.fail("the deck is empty: no card left to deal")
        return self.deck.pop(0)

    def deal_to(self, tr: Track, t0: float, t1: float, pose: Pose) -> None:
        tr.move(t0, t1, pose, lift=12.0)

    def clear_cards(self, tracks: list[Track], t: float, d: float) -> None:
        """Sweep cards to the dealer and off the table."""
        tx, ty = self.tray_spot()
        dx, dy = tx, ty + 30.0
        for tr in {id(tr): tr for tr in tracks}.values():
            if tr.end <= t:
                continue
            p = tr.last
            tr.move(t, t + 0.8 * d, Pose(dx + float(self.rng.normal(0, 10)), dy, p.angle, p.z, False))
            tr.end = t + 0.8 * d

    # ---- chips ---------------------------------------------------------------------------------

    def chip_spot(self, seat: int, bettor: str | None) -> tuple[float, float]:
        c = self.layout.seat(seat).betting_spot.center
        if bettor is None:
            return (float(c[0]), float(c[1]))
        # a backline bettor's chips sit behind the seat's, toward the rail
        px, py = self.layout.seat(seat).position
        v = np.array([px - c[0], py - c[1]])
        v = v / np.linalg.norm(v) * 95.0
        return (float(c[0] + v[0]), float(c[1] + v[1]))

    def place_chips(
        self, key: tuple[int, str | None], dollars: int, t: float, spot: tuple[float, float] | None = None
    ) -> list[Track]:
        x0, y0 = spot or self.chip_spot(*key)
        stacks = chip_split(dollars)
        out = []
        for j, (den, count) in enumerate(stacks):
            off = (j - (len(stacks) - 1) / 2) * 42.0
            x = x0 + off + float(self.rng.normal(0, 2))
            y = y0 + float(self.rng.normal(0, 2))
            obj = ChipStack(x, y, den, count, angle_deg=float(self.rng.uniform(0, 360)))
            out.append(self.tl.add(obj, t, Pose(x, y, obj.angle_deg, 0.0)))
        return out

    def take_chips(self, tracks: list[Track], t: float, d: float, to: tuple[float, float]) -> None:
        for tr in tracks:
            if tr.end <= t:
                continue
            p = tr.last
            tr.move(t, t + d, Pose(to[0], to[1], p.angle, 0.0))
            tr.end = t + d

    def act_wait(self, a: Action, t: float, d: float) -> None:
        return None
