"""A Pai Gow script played out: the dealer's actions as moving cards, chips and dice, and true events.

The round follows Livermore's rules the way ``monitor.procedure.synth`` does (same rules objects: the
left-right-left deal of rule 6, the dice -> seat map of rule 8, house way, showdown and settlement in
action order, rules 13 and 23), except that here each step is also placed on the table and timed,
and a script can break any step to make a fault.
"""

from __future__ import annotations

from typing import Any, ClassVar

from monitor.geometry import TableLayout
from monitor.procedure.paigow import serpentine_pile
from monitor.procedure.paigow_rules import PaiGowRules, cards
from monitor.render.card_art import CARD_W_MM
from monitor.render.rounds import script as S
from monitor.render.rounds.play_base import CARD_THICK, EventLog, Player, along, key_of, seat_angle
from monitor.render.rounds.timeline import Pose, Track
from monitor.render.scene import Die
from monitor.rules.cards import PAI_GOW_53
from monitor.rules.paigow.setting import Setting, all_settings, is_foul
from monitor.rules.paigow.settlement import BankerWager, Bet, settle
from monitor.rules.paigow.showdown import SpotResult, decide_spot

Key = tuple[int, str | None]


class PaiGowPlayer(Player):
    deck_cards = PAI_GOW_53
    defaults: ClassVar[dict[str, float]] = {
        "round_start": 1.0,
        "bet": 0.8,
        "no_more_bets": 0.8,
        "shuffle": 2.0,
        "count_stub": 1.5,
        "replace_exposed": 1.5,
        "misdeal": 2.0,
        "action_pile": 1.0,
        "roll_dice": 1.6,
        "collect_dead": 0.8,
        "expose_banker": 1.6,
        "set_banker": 1.4,
        "change_bet": 1.0,
        "payouts": 0.5,
        "round_end": 2.0,
        "wait": 1.0,
    }

    def __init__(
        self, script: S.Script, layout: TableLayout, log: EventLog, t0: float, source: str, rules: PaiGowRules
    ) -> None:
        super().__init__(script, layout, log, t0, source)
        self.rules = rules
        self.banker: int | None = None
        self.wagers: dict[Key, int] = {}  # dollars
        self.closed: dict[Key, int] | None = None  # wagers as they stood at no more bets
        self.piles: dict[int, list[Track]] = {p: [] for p in range(1, 8)}
        self.exposed: list[tuple[int, Track]] = []  # (pile, card) face up in a pile
        self.action_pile: int | None = None
        self.dice: list[int] | None = None
        self.dice_tracks: list[Track] = []
        self.at_seat: dict[int, list[Track]] = {}
        self.seat_pile: dict[int, int] = {}
        self.collected: set[int] = set()
        self.settings: dict[int, Setting] = {}
        self.hand_tracks: dict[int, tuple[list[Track], list[Track]]] = {}
        self.banker_setting: Setting | None = None
        self.banker_tracks: list[Track] = []
        self.results: dict[int, SpotResult] = {}

    # ---- money before the deal ---------------------------------------------------------------

    def act_round_start(self, a: S.RoundStart, t: float, d: float) -> None:
        if a.banker_seat is None:
            raise self.fail("banker_seat: a Pai Gow round needs the Player-Dealer's seat")
        self.banker = a.banker_seat
        fields: dict[str, Any] = {"game": "paigow", "banker_seat": a.banker_seat}
        if a.round_id:
            fields["round_id"] = a.round_id
        self.ev("round_started", t, "operator", **fields)

    def wagering(self) -> set[int]:
        src = self.closed if self.closed is not None else self.wagers
        return {s for (s, _), v in src.items() if v > 0 and s != self.banker}

    def act_bet(self, a: S.Bet, t: float, d: float) -> float | None:
        key = (a.seat, a.bettor)
        if key in self.wagers:
            raise self.fail(
                f"seat {a.seat} already has a bet{'' if a.bettor is None else ' by ' + a.bettor}: "
                "use change_bet"
            )
        if self.script.habits.bets_before_start and self.closed is None:
            # already down when the camera's first frame is taken: no arm, no time
            self.chips[key] = self.place_chips(key, a.dollars, self.start)
            self.wagers[key] = a.dollars
            self.ev("bet_placed", self.start, seat=a.seat, amount=a.dollars * 100, bettor=a.bettor)
            return 0.0
        spot = self.chip_spot(*key)
        self.player_arm(a.seat, t, t + 0.8 * d, spot)
        self.chips[key] = self.place_chips(key, a.dollars, t + 0.45 * d)
        self.wagers[key] = a.dollars
        self.ev("bet_placed", t + 0.5 * d, seat=a.seat, amount=a.dollars * 100, bettor=a.bettor)
        return None

    def act_no_more_bets(self, a: S.NoMoreBets, t: float, d: float) -> None:
        self.closed = dict(self.wagers)
        self.ev("bets_closed", t + 0.3 * d, "operator")

    def act_change_bet(self, a: S.ChangeBet, t: float, d: float) -> None:
        key = (a.seat, a.bettor)
        before = self.wagers.get(key, 0)
        spot = self.chip_spot(*key)
        self.player_arm(a.seat, t, t + 0.8 * d, spot)
        for tr in self.chips.get(key, []):
            tr.end = t + 0.45 * d
        self.chips[key] = self.place_chips(key, a.dollars, t + 0.45 * d) if a.dollars else []
        self.wagers[key] = a.dollars
        self.ev(
            "bet_changed",
            t + 0.5 * d,
            seat=a.seat,
            before=before * 100,
            after=a.dollars * 100,
            bettor=a.bettor,
        )

    # ---- the deal ------------------------------------------------------------------------------

    def slot_pose(self, pile: int, row: int, face_up: bool) -> Pose:
        c = self.layout.pile(pile).center
        return Pose(
            float(c[0] + self.rng.normal(0, 2.0)),
            float(c[1] + self.rng.normal(0, 2.0)),
            float(self.rng.normal(0, 2.5)),
            row * CARD_THICK,
            face_up,
        )

    def act_deal(self, a: S.Deal, t: float, d: float) -> float:
        ct = a.card_time
        for n in a.expose:
            if n > a.cards:
                raise self.fail(f"expose: card {n} is past the {a.cards} cards dealt")
        dealt: list[Track] = []
        for k in range(1, a.cards + 1):
            tr = self.draw()
            pile = serpentine_pile(k)
            up = k in a.expose
            t0 = t + (k - 1) * ct
            t1 = t0 + 0.75 * ct
            self.deal_to(tr, t0, t1, self.slot_pose(pile, len(self.piles[pile]), up))
            self.piles[pile].append(tr)
            dealt.append(tr)
            if up:
                self.exposed.append((pile, tr))
            self.ev("card_dealt", t1, pile=pile, face_up=up, card=key_of(tr) if up else None)
        self.dealing_hand(t, ct, dealt, self.script.habits.hand_unseen)
        return a.cards * ct + 0.3

    def act_count_stub(self, a: S.CountStub, t: float, d: float) -> None:
        x, y = self.deck_spot()
        n = len(self.deck)
        # spread: side by side, 24 mm apart; squared: left in one stack, edges within a millimetre or so
        squared = self.script.habits.stub == "squared"
        step, jit = (0.0, 0.25) if squared else (24.0, 1.0)
        for i, tr in enumerate(self.deck):
            tr.move(
                t,
                t + 0.6 * d,
                Pose(
                    x + (i - (n - 1) / 2) * step,
                    y + jit * float(self.rng.normal(0, 2)),
                    jit * float(self.rng.normal(0, 2)),
                    i * CARD_THICK,
                    False,
                ),
            )
        self.dealer_arm(
            t,
            t + 0.7 * d,
            [
                (t, x - 60, y - 90, 60.0),
                (t + 0.6 * d, x + 30, y - 70, 45.0),
                (t + 0.7 * d, x + 60, y - 120, 90.0),
            ],
        )
        counts = [len(self.piles[p]) for p in range(1, 8)]
        self.ev("piles_complete", t + 0.8 * d, counts=counts)
        self.ev("stub_counted", t + 0.85 * d, n=n)

    def act_replace_exposed(self, a: S.ReplaceExposed, t: float, d: float) -> None:
        if not self.exposed:
            raise self.fail("no exposed card to replace")
        pile, card = self.exposed.pop(0)
        p = card.last
        muck = self.muck()
        card.move(t, t + 0.4 * d, Pose(muck[0], muck[1], p.angle, 0.0, True))
        self.loose.append(card)
        new = self.draw()
        self.deal_to(new, t + 0.45 * d, t + 0.9 * d, Pose(p.x, p.y, p.angle, p.z, False))
        stack = self.piles[pile]
        stack[stack.index(card)] = new
        self.dealer_arm(
            t,
            t + d,
            [
                (t, p.x, p.y - 45, 40.0),
                (t + 0.4 * d, muck[0], muck[1] - 45, 40.0),
                (t + 0.45 * d, *self.deck_spot(), 40.0),
                (t + 0.9 * d, p.x, p.y - 45, 40.0),
                (t + d, p.x, p.y - 120, 90.0),
            ],
        )
        self.ev("exposed_card_replaced", t + 0.9 * d, pile=pile, card=None)

    def all_cards(self) -> list[Track]:
        out = [tr for p in self.piles.values() for tr in p] + self.deck + self.loose + self.banker_tracks
        for tracks in self.at_seat.values():
            out += tracks
        return list({id(tr): tr for tr in out}.values())

    def act_misdeal(self, a: S.Misdeal, t: float, d: float) -> None:
        self.clear_cards(self.all_cards(), t, d)
        self.dealer_arm(t, t + 0.8 * d, [(t, -300, -60, 40.0), (t + 0.8 * d, 300, -200, 40.0)])
        self.ev("misdeal_declared", t + 0.9 * d, "operator", reason=a.reason or "misdeal")
        self.piles = {p: [] for p in range(1, 8)}
        self.deck, self.loose, self.exposed = [], [], []
        self.at_seat, self.seat_pile = {}, {}

    # ---- action --------------------------------------------------------------------------------

    def need_banker(self) -> int:
        if self.banker is None:
            raise self.fail("no round_start with a banker_seat before this action")
        return self.banker

    def act_action_pile(self, a: S.ActionPile, t: float, d: float) -> None:
        b = self.need_banker()
        self.action_pile = a.pile
        c = self.layout.pile(a.pile).center
        self.player_arm(b, t, t + 0.9 * d, (float(c[0]), float(c[1]) + 90.0))
        self.ev("action_pile_chosen", t + 0.5 * d, pile=a.pile)

    def act_roll_dice(self, a: S.RollDice, t: float, d: float) -> None:
        for tr in self.dice_tracks:
            tr.end = t
        cx, cy = self.layout.spot("dice")
        self.dice_tracks = []
        for j, v in enumerate(a.values):
            x, y = (
                float(cx) + (j - 1) * 55.0 + float(self.rng.normal(0, 6)),
                float(cy) + float(self.rng.normal(0, 15)),
            )
            start = Pose(
                x - 60, y + 40, float(self.rng.uniform(0, 90)), 0.0, False, int(self.rng.integers(1, 7))
            )
            tr = self.tl.add(Die(x, y, v, roll=int(self.rng.integers(4))), t, start)
            for q in (0.2, 0.4):  # tumbling: each key shows another face
                tr.key(
                    t + q * d,
                    Pose(
                        x - 60 * (1 - q * 2),
                        y + 40 * (1 - q * 2),
                        float(self.rng.uniform(0, 90)),
                        0.0,
                        False,
                        int(self.rng.integers(1, 7)),
                    ),
                )
            tr.key(t + 0.6 * d, Pose(x, y, float(self.rng.uniform(0, 90)), 0.0, False, v))
            self.dice_tracks.append(tr)
        self.dice = list(a.values)
        if self.closed is None:
            self.closed = dict(self.wagers)  # the dice are exposed: bets are closed (rule 36)
        self.ev("dice_rolled", t + 0.7 * d, "dice_reader", values=list(a.values))

    def seat_spot(self, seat: int) -> tuple[float, float]:
        s = self.layout.seat(seat)
        f, b = s.front_hand.center, s.back_hand.center
        return (float(f[0] + b[0]) / 2, float(f[1] + b[1]) / 2)

    def act_deliver(self, a: S.Deliver, t: float, d: float) -> float:
        b = self.need_banker()
        if self.action_pile is None or self.dice is None:
            raise self.fail("deliver needs action_pile and roll_dice first")
        plan = dict(self.rules.delivery_map(self.action_pile, self.dice, b))
        for pile, seat in a.wrong.items():
            # a wrong delivery swaps two piles: the pile meant for `seat` goes to this pile's seat
            other = next(p for p, s in plan.items() if s == seat)
            plan[other], plan[pile] = plan[pile], seat
        pt = a.pile_time
        for k, (pile, seat) in enumerate(plan.items()):
            t0, t1 = t + k * pt, t + k * pt + 0.85 * pt
            slot = self.layout.pile(pile).center
            spot = self.seat_spot(seat)
            ang = seat_angle(self.layout, seat)
            tracks = self.piles[pile]
            for tr in tracks:
                p = tr.last
                dx, dy = along((0.0, 0.0), ang, p.x - float(slot[0]), p.y - float(slot[1]))
                tr.move(t0, t1, Pose(spot[0] + dx, spot[1] + dy, p.angle + ang, p.z, p.face_up))
            if tracks:
                self.dealer_arm(
                    t0,
                    t1 + 0.1 * pt,
                    [
                        (t0, float(slot[0]), float(slot[1]) - 45, 40.0),
                        (t1, spot[0], spot[1] - 45, 40.0),
                        (t1 + 0.1 * pt, spot[0], spot[1] - 120, 90.0),
                    ],
                )
            self.at_seat[seat] = tracks
            self.seat_pile[seat] = pile
            self.ev("pile_delivered", t1, pile=pile, seat=seat)
        self.piles = {p: [] for p in range(1, 8)}
        return len(plan) * pt + 0.3

    def act_collect_dead(self, a: S.CollectDead, t: float, d: float) -> float:
        b = self.need_banker()
        dead = [
            s for s in sorted(self.at_seat) if s != b and s not in self.wagering() and s not in self.collected
        ]
        for k, seat in enumerate(dead):
            t0 = t + k * d
            spot = self.seat_spot(seat)
            self.clear_cards(self.at_seat[seat], t0, d)
            self.dealer_arm(
                t0, t0 + 0.8 * d, [(t0, spot[0], spot[1] - 45, 40.0), (t0 + 0.8 * d, *self.tray_spot(), 40.0)]
            )
            self.collected.add(seat)
            self.ev("dead_hand_collected", t0 + 0.8 * d, seat=seat)
        return max(len(dead), 1) * d

    # ---- setting -------------------------------------------------------------------------------

    def seven(self, seat: int) -> list[Track]:
        tracks = self.at_seat.get(seat)
        if not tracks:
            raise self.fail(f"seat {seat} has no hand in front of it")
        return tracks

    def choose(self, keys: list[str], foul: bool) -> Setting:
        seven = cards(keys)
        if len(seven) != 7 or len(set(seven)) != 7:
            raise self.fail(f"a hand of {len(seven)} cards ({' '.join(keys)}) cannot be set 2/5")
        hw = self.rules.house_way(seven)
        if not foul:
            return hw
        bad = [s for s in all_settings(seven) if is_foul(s, self.rules.profile)]
        if not bad:
            raise self.fail(f"no foul setting exists for {' '.join(keys)}")
        return bad[0]

    def lay_hand(
        self,
        tracks: list[Track],
        setting: Setting,
        t0: float,
        t1: float,
        front_c: tuple[float, float],
        back_c: tuple[float, float],
        ang: float,
        face_up: bool,
        step: tuple[float, float] = (34.0, 20.0),
    ) -> tuple[list[Track], list[Track]]:
        by_key = {key_of(tr): tr for tr in tracks}
        front = [by_key[c.text] for c in setting.front]
        back = [by_key[c.text] for c in setting.back]
        for group, c, st in ((back, back_c, step[1]), (front, front_c, step[0])):
            for i, tr in enumerate(group):
                x, y = along(c, ang, (i - (len(group) - 1) / 2) * st)
                tr.move(
                    t0,
                    t1,
                    Pose(
                        x + float(self.rng.normal(0, 1)),
                        y + float(self.rng.normal(0, 1)),
                        ang + float(self.rng.normal(0, 2)),
                        i * CARD_THICK,
                        face_up,
                    ),
                )
        return front, back

    def act_set_hands(self, a: S.SetHands, t: float, d: float) -> float:
        b = self.need_banker()
        seats = (
            a.seats
            if a.seats is not None
            else sorted(s for s in self.wagering() if s not in self.settings and s not in self.collected)
        )
        for s in a.foul:
            if s not in seats:
                raise self.fail(f"foul: seat {s} is not among the seats set here ({seats})")
        st = a.seat_time
        for k, seat in enumerate(seats):
            if seat == b:
                raise self.fail(f"seat {seat} is the Player-Dealer's: use set_banker")
            t0 = t + k * st
            tracks = self.seven(seat)
            setting = self.choose([key_of(tr) for tr in tracks], seat in a.foul)
            place = self.layout.seat(seat)
            fc, bc = place.front_hand.center, place.back_hand.center
            front, back = self.lay_hand(
                tracks,
                setting,
                t0 + 0.15 * st,
                t0 + 0.8 * st,
                (float(fc[0]), float(fc[1])),
                (float(bc[0]), float(bc[1])),
                seat_angle(self.layout, seat),
                False,
            )
            if a.house_way:
                self.dealer_arm(
                    t0,
                    t0 + 0.9 * st,
                    [
                        (t0, float(bc[0]), float(bc[1]) - 60, 60.0),
                        (t0 + 0.8 * st, float(fc[0]), float(fc[1]) - 45, 40.0),
                        (t0 + 0.9 * st, float(fc[0]), float(fc[1]) - 120, 90.0),
                    ],
                )
            else:
                self.player_arm(seat, t0, t0 + 0.9 * st, (float(bc[0]), float(bc[1])))
            self.settings[seat] = setting
            self.hand_tracks[seat] = (front, back)
            self.ev(
                "hand_set",
                t0 + 0.85 * st,
                seat=seat,
                front=[None, None],
                back=[None] * 5,
                house_way=a.house_way,
            )
        return max(len(seats), 1) * st

    def banker_center(self) -> tuple[float, float]:
        return self.layout.spot("banker")

    def act_expose_banker(self, a: S.ExposeBanker, t: float, d: float) -> None:
        b = self.need_banker()
        tracks = self.seven(b)
        cx, cy = self.banker_center()
        for i, tr in enumerate(tracks):
            x, y = along((cx, cy), 180.0, (i - 3) * 44.0)
            tr.move(
                t + 0.1 * d,
                t + 0.75 * d,
                Pose(
                    x,
                    y + float(self.rng.normal(0, 2)),
                    180.0 + float(self.rng.normal(0, 2)),
                    i * CARD_THICK,
                    True,
                ),
                lift=8.0,
            )
        sx, sy = self.seat_spot(b)
        self.dealer_arm(
            t,
            t + 0.8 * d,
            [(t, sx, sy - 45, 40.0), (t + 0.75 * d, cx, cy - 60, 40.0), (t + 0.8 * d, cx, cy - 140, 90.0)],
        )
        self.banker_tracks = tracks
        self.ev("banker_hand_exposed", t + 0.8 * d, cards=[key_of(tr) for tr in tracks])

    def act_set_banker(self, a: S.SetBanker, t: float, d: float) -> None:
        if not self.banker_tracks:
            raise self.fail("the Player-Dealer's hand is not exposed yet (expose_banker first)")
        setting = self.choose([key_of(tr) for tr in self.banker_tracks], a.foul)
        cx, cy = self.banker_center()
        self.lay_hand(
            self.banker_tracks,
            setting,
            t + 0.1 * d,
            t + 0.75 * d,
            (cx + 140.0, cy),
            (cx - 60.0, cy),
            180.0,
            True,
            step=(40.0, 36.0),
        )
        self.dealer_arm(
            t,
            t + 0.8 * d,
            [
                (t, cx, cy - 60, 40.0),
                (t + 0.75 * d, cx + 100, cy - 60, 40.0),
                (t + 0.8 * d, cx, cy - 140, 90.0),
            ],
        )
        self.banker_setting = setting
        self.ev(
            "banker_hand_set",
            t + 0.8 * d,
            front=[c.text for c in setting.front],
            back=[c.text for c in setting.back],
        )

    def banker_for_play(self) -> Setting:
        """The banker's setting the hands play against: a foul one is reset house way (rule 54)."""
        if self.banker_setting is None:
            raise self.fail("the Player-Dealer's hand was not set (set_banker first)")
        s = self.banker_setting
        if is_foul(s, self.rules.profile):
            return self.rules.house_way(s.cards)
        return s

    def order(self) -> list[int]:
        b = self.need_banker()
        if self.dice is None:
            raise self.fail("the dice were not rolled")
        first = self.rules.action_seat(self.dice, b)
        return self.rules.action_order(first, b)

    def lay_on_circle(self, seat: int, front: list[Track], back: list[Track], t0: float, t1: float) -> None:
        """The opened hand turned face up onto the seat's betting circle (some dealers settle there):
        the five cards fanned along the seat's line, the two beside them, apart, as a dealer lays them.

        Each card lies square to the line and a fan's next card covers all of it but a ``step`` mm
        strip with its index corner; the two groups lie ``gap`` mm apart, edge to edge, so neither
        covers the other (laid over each other, the two-card hand's first card was wholly hidden).
        The whole spread is centred on the circle."""
        c = self.layout.seat(seat).betting_spot.center
        ang = seat_angle(self.layout, seat)
        step, gap = 20.0, 15.0

        def span(n: int) -> float:  # a fan's length along the line, edge to edge
            return CARD_W_MM + (n - 1) * step

        first = -(span(len(back)) + gap + span(len(front))) / 2  # the back fan's near edge
        starts = ((back, first + CARD_W_MM / 2), (front, first + span(len(back)) + gap + CARD_W_MM / 2))
        for group, start in starts:
            for i, tr in enumerate(group):
                x, y = along((float(c[0]), float(c[1])), ang, start + i * step)
                tr.move(t0, t1, Pose(x, y, ang, 8.0 + i * CARD_THICK, True), lift=10.0)

    def act_open_hands(self, a: S.OpenHands, t: float, d: float) -> float:
        banker = self.banker_for_play()
        seats = [s for s in self.order() if s in self.settings]
        st = a.seat_time
        for k, seat in enumerate(seats):
            t0 = t + k * st
            front, back = self.hand_tracks[seat]
            if self.script.habits.opened_on_circle:
                self.lay_on_circle(seat, front, back, t0 + 0.1 * st, t0 + 0.7 * st)
            else:
                for tr in front + back:
                    p = tr.last
                    tr.move(t0 + 0.1 * st, t0 + 0.7 * st, Pose(p.x, p.y, p.angle, p.z, True))
            c = self.layout.seat(seat).back_hand.center
            self.dealer_arm(
                t0,
                t0 + 0.8 * st,
                [
                    (t0, float(c[0]), float(c[1]) - 100, 80.0),
                    (t0 + 0.4 * st, float(c[0]), float(c[1]) - 40, 40.0),
                    (t0 + 0.8 * st, float(c[0]), float(c[1]) - 150, 90.0),
                ],
            )
            s = self.settings[seat]
            self.ev(
                "hand_opened",
                t0 + 0.75 * st,
                seat=seat,
                front=[c.text for c in s.front],
                back=[c.text for c in s.back],
            )
            dealt = cards([key_of(tr) for tr in self.at_seat[seat]])
            self.results[seat] = decide_spot(
                seat, s.front, s.back, dealt, banker, self.rules.house_way, self.rules.profile
            )
        return max(len(seats), 1) * st

    # ---- money after -------------------------------------------------------------------------

    def act_payouts(self, a: S.Payouts, t: float, d: float) -> float:
        b = self.need_banker()
        wagers = self.closed if self.closed is not None else self.wagers
        if self.dice is None:
            raise self.fail("the dice were not rolled")
        bets = [
            Bet(f"seat{s}" if w is None else w, s, v * 100, seated=w is None)
            for (s, w), v in sorted(wagers.items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))
            if s != b and v > 0
        ]
        missing = sorted({bt.seat for bt in bets} - set(self.results))
        if missing:
            raise self.fail(f"seats {missing} have bets but their hands were not opened (open_hands first)")
        banker_cents = sum(v for (s, _), v in wagers.items() if s == b) * 100
        first = self.rules.action_seat(self.dice, b)
        tx, ty = self.tray_spot()
        st = settle(self.rules.profile, BankerWager("banker", b, banker_cents), bets, self.results, first)
        k = 0
        for line in st.lines:
            who: str | None = None if line.party == f"seat{line.seat}" else line.party
            amount = line.won - line.lost
            t0 = t + k * d
            key = (line.seat, who)
            if line.seat != b and key in self.chips:
                spot = self.chip_spot(*key)
                if amount < 0:
                    self.take_chips(self.chips[key], t0, 0.8 * d, self.tray_spot())
                elif amount > 0 and amount // 100 > 0:
                    self.chips[key] += self.place_chips(
                        key, amount // 100, t0 + 0.5 * d, (spot[0], spot[1] - 60.0)
                    )
                self.dealer_arm(
                    t0,
                    t0 + 0.9 * d,
                    [
                        (t0, tx, ty + 30.0, 80.0),
                        (t0 + 0.5 * d, spot[0], spot[1] - 80, 40.0),
                        (t0 + 0.9 * d, tx, ty + 30.0, 80.0),
                    ],
                )
                k += 1
            self.ev("payout", t0 + 0.6 * d, seat=line.seat, amount=amount, bettor=who)
        return max(k, 1) * d

    def act_round_end(self, a: S.RoundEnd, t: float, d: float) -> None:
        self.clear_cards(self.all_cards(), t, 0.6 * d)
        for tracks in self.chips.values():
            for tr in tracks:
                if tr.end > t:
                    tr.end = t + 0.7 * d
        for tr in self.dice_tracks:
            tr.end = min(tr.end, t + 0.5 * d)
        self.dealer_arm(t, t + 0.6 * d, [(t, -300, 200, 40.0), (t + 0.6 * d, 0, -300, 40.0)])
        self.ev("round_ended", t + 0.9 * d, "operator")
