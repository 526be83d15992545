"""A hand's timeline: its events and alerts placed along the hand's media time, for the HTML report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# what each kind of event is drawn as: (lane, colour); events not listed are left out
MARKS: dict[str, tuple[int, str]] = {
    "round_started": (0, "#1f6feb"), "bets_closed": (0, "#1f6feb"), "misdeal_declared": (0, "#d29922"),
    "round_ended": (0, "#1f6feb"), "shuffle_done": (0, "#8b949e"),
    "bet_placed": (1, "#2da44e"), "bet_changed": (1, "#cf222e"), "payout": (1, "#2da44e"),
    "dice_rolled": (2, "#8250df"), "action_pile_chosen": (2, "#8250df"),
    "card_dealt": (3, "#57606a"), "card_exposed": (3, "#d29922"), "stub_counted": (3, "#57606a"),
    "piles_complete": (3, "#57606a"), "pile_delivered": (3, "#57606a"),
    "hand_set": (4, "#0969da"), "banker_hand_exposed": (4, "#0969da"), "banker_hand_set": (4, "#0969da"),
    "hand_opened": (4, "#0969da"), "dead_hand_collected": (4, "#57606a"),
    "device_lost": (0, "#cf222e"), "device_recovered": (0, "#2da44e"),
}
LANES = ("round", "money", "dice", "deal", "setting")


@dataclass(frozen=True, slots=True)
class Mark:
    x: float  # 0..1 along the hand
    lane: int
    colour: str
    label: str


def _label(e: dict[str, Any]) -> str:
    skip = {"type", "table_id", "seq", "media_time", "wall_time", "source", "confidence", "frame",
            "schema_version"}
    extra = ", ".join(f"{k}={v}" for k, v in e.items() if k not in skip and v not in (None, [], {}))
    return f"{e['media_time']:.2f} s {e['type']}" + (f" ({extra})" if extra else "")


def marks(events: list[dict[str, Any]], begin: float, end: float) -> list[Mark]:
    span = max(end - begin, 1e-6)
    out = []
    for e in events:
        t = float(e.get("media_time", -1))
        kind = MARKS.get(str(e.get("type")))
        if kind is None or not begin - 1e-6 <= t <= end + 1e-6:
            continue
        out.append(Mark((t - begin) / span, kind[0], kind[1], _label(e)))
    return out
