"""The games of the Poker Games rulebook as a state machine over events.

Checks the deal against the game's deal structure (``monitor.rules.games``: hole cards per
player, a burn before each street, three-one-one on the board), cards exposed on the deal,
cards the game's deck does not hold, the same card seen twice, and the pot at showdown
against ``monitor.rules.games.poker.showdown`` (the wrong hand paid, a hi-lo split done wrong).
Push-Nine and Pan pots are judged by ``monitor.procedure.showdown_judges`` (the Push-9 ranking
and push pots; Pan melds, foul hands and the winner's collection).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from monitor.events.schema import (
    BoardDealt,
    Burn,
    Event,
    EventBase,
    Game,
    HandShown,
    HoleDealt,
    MeldsShown,
    PlayerFolded,
    PotAwarded,
    RoundStarted,
)
from monitor.procedure.alerting import AlertSink, money
from monitor.procedure.history import PokerHistory, PokerSeatRecord
from monitor.procedure.paigow_rules import card
from monitor.procedure.showdown_judges import (
    PotJudgement,
    check_pan_hand,
    judge_pan,
    judge_push_nine,
    push_nine_unawarded,
)
from monitor.rules.errors import RulesError
from monitor.rules.games import pan, push_nine
from monitor.rules.games.deal import DealStructure
from monitor.rules.games.pan import HandCheck
from monitor.rules.games.poker import GAMES, LowRule, showdown

STREETS = ("flop", "turn", "river")
STREET_CARDS = {"flop": 3, "turn": 1, "river": 1}


def deal_structure(game: Game) -> DealStructure:
    if game.value in GAMES:
        return GAMES[game.value].deal_structure()
    if game is Game.PUSH_NINE:
        return push_nine.deal_structure()
    if game is Game.PAN:
        return pan.deal_structure()
    raise RulesError(f"no deal structure for {game.value}")


def _shares(d: dict[int, int]) -> str:
    return ", ".join(f"seat {s} {money(a)}" for s, a in sorted(d.items())) or "nobody"


class PokerRound:
    def __init__(self, table_id: str, round_id: str, start: RoundStarted, sink: AlertSink) -> None:
        self.table_id = table_id
        self.round_id = round_id
        self.game = start.game
        self.start = start
        self.sink = sink
        self.last_media = start.media_time
        self.structure = deal_structure(start.game)
        self.deck = self.structure.deck
        self.poker = GAMES.get(start.game.value)
        self.button = start.button_seat
        self.players = list(start.players)
        self.holes: dict[int, list[str | None]] = {}
        self.hole_events: dict[int, list[HoleDealt]] = {}
        self.exposed: list[tuple[str | None, HoleDealt]] = []
        self.burns = 0
        self.board: list[str] = []
        self.streets: list[str] = []
        self.folded: set[int] = set()
        self.shown: dict[int, list[str]] = {}
        self.melds: dict[int, tuple[list[list[str]], list[str]]] = {}  # Pan: seat -> (melds, held)
        self.pan_checks: dict[int, HandCheck] = {}
        self.hand_names: dict[int, str] = {}
        self.homes: dict[str, list[tuple[str, EventBase]]] = {}
        self.holes_judged = False
        self.awarded: dict[int, int] = {}
        self.expected: dict[int, int] | None = None
        self.note: str | None = None
        self.pot: int | None = None
        self.alert_ids: list[str] = []
        self.alert_codes: list[str] = []

    # event type -> handler (filled in below the class, one table for every round)
    handlers: ClassVar[dict[str, Callable[[Any, Any], None]]] = {}

    def handles(self, etype: str) -> bool:
        return etype in self.handlers

    def on_event(self, event: Event) -> None:
        self.last_media = event.media_time
        self.handlers[event.type](self, event)

    def _ignore(self, event: Event) -> None:
        return None

    def _alert(
        self, code: str, key: str, evidence: Sequence[EventBase], details: dict[str, Any] | None = None,
        **facts: Any,
    ) -> None:
        a = self.sink.raise_alert(code, key, evidence, game=self.game, round_id=self.round_id, facts=facts,
                                  details=details)
        if a is not None:
            self.alert_ids.append(a.id)
            self.alert_codes.append(a.code)

    def _misdeal(self, event: Event) -> None:
        self.note = "misdeal declared"

    # ---- cards ---------------------------------------------------------------------------------

    def _see(self, text: str | None, where: str, event: EventBase) -> None:
        if text is None:
            return
        c = card(text)
        if c not in self.deck.faces:
            self._alert("card_not_in_deck", f"{text}:{where}", [event], card=text, where=where,
                        game=self.structure.game)
            return
        seen = self.homes.setdefault(text, [])
        if any(w == where for w, _ in seen):
            return
        seen.append((where, event))
        if len(seen) > self.deck.copies:
            (w1, e1), (w2, e2) = seen[0], seen[-1]
            self._alert("poker_duplicate_card", text, [e1, e2], card=text, first=w1, second=w2)

    def _hole(self, event: HoleDealt) -> None:
        self.holes.setdefault(event.seat, []).append(event.card)
        self.hole_events.setdefault(event.seat, []).append(event)
        if event.face_up:
            self.exposed.append((event.card, event))
            if len(self.exposed) >= 2:
                shown = ", ".join(c or "unread card" for c, _ in self.exposed)
                self._alert("poker_cards_exposed", "deal", [e for _, e in self.exposed],
                            count=len(self.exposed), cards=shown)
            else:
                self._alert("poker_card_exposed", f"{event.seat}:{event.card}", [event],
                            card=event.card or "a card", seat=event.seat)
        self._see(event.card, f"seat {event.seat}", event)

    def _judge_holes(self, trigger: EventBase) -> None:
        if self.holes_judged:
            return
        self.holes_judged = True
        expected = self.structure.hole_cards
        seats = sorted(set(self.players) | set(self.holes))
        for seat in seats:
            n = len(self.holes.get(seat, []))
            if n != expected:
                evidence: list[EventBase] = [*self.hole_events.get(seat, [])[-1:], trigger]
                self._alert("hole_count_wrong", str(seat), evidence, seat=seat, count=n,
                            game=self.structure.game, expected=expected)

    def _burn(self, event: Burn) -> None:
        self._judge_holes(event)
        self.burns += 1
        self._see(event.card, "the burn pile", event)

    def _board(self, event: BoardDealt) -> None:
        self._judge_holes(event)
        street = event.street.value
        expected = STREET_CARDS[street]
        if len(event.cards) != expected:
            self._alert("board_count_wrong", street, [event], street=street, count=len(event.cards),
                        expected=f"{expected} card{'s' if expected > 1 else ''}")
        self.streets.append(street)
        if self.structure.burns:
            need = len(self.streets)
            if self.burns < need:
                self._alert("burn_missing", street, [event], street=street, burns=self.burns)
                self.burns = need  # count the missed burn once, so later streets are judged on their own
        for c in event.cards:
            self._see(c, "the board", event)
        self.board.extend(event.cards)

    def _melds_shown(self, event: MeldsShown) -> None:
        self._judge_holes(event)
        seat = event.seat
        melds, held = [list(m) for m in event.melds], list(event.held)
        self.melds[seat] = (melds, held)
        self.shown[seat] = [c for m in melds for c in m] + held
        for c in self.shown[seat]:
            self._see(c, f"seat {seat}", event)
        if self.game is not Game.PAN:
            self.note = f"melds shown at seat {seat}: {self.game.value} has no melds"
            return
        check = check_pan_hand(seat, melds, held)
        if isinstance(check, str):
            self.note = check
            return
        self.pan_checks[seat] = check
        self.hand_names[seat] = "; ".join(m.reason for m in check.melds)
        for m in check.invalid_melds:
            text = " ".join(c.text for c in m.cards)
            self._alert("pan_invalid_meld", f"{seat}:{text}", [event], seat=seat,
                        reason=m.reason.removeprefix("not a valid condition: ") + " (not a valid condition)")
        for why in check.fouls:
            self._alert("pan_foul_hand", str(seat), [event], seat=seat, why=why)

    def _folded(self, event: PlayerFolded) -> None:
        self.folded.add(event.seat)

    def _shown(self, event: HandShown) -> None:
        self._judge_holes(event)
        self.shown[event.seat] = list(event.cards)
        for c in event.cards:
            self._see(c, f"seat {event.seat}", event)

    # ---- the pot -------------------------------------------------------------------------------

    def _order(self, seats: Sequence[int]) -> list[int]:
        """Seat order starting left of the button (it breaks odd-chip ties)."""
        b = self.button or 0
        return sorted(seats, key=lambda s: (s - b - 1) % 100)

    def _pot(self, event: PotAwarded) -> None:
        self.pot = event.pot
        for a in event.awards:
            self.awarded[a.seat] = self.awarded.get(a.seat, 0) + a.amount
        if self.game is Game.PUSH_NINE or self.game is Game.PAN:
            judged = self._push_nine_pot(event) if self.game is Game.PUSH_NINE else self._pan_pot()
            self._judged_pot(event, judged)
            return
        if self.poker is None:
            self.note = f"showdown of {self.game.value} is not judged"
            return
        contenders = [s for s in self._order(list(self.shown)) if s not in self.folded]
        if not contenders:
            self.note = "no hand shown at showdown: award not judged"
            return
        hands = {f"seat {s}": [card(c) for c in self.shown[s]] for s in contenders}
        try:
            result = showdown(self.game.value, [card(c) for c in self.board], hands, pot=event.pot)
        except RulesError as exc:
            self.note = f"showdown not judged: {exc}"
            return
        expected = {int(who.split()[1]): amount for who, amount in result.won.items()}
        self.expected = expected
        paid = {s: a for s, a in self.awarded.items() if a}
        if paid == expected:
            return
        pr = result.pots[0]
        details = {"paid": paid, "expected": expected}
        if self.poker.low is LowRule.EIGHT_OR_BETTER and pr.low_winners:
            self._alert("hilo_split_wrong", "pot", [event], details=details, paid=_shares(paid),
                        expected=_shares(expected), why=pr.reason)
        else:
            self._alert("pot_wrong_winner", "pot", [event], details=details, share="the", paid=_shares(paid),
                        expected=_shares(expected), why=pr.reason)

    def _contenders(self) -> list[int]:
        return [s for s in self._order(list(self.shown)) if s not in self.folded]

    def _paid(self) -> dict[int, int]:
        return {s: a for s, a in self.awarded.items() if a}

    def _push_nine_pot(self, event: PotAwarded) -> PotJudgement:
        return judge_push_nine(self.shown, self._contenders(), event.pot, self._paid())

    def _pan_pot(self) -> PotJudgement:
        everyone = sorted(set(self.players) | set(self.holes) | set(self.melds))
        return judge_pan(everyone, sorted(self.folded), self.pan_checks, self._paid())

    def _judged_pot(self, event: PotAwarded, judged: PotJudgement) -> None:
        self.expected = judged.expected
        self.note = judged.note
        self.hand_names.update(judged.hands)
        if judged.code is not None:
            details = {"paid": self._paid(), "expected": judged.expected}
            self._alert(judged.code, "pot", [event], details=details, **judged.facts)

    # ---- the end -------------------------------------------------------------------------------

    def close(self, trigger: EventBase | None, complete: bool) -> PokerHistory:
        if self.game is Game.PUSH_NINE and self.pot is None and self.note is None:
            judged = push_nine_unawarded(self.shown, self._contenders())  # e.g. a tie: a push pot, no award
            self.note = judged.note
            self.hand_names.update(judged.hands)
        seats = sorted(set(self.players) | set(self.holes) | set(self.shown) | set(self.hand_names))
        records = [
            PokerSeatRecord(
                seat=s, hole=self.holes.get(s, []), folded=s in self.folded, shown=self.shown.get(s),
                hand=self.hand_names.get(s),
                awarded=self.awarded.get(s, 0),
                expected=self.expected.get(s, 0) if self.expected is not None else None,
            )
            for s in seats
        ]
        return PokerHistory(
            table_id=self.table_id, round_id=self.round_id, game=self.game, complete=complete,
            media_begin=self.start.media_time, media_end=self.last_media, button_seat=self.button,
            burns=self.burns, board=list(self.board), pot=self.pot, seats=records, showdown_note=self.note,
            alerts=list(self.alert_ids), alert_codes=list(self.alert_codes),
        )


PokerRound.handlers.update({
    "shuffle_done": PokerRound._ignore,
    "bets_closed": PokerRound._ignore,
    "misdeal_declared": PokerRound._misdeal,
    "hole_dealt": PokerRound._hole,
    "burn": PokerRound._burn,
    "board_dealt": PokerRound._board,
    "player_folded": PokerRound._folded,
    "hand_shown": PokerRound._shown,
    "melds_shown": PokerRound._melds_shown,
    "pot_awarded": PokerRound._pot,
    "bet_placed": PokerRound._ignore,
    "bet_changed": PokerRound._ignore,
})
