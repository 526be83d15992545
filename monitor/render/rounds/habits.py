"""Named dealing habits: how other rooms deal a round, for ``render-round --habit`` and the variations gate.

A habit is either a change to how the dealer moves (a script's ``habits:``, played by the round
player) or a rule of the room's profile (which way the dice are counted), which the round is dealt
by and which the room's table file carries, as a real room's would (docs/table-profile.md). The
``clockwise_unprofiled`` habit deals clockwise but leaves the profile out of the table file: what a
room gets that never wrote its profile down.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from monitor.render.rounds.script import Habits, Script, ScriptError
from monitor.rules.profile import PaiGowProfile
from monitor.rules.table_profile import parse_profile

CLOCKWISE = {"name": "room-cw", "dice": {"direction": "clockwise"}}


@dataclass(frozen=True)
class RoomHabit:
    name: str
    what: str
    habits: dict[str, Any] = field(default_factory=dict)  # fields of the script's Habits
    profile: dict[str, Any] | None = None  # the profile section the room deals by
    profiled: bool = True  # whether the room's table file carries that profile
    console: bool = True  # whether the room has a dealer's console (else the camera and dice reader alone)
    unseen: tuple[str, ...] = ()  # detector classes the room's camera does not find


HABITS: dict[str, RoomHabit] = {
    h.name: h
    for h in [
        RoomHabit("plain", "the renderer's own dealer: counterclockwise count, stub spread, hand seen"),
        RoomHabit("clockwise", "dice counted clockwise; the table file's profile says so", profile=CLOCKWISE),
        RoomHabit("clockwise_unprofiled", "dice counted clockwise; the table file has no profile",
                  profile=CLOCKWISE, profiled=False),
        RoomHabit("squared_stub", "the stub left squared in one stack, not spread", {"stub": "squared"}),
        RoomHabit("hand_unseen", "the dealer's hand out of view for deal cards 8 to 42",
                  {"hand_unseen": (8, 42)}),
        RoomHabit("bets_before", "the bets already down at the round's first frame",
                  {"bets_before_start": True}),
        RoomHabit("cards_on_circle", "opened hands laid face up on the betting circles",
                  {"opened_on_circle": True}),
        RoomHabit("no_console", "no dealer's console: rounds, the bets' close and the end told by the "
                  "camera and the dice reader alone", console=False),
        RoomHabit("no_console_chips_unseen", "no console, and chips the camera cannot find on the felt",
                  console=False, unseen=("chip",)),
    ]
}


def habit(name: str) -> RoomHabit:
    if name not in HABITS:
        raise ScriptError(f"habit {name!r}: unknown (known: {', '.join(HABITS)})")
    return HABITS[name]


def with_habits(script: Script, names: list[str]) -> Script:
    """``script`` dealt with the named habits' moves as well as its own ``habits:``."""
    fields = script.habits.model_dump()
    for n in names:
        fields.update(habit(n).habits)
    return script.model_copy(update={"habits": Habits.model_validate(fields)})


def habit_profiles(names: list[str], table_profile: PaiGowProfile) -> tuple[PaiGowProfile, PaiGowProfile]:
    """(the profile the round is dealt by, the profile its table file carries) under the named habits,
    for a table whose file carries ``table_profile``. The last habit with a profile wins."""
    dealt, carried = table_profile, table_profile
    for n in names:
        h = habit(n)
        if h.profile is None:
            continue
        p, problems = parse_profile(h.profile)
        if p is None:
            raise ScriptError(f"habit {n}: profile: {'; '.join(str(x) for x in problems)}")
        dealt = p
        carried = p if h.profiled else table_profile
    return dealt, carried
