"""A Hold'em script played out (Poker Games): hole cards in rotation from the button's left, a burn
before each street, three-one-one on the board, the showdown and the pot as the rules give it.

The Pai Gow table serves: hole cards lie in each seat's front-hand area, the board in pile slots
2 to 6, burns by the muck spot.
"""

from __future__ import annotations

from typing import ClassVar

from monitor.geometry import TableLayout
from monitor.render.rounds import script as S
from monitor.render.rounds.play_base import CARD_THICK, MUCK, EventLog, Player, along, key_of, seat_angle
from monitor.render.rounds.timeline import Pose, Track
from monitor.rules.cards import STANDARD_52, parse_card

STREETS = {"flop": (3, (2, 3, 4)), "turn": (1, (5,)), "river": (1, (6,))}


class HoldemPlayer(Player):
    deck_cards = STANDARD_52
    defaults: ClassVar[dict[str, float]] = {
        "round_start": 1.0,
        "shuffle": 2.0,
        "burn": 0.8,
        "board": 1.2,
        "fold": 0.8,
        "show_hands": 0.8,
        "award_pot": 1.5,
        "round_end": 2.0,
        "wait": 1.0,
    }

    def __init__(self, script: S.Script, layout: TableLayout, log: EventLog, t0: float, source: str) -> None:
        super().__init__(script, layout, log, t0, source)
        self.game = script.game
        self.button: int | None = None
        self.players: list[int] = []
        self.holes: dict[int, list[Track]] = {}
        self.board: list[Track] = []
        self.burns: list[Track] = []
        self.folded: set[int] = set()
        self.streets: list[str] = []

    def act_round_start(self, a: S.RoundStart, t: float, d: float) -> None:
        if a.button_seat is None or len(a.players) < 2:
            raise self.fail("a poker round needs button_seat and at least two players")
        if len(set(a.players)) != len(a.players):
            raise self.fail(f"players: a seat is listed twice in {a.players}")
        self.button = button = a.button_seat
        n = 10
        self.players = sorted(a.players, key=lambda s: (s - button - 1) % n)
        fields: dict[str, object] = {
            "game": self.game,
            "button_seat": a.button_seat,
            "players": sorted(a.players),
        }
        if a.round_id:
            fields["round_id"] = a.round_id
        self.ev("round_started", t, "operator", **fields)

    def act_deal_holes(self, a: S.DealHoles, t: float, d: float) -> float:
        if not self.players:
            raise self.fail("no round_start with players before the deal")
        ct = a.card_time
        dealt: list[Track] = []
        k = 0
        for rnd in range(2):
            for seat in self.players:
                k += 1
                tr = self.draw()
                up = k in a.expose
                c = self.layout.seat(seat).front_hand.center
                ang = seat_angle(self.layout, seat)
                x, y = along((float(c[0]), float(c[1])), ang, (rnd - 0.5) * 40.0)
                t0 = t + (k - 1) * ct
                self.deal_to(
                    tr,
                    t0,
                    t0 + 0.75 * ct,
                    Pose(x, y, ang + float(self.rng.normal(0, 3)), rnd * CARD_THICK, up),
                )
                self.holes.setdefault(seat, []).append(tr)
                dealt.append(tr)
                self.ev("hole_dealt", t0 + 0.75 * ct, seat=seat, face_up=up, card=key_of(tr) if up else None)
        self.dealing_hand(t, ct, dealt)
        return k * ct + 0.3

    def act_burn(self, a: S.BurnCard, t: float, d: float) -> None:
        tr = self.draw()
        self.deal_to(
            tr,
            t + 0.1 * d,
            t + 0.7 * d,
            Pose(
                MUCK[0] + float(self.rng.normal(0, 3)),
                MUCK[1],
                float(self.rng.normal(0, 4)),
                len(self.burns) * CARD_THICK,
            ),
        )
        self.burns.append(tr)
        x, y = self.deck_spot()
        self.dealer_arm(
            t,
            t + 0.8 * d,
            [
                (t, x, y - 45, 40.0),
                (t + 0.7 * d, MUCK[0], MUCK[1] - 45, 40.0),
                (t + 0.8 * d, MUCK[0], MUCK[1] - 120, 90.0),
            ],
        )
        self.ev("burn", t + 0.7 * d, face_up=False, card=None)

    def act_board(self, a: S.Board, t: float, d: float) -> None:
        n, slots = STREETS[a.street]
        new = []
        for j in range(n):
            tr = self.draw()
            c = self.layout.pile(slots[j]).center
            t0 = t + j * 0.25 * d
            self.deal_to(
                tr,
                t0,
                t0 + 0.5 * d,
                Pose(
                    float(c[0]) + float(self.rng.normal(0, 2)),
                    float(c[1]) + float(self.rng.normal(0, 2)),
                    float(self.rng.normal(0, 2)),
                    0.0,
                    True,
                ),
            )
            new.append(tr)
        self.board += new
        x, y = self.deck_spot()
        c = self.layout.pile(slots[-1]).center
        self.dealer_arm(
            t,
            t + d,
            [
                (t, x, y - 45, 40.0),
                (t + 0.75 * d, float(c[0]), float(c[1]) - 45, 40.0),
                (t + d, float(c[0]), float(c[1]) - 150, 90.0),
            ],
        )
        self.streets.append(a.street)
        self.ev(
            "board_dealt", t + (n - 1) * 0.25 * d + 0.5 * d, street=a.street, cards=[key_of(tr) for tr in new]
        )

    def act_fold(self, a: S.Fold, t: float, d: float) -> None:
        if a.seat not in self.holes:
            raise self.fail(f"seat {a.seat} holds no cards")
        for tr in self.holes[a.seat]:
            p = tr.last
            tr.move(
                t + 0.1 * d,
                t + 0.7 * d,
                Pose(MUCK[0] + float(self.rng.normal(0, 8)), MUCK[1] + 40, p.angle, 1.0 + p.z, False),
            )
            self.burns.append(tr)
        self.folded.add(a.seat)
        c = self.layout.seat(a.seat).front_hand.center
        self.player_arm(a.seat, t, t + 0.5 * d, (float(c[0]), float(c[1])))
        self.ev("player_folded", t + 0.4 * d, seat=a.seat)

    def live(self) -> list[int]:
        return [s for s in self.players if s not in self.folded]

    def act_show_hands(self, a: S.ShowHands, t: float, d: float) -> float:
        live = self.live()
        for k, seat in enumerate(live):
            t0 = t + k * d
            for tr in self.holes[seat]:
                p = tr.last
                tr.move(t0 + 0.1 * d, t0 + 0.6 * d, Pose(p.x, p.y, p.angle, p.z, True))
            c = self.layout.seat(seat).front_hand.center
            self.player_arm(seat, t0, t0 + 0.8 * d, (float(c[0]), float(c[1])))
            self.ev("hand_shown", t0 + 0.65 * d, seat=seat, cards=[key_of(tr) for tr in self.holes[seat]])
        return max(len(live), 1) * d

    def act_award_pot(self, a: S.AwardPot, t: float, d: float) -> None:
        from monitor.rules.games.poker import showdown

        live = self.live()
        board = [parse_card(key_of(tr)) for tr in self.board]
        hands = {f"seat {s}": [parse_card(key_of(tr)) for tr in self.holes[s]] for s in live}
        pot = a.dollars * 100
        result = showdown(self.game, board, hands, pot=pot)
        awards = [
            {"seat": int(who.split()[1]), "amount": amount}
            for share in result.pots
            for who, amount in share.shares.items()
        ]
        for aw in awards:
            seat = int(aw["seat"])
            spot = self.chip_spot(seat, None)
            self.chips.setdefault((seat, None), []).extend(
                self.place_chips((seat, None), max(1, int(aw["amount"]) // 100), t + 0.5 * d)
            )
            self.dealer_arm(
                t,
                t + 0.8 * d,
                [
                    (t, 0.0, -200.0, 80.0),
                    (t + 0.5 * d, spot[0], spot[1] - 80, 40.0),
                    (t + 0.8 * d, 0.0, -250.0, 80.0),
                ],
            )
        self.ev("pot_awarded", t + 0.6 * d, pot=pot, awards=awards)

    def act_round_end(self, a: S.RoundEnd, t: float, d: float) -> None:
        everything = self.deck + self.board + self.burns + [tr for h in self.holes.values() for tr in h]
        self.clear_cards(everything, t, 0.6 * d)
        for tracks in self.chips.values():
            for tr in tracks:
                tr.end = min(tr.end, t + 0.7 * d)
        self.dealer_arm(t, t + 0.6 * d, [(t, -300, 100, 40.0), (t + 0.6 * d, 0, -300, 40.0)])
        self.ev("round_ended", t + 0.9 * d, "operator")
