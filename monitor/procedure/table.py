"""One table: rounds one after another, the bank across rounds, devices, and bad input.

A :class:`TableMonitor` receives one table's events already in sequence order. It opens a
round on ``round_started`` (closing a round left open), hands the round's events to that
game's state machine, closes it on ``round_ended`` with a hand history, and looks after what
spans rounds: who banks (rules 3, 40) and whether the cameras and the dice reader are up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from monitor.alerts.model import Alert
from monitor.events.jsonl import RejectedLine
from monitor.events.schema import (
    BankerChanged,
    DeviceLost,
    DeviceRecovered,
    Event,
    EventBase,
    Game,
    RoundEnded,
    RoundStarted,
    Source,
)
from monitor.procedure.alerting import AlertSink
from monitor.procedure.banker import BankerWatch
from monitor.procedure.history import HandHistory
from monitor.procedure.paigow import PaiGowRound
from monitor.procedure.paigow_rules import PaiGowRules
from monitor.procedure.poker import PokerRound
from monitor.rules.profile import PaiGowProfile

HistoryCallback = Callable[[HandHistory], None]
Round = PaiGowRound | PokerRound


def _device_facts(event: DeviceLost | DeviceRecovered) -> dict[str, str]:
    return {"device": event.device.value.replace("_", " "), "name": f"{event.name} " if event.name else ""}


def _listed(rnd: PaiGowRound, alert: Alert | None) -> None:
    """The round's history lists an alert raised for it by the table (None: none, or already raised)."""
    if alert is not None:
        rnd.alert_ids.append(alert.id)
        rnd.alert_codes.append(alert.code)


class TableMonitor:
    def __init__(
        self,
        table_id: str,
        profile: PaiGowProfile,
        sink: AlertSink,
        on_history: HistoryCallback | None = None,
        rules: PaiGowRules | None = None,
    ) -> None:
        self.table_id = table_id
        self.profile = profile
        self.sink = sink
        self.rules = rules or PaiGowRules(profile)
        self.on_history = on_history
        self.round: Round | None = None
        self.histories: list[HandHistory] = []
        self.banker = BankerWatch(profile)
        self.pending_banker: BankerChanged | None = None
        self.devices: dict[tuple[str, str], DeviceLost] = {}
        self.last_round_id: str | None = None
        self._idle_noted: str | None = "\x00"

    # ---- events --------------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        rnd = self.round
        if isinstance(event, BankerChanged) and isinstance(rnd, PaiGowRound) and rnd.banker_seat is None \
                and event.seat is not None:
            self._identified(rnd, event, event.seat)
            return
        if rnd is not None:
            handler = rnd.handlers.get(event.type)
            if handler is not None:
                rnd.last_media = event.media_time
                handler(rnd, event)
                return
        if isinstance(event, RoundStarted):
            self._start(event)
        elif isinstance(event, RoundEnded):
            self._end(event)
        elif isinstance(event, BankerChanged):
            self.pending_banker = event
        elif isinstance(event, DeviceLost):
            self._lost(event)
        elif isinstance(event, DeviceRecovered):
            self._recovered(event)
        else:
            self._out_of_phase(event)

    def _start(self, event: RoundStarted) -> None:
        if self.round is not None:
            self._close(None, complete=False)
        round_id = event.round_id or f"r{event.seq}"
        if event.game is Game.PAIGOW:
            seat = event.banker_seat
            evidence: list[EventBase] = [event]
            if seat is None and self.pending_banker is not None:
                seat = self.pending_banker.seat
            if seat is None and event.source is not Source.VISION:
                # a console that does not say keeps the bank where it was; vision cannot know yet
                # (the bank moves, rule 3): it names the seat when its hand goes to the banker's place
                seat = self.banker.banker
            if self.pending_banker is not None:
                evidence.insert(0, self.pending_banker)
                self.pending_banker = None
            alert = None if seat is None else self._new_banker(seat, evidence, round_id)
            rnd = PaiGowRound(self.table_id, round_id, event, seat, self.rules, self.sink)
            _listed(rnd, alert)
            self.round = rnd
        else:
            self.round = PokerRound(self.table_id, round_id, event, self.sink)

    def _identified(self, rnd: PaiGowRound, event: BankerChanged, seat: int) -> None:
        """The banker of a round opened without one, named during it (by vision): whose turn the bank
        was (rules 3, 40) and what waited for the banker's seat (the deliveries, rules 8, 9, 21)."""
        _listed(rnd, self._new_banker(seat, [event], rnd.round_id))
        rnd.banker_identified(seat)

    def _new_banker(self, seat: int, evidence: list[EventBase], round_id: str) -> Alert | None:
        """``seat`` banks this round: the alert if it was not its turn (rules 3, 40)."""
        why = self.banker.new_banker(seat)
        if why is None:
            return None
        return self.sink.raise_alert("banker_not_eligible", f"{seat}", evidence, game=Game.PAIGOW,
                                     round_id=round_id, facts={"seat": seat, "why": why})

    def _end(self, event: RoundEnded) -> None:
        if self.round is None:
            self._out_of_phase(event)
            return
        self._close(event, complete=True)

    def _close(self, trigger: EventBase | None, complete: bool) -> None:
        rnd = self.round
        assert rnd is not None
        history = rnd.close(trigger, complete)
        history.profile = self.profile.name
        if isinstance(rnd, PaiGowRound) and complete:
            self.banker.hand_played(rnd.wager_seats())
        self.round = None
        self.last_round_id = rnd.round_id
        self.histories.append(history)
        if self.on_history is not None:
            self.on_history(history)

    def _out_of_phase(self, event: Event) -> None:
        if self._idle_noted == self.last_round_id:
            return  # one note per idle stretch
        self._idle_noted = self.last_round_id
        when = "with no round open (waiting for round_started)"
        self.sink.raise_alert("event_out_of_phase", f"idle after {self.last_round_id}", [event], game=None,
                              round_id=None, facts={"type": event.type, "seq": event.seq, "when": when})

    def _round_ref(self) -> tuple[Game | None, str | None]:
        rnd = self.round
        if rnd is None:
            return None, None
        return (Game.PAIGOW if isinstance(rnd, PaiGowRound) else rnd.game), rnd.round_id

    # ---- devices -------------------------------------------------------------------------------

    def _lost(self, event: DeviceLost) -> None:
        self.devices[(event.device.value, event.name)] = event
        game, round_id = self._round_ref()
        facts = {**_device_facts(event), "detail": f" ({event.detail})" if event.detail else ""}
        key = f"{event.device.value}:{event.name}:{event.seq}"
        self.sink.raise_alert("device_lost", key, [event], game=game, round_id=round_id, facts=facts)

    def _recovered(self, event: DeviceRecovered) -> None:
        lost = self.devices.pop((event.device.value, event.name), None)
        game, round_id = self._round_ref()
        evidence: list[EventBase] = [lost, event] if lost is not None else [event]
        gap = f"{event.media_time - lost.media_time:.1f} s" if lost is not None else "an unknown time"
        self.sink.raise_alert(
            "device_recovered", f"{event.device.value}:{event.name}:{event.seq}", evidence, game=game,
            round_id=round_id,
            facts={**_device_facts(event), "gap": gap},
        )

    # ---- input that is not an event ------------------------------------------------------------

    def rejected(self, item: RejectedLine) -> None:
        game, round_id = self._round_ref()
        details: dict[str, Any] = {"field": item.field}
        if item.seq is not None:
            details["seq"] = item.seq
        self.sink.raise_alert(
            "event_invalid", f"{item.location}:{item.raw}", [], game=game, round_id=round_id,
            facts={"location": item.location, "field": item.field, "problem": item.problem},
            details=details, raw_input=item.raw, location=item.location, media_time=item.media_time,
        )

    def sequence_alert(self, code: str, key: str, evidence: list[EventBase], facts: dict[str, Any]) -> None:
        game, round_id = self._round_ref()
        self.sink.raise_alert(code, key, evidence, game=game, round_id=round_id, facts=facts)

    def data_gap(self) -> None:
        """Some event of this table was lost or unreadable: the round judges what needs every event
        (the card-by-card count) no further."""
        if isinstance(self.round, PaiGowRound):
            self.round.data_gap()

    def finish(self) -> None:
        """End of input: a round still open is closed as incomplete."""
        if self.round is not None:
            self._close(None, complete=False)
