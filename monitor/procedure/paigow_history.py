"""The hand history of a Pai Gow round, from the state the round machine kept.

The records are built from state the round machine has already validated (every value is of its
field's type: the events were validated on the way in), so they are not validated again: each model is
filled in as ``model_construct`` would, without its per-field Python loop (which costs more than the
validation it skips). Lists are copied, as validation would, so that a history never shares state with
the round. ``tests`` compare the result with ``model_validate`` of the same data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from monitor.events.schema import Game
from monitor.procedure.history import BankerRecord, PaiGowHistory, SeatRecord, WagerRecord
from monitor.rules.paigow.settlement import LineResult
from monitor.rules.paigow.showdown import Outcome

if TYPE_CHECKING:
    from monitor.procedure.paigow import PaiGowRound

# Enum values by member: a dict lookup is cheaper than the ``.value`` descriptor, once per seat and wager.
_RESULTS = {r: r.value for r in LineResult}
_OUTCOMES = {o: o.value for o in Outcome}


M = TypeVar("M", bound=BaseModel)
_object_setattr = object.__setattr__
# Fields given explicitly (``model_fields_set``), as ``model_validate`` of the same dicts would record them.
_ALL_SET = {cls: frozenset(cls.model_fields) for cls in (WagerRecord, SeatRecord, BankerRecord)}
_HISTORY_SET = frozenset(PaiGowHistory.model_fields) - {"game"}


def _trusted(cls: type[M], values: dict[str, Any], fields_set: frozenset[str]) -> M:
    """A ``cls`` holding ``values`` (every field, in field order, each already of its type), unvalidated."""
    m = cls.__new__(cls)
    _object_setattr(m, "__dict__", values)
    _object_setattr(m, "__pydantic_fields_set__", set(fields_set))
    _object_setattr(m, "__pydantic_extra__", None)
    _object_setattr(m, "__pydantic_private__", None)
    return m


def _bettor_order(wager: tuple[str | None, int]) -> str:
    return wager[0] or ""


def build_history(rnd: PaiGowRound, complete: bool) -> PaiGowHistory:
    d = rnd.deal
    st = rnd.settled if rnd.settled is not None else (
        rnd.settlement() if d.banker_setting is not None else None)
    lines = {(line.seat, line.party): line for line in st.lines} if st else {}
    results = rnd.results if st else {}
    by_seat: dict[int, list[tuple[str | None, int]]] = {}
    for (seat, bettor), amount in rnd.wagers.items():
        by_seat.setdefault(seat, []).append((bettor, amount))
    delivered = {s for s, _ in d.deliveries.values()}
    wager_seats = rnd.wager_seats()
    payouts = rnd.payouts
    seats: list[SeatRecord] = []
    wager_fields, seat_fields = _ALL_SET[WagerRecord], _ALL_SET[SeatRecord]
    for seat in sorted(set(by_seat) | set(d.seats) | delivered):
        if seat == rnd.banker_seat:
            continue
        wagers = []
        bets = by_seat.get(seat)
        if bets:
            if len(bets) > 1:
                bets.sort(key=_bettor_order)  # (a list of this function's own)
            for bettor, amount in bets:
                line = lines.get((seat, bettor or f"seat{seat}"))
                paid = payouts.get((seat, bettor))
                wagers.append(_trusted(WagerRecord, {
                    "bettor": bettor, "amount": amount,
                    "result": _RESULTS[line.result] if line else None,
                    "expected": (line.won - line.lost) if line else None,
                    "paid": paid[0] if paid else None,
                }, wager_fields))
        res = results.get(seat)
        record: dict[str, Any] = {
            "seat": seat, "pile": None, "dealt": [], "front": None, "back": None, "house_way": False,
            "foul": None, "house_way_setting": None, "outcome": None, "dead": seat not in wager_seats,
            "collected": False, "wagers": wagers,
        }
        s = d.seats.get(seat)
        if s is not None:
            pile = s.pile
            record["pile"] = pile
            if pile:
                dealt = d.pile_cards.get(pile)
                if dealt:
                    record["dealt"] = [*dealt]
            front, back = s.front, s.back
            record["front"] = None if front is None else [*front]
            record["back"] = None if back is None else [*back]
            record["house_way"], record["collected"] = s.house_way, s.collected
            if s.foul is not None:
                record["foul"] = s.foul.message
        if res is not None:
            record["outcome"] = _OUTCOMES[res.outcome]
            if res.house_way_setting is not None:
                record["house_way_setting"] = str(res.house_way_setting)
        seats.append(_trusted(SeatRecord, record, seat_fields))
    bs = d.settings_frozen or d.banker_setting
    plays = None
    if bs is not None:
        if d.banker_foul is not None and d.banker_cards and len(set(d.banker_cards)) == 7:
            plays = rnd.rules.house_way_text(d.banker_cards)
        else:
            plays = f"{' '.join(bs[0])} / {' '.join(bs[1])}"
    banker = _trusted(BankerRecord, {
        "seat": rnd.banker_seat,
        "wager": sum(a for _, a in by_seat.get(rnd.banker_seat, [])) or None if rnd.banker_seat else None,
        "cards": [*d.banker_cards] if d.banker_cards else [],
        "front": [*bs[0]] if bs else None, "back": [*bs[1]] if bs else None,
        "foul": d.banker_foul.message if d.banker_foul else None, "plays": plays,
        "money_left": st.banker.returned if st else None,
    }, _ALL_SET[BankerRecord])
    action_seat = rnd.action_seat()
    return _trusted(PaiGowHistory, {
        "table_id": rnd.table_id, "round_id": rnd.round_id, "game": Game.PAIGOW, "complete": complete,
        "media_begin": rnd.start.media_time, "media_end": rnd.last_media, "deals": d.number,
        "misdeals": [*rnd.misdeals], "stub": d.stub,
        "stub_not_counted": rnd.stub_not_counted,
        "exposed": [e.card or e.zone for e in d.exposures],
        "action_pile": d.action_pile, "dice": None if d.dice is None else [*d.dice],
        "action_seat": action_seat, "banker": banker, "seats": seats,
        "settlement_note": rnd.settlement_note, "deal_note": rnd.deal_note,
        "alerts": [*rnd.alert_ids], "alert_codes": [*rnd.alert_codes],
    }, _HISTORY_SET)
