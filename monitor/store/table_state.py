"""A table's live state for the dashboard, folded from its events: round phase, seats, last dice, and
what the round's camera could not judge (``not_judged``: "stub not counted: squared"), shown as such
rather than left out.

This is a display projection only (what an operator glances at); judging the round is the
procedure monitor's job. It is deliberately forgiving: any event order is accepted.
"""

from __future__ import annotations

from typing import Any

from monitor.events.schema import (
    ActionPileChosen,
    BankerChanged,
    BankerHandExposed,
    BankerHandSet,
    BetChanged,
    BetPlaced,
    BetsClosed,
    BoardDealt,
    CardDealt,
    DeadHandCollected,
    DeviceLost,
    DeviceRecovered,
    DiceRolled,
    Event,
    HandOpened,
    HandSet,
    HoleDealt,
    MisdealDeclared,
    Payout,
    PileDelivered,
    PilesComplete,
    PlayerFolded,
    PotAwarded,
    RoundEnded,
    RoundStarted,
    ShuffleDone,
    StubCounted,
    StubNotCountable,
)

PHASES: dict[type[Any], str] = {
    RoundStarted: "betting",
    ShuffleDone: "shuffled",
    BetsClosed: "no more bets",
    CardDealt: "dealing",
    HoleDealt: "dealing",
    PilesComplete: "dealt",
    StubCounted: "dealt",
    StubNotCountable: "dealt",
    ActionPileChosen: "action pile chosen",
    DiceRolled: "dice rolled",
    PileDelivered: "delivering",
    DeadHandCollected: "delivering",
    HandSet: "setting hands",
    BankerHandExposed: "banker setting",
    BankerHandSet: "banker set",
    HandOpened: "showdown",
    BoardDealt: "board",
    PlayerFolded: "betting round",
    Payout: "settling",
    PotAwarded: "settling",
    RoundEnded: "round over",
    MisdealDeclared: "misdeal",
}


def empty_state(table_id: str) -> dict[str, Any]:
    return {
        "table_id": table_id, "game": None, "round_id": None, "phase": "idle", "banker_seat": None,
        "seats": {}, "last_dice": None, "action_pile": None, "board": [], "devices": {},
        "last_seq": None, "last_media_time": None, "last_wall_time": None, "profile": None,
    }


def _seat(state: dict[str, Any], seat: int) -> dict[str, Any]:
    seats: dict[str, dict[str, Any]] = state["seats"]
    return seats.setdefault(str(seat), {"seat": seat})


def apply(state: dict[str, Any], event: Event) -> dict[str, Any]:
    """Fold ``event`` into ``state`` (in place) and return it."""
    state["phase"] = PHASES.get(type(event), state["phase"])
    state["last_seq"] = event.seq
    state["last_media_time"] = event.media_time
    state["last_wall_time"] = event.wall_time.isoformat().replace("+00:00", "Z")
    match event:
        case RoundStarted():
            state.update(game=event.game.value, round_id=event.round_id, banker_seat=event.banker_seat,
                         seats={}, last_dice=None, action_pile=None, board=[])
            for seat in event.players:
                _seat(state, seat)["playing"] = True
            state.pop("not_judged", None)
        case StubCounted():
            # squared a while, then spread and counted: no longer unjudged
            notes = [n for n in state.get("not_judged", []) if not n.startswith("stub not counted")]
            if notes:
                state["not_judged"] = notes
            else:
                state.pop("not_judged", None)
        case StubNotCountable():
            why = event.reason.replace("_", " ")
            if event.reason == "unreadable" and event.detail:
                why = f"{why} ({event.detail})"
            state["not_judged"] = [*state.get("not_judged", []), f"stub not counted: {why}"]
        case DiceRolled():
            state["last_dice"] = list(event.values)
        case ActionPileChosen():
            state["action_pile"] = event.pile
        case BetPlaced():
            _seat(state, event.seat)["bet"] = event.amount
        case BetChanged():
            _seat(state, event.seat)["bet"] = event.after
        case PileDelivered():
            _seat(state, event.seat)["pile"] = event.pile
        case DeadHandCollected():
            _seat(state, event.seat)["dead"] = True
        case HandSet():
            _seat(state, event.seat)["set"] = True
        case HandOpened():
            _seat(state, event.seat)["opened"] = True
        case Payout():
            _seat(state, event.seat)["payout"] = event.amount
        case PlayerFolded():
            _seat(state, event.seat)["folded"] = True
        case BoardDealt():
            state["board"] = [*state["board"], *event.cards]
        case BankerChanged():
            state["banker_seat"] = event.seat
        case DeviceLost():
            state["devices"][event.name or event.device.value] = "lost"
        case DeviceRecovered():
            state["devices"][event.name or event.device.value] = "ok"
        case _:
            pass
    return state
