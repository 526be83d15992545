"""A table's rule profile as its table file writes it (the ``profile:`` section), read and checked.

Pure functions over already-parsed data (the table file's loader does the I/O): :func:`parse_profile`
turns the section into a :class:`~monitor.rules.profile.PaiGowProfile` and lists every problem with
its key path, the bad value and what is allowed; :func:`profile_data` writes a profile back in the
same form; :func:`profile_summary` is what the dashboard shows.

The section is optional and every key in it too: what is left out comes from ``based_on`` (a profile
the product ships, ``livermore`` unless said), which is exactly how a table without a profile is
judged. The format is documented in docs/table-profile.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from monitor.rules import profile as profiles
from monitor.rules.errors import ProfileError
from monitor.rules.paigow.catalog import BUILT_IN as HOUSE_WAYS
from monitor.rules.profile import (
    CollectionTier,
    Direction,
    FiveAces,
    JokerInFlush,
    JokerMode,
    PaiGowProfile,
    Wheel,
)
from monitor.rules.references import rulebooks

GAMES = ("paigow",)  # the games a table file's profile can describe today
NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")

# The profiles the product ships, by name: a table's profile starts from one of them.
BASES: Mapping[str, PaiGowProfile] = {
    p.name: p for p in (profiles.LIVERMORE, profiles.LUCKY_CHANCES, profiles.NAPA, profiles.NEVADA_WHEEL,
                        profiles.S_AND_K)
}
DEFAULT_BASE = profiles.DEFAULT_PROFILE.name


class DiceStart(StrEnum):
    """Which seat the dice count starts on (Napa: "the Player/Dealer is always counted as 1, 8 or 15")."""

    BANKER = "banker"  # the Player-Dealer counts 1 (8, 15)
    AFTER_BANKER = "after_banker"  # the seat after the Player-Dealer counts 1


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """One bad key of a checked file or section: ``field`` is its path (``dice.direction``; "": the whole);
    the table file's checks report theirs in the same shape."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


def pai_gow_rulebooks() -> tuple[str, ...]:
    """The rulebooks a Pai Gow profile may cite (those written for Pai Gow Poker)."""
    return tuple(sorted(b.id for b in rulebooks().values() if b.game.startswith("Pai Gow")))


def _shown(v: Any) -> str:
    return "nothing" if v is None else repr(v)


class _Reader:
    """Walks the section, collecting problems; each ``take`` reads one key and checks it."""

    def __init__(self) -> None:
        self.problems: list[FieldProblem] = []

    def bad(self, path: str, message: str) -> None:
        self.problems.append(FieldProblem(path, message))

    def mapping(self, path: str, v: Any, known: tuple[str, ...]) -> dict[str, Any] | None:
        if not isinstance(v, dict):
            self.bad(path, f"must be a mapping with keys {', '.join(known)}, got {_shown(v)}")
            return None
        for key in v:
            if key not in known:
                where = f"{path}.{key}" if path else str(key)
                self.bad(where, f"unknown key (allowed: {', '.join(known)})")
        return v

    def choice(self, path: str, v: Any, allowed: tuple[str, ...]) -> str | None:
        if not isinstance(v, str) or v not in allowed:
            self.bad(path, f"{_shown(v)} is not allowed (allowed: {', '.join(allowed)})")
            return None
        return v

    def integer(self, path: str, v: Any, least: int, unit: str = "") -> int | None:
        if isinstance(v, bool) or not isinstance(v, int) or v < least:
            self.bad(path, f"{_shown(v)} is not allowed (allowed: a whole number {least} or more{unit})")
            return None
        return v

    def flag(self, path: str, v: Any) -> bool | None:
        if not isinstance(v, bool):
            self.bad(path, f"{_shown(v)} is not allowed (allowed: true, false)")
            return None
        return v


def _values(e: type[StrEnum]) -> tuple[str, ...]:
    return tuple(m.value for m in e)


_DIRECTIONS = _values(Direction)
TOP_KEYS = ("name", "based_on", "game", "rulebook", "house_way", "dice", "delivery", "action", "limits",
            "collection", "free_collection_hands", "banker_pays_collection", "joker", "five_aces", "wheel",
            "banker")
# Nested sections: key -> (allowed keys, {key: (profile field, how it is read)}).
_Read = Callable[[_Reader, str, Any], Any]


def _direction(r: _Reader, path: str, v: Any) -> Direction | None:
    c = r.choice(path, v, _DIRECTIONS)
    return None if c is None else Direction(c)


def _enum(e: type[StrEnum]) -> _Read:
    def read(r: _Reader, path: str, v: Any) -> Any:
        c = r.choice(path, v, _values(e))
        return None if c is None else e(c)
    return read


def _at_least(least: int, unit: str = "") -> _Read:
    def read(r: _Reader, path: str, v: Any) -> Any:
        return r.integer(path, v, least, unit)
    return read


def _start(r: _Reader, path: str, v: Any) -> bool | None:
    c = r.choice(path, v, _values(DiceStart))
    return None if c is None else c == DiceStart.BANKER.value


SECTIONS: dict[str, dict[str, tuple[str, _Read]]] = {
    "dice": {"direction": ("dice_direction", _direction), "start": ("banker_counts_as_one", _start)},
    "limits": {"min_cents": ("table_min", _at_least(0, " cents")),
               "max_cents": ("table_max", _at_least(1, " cents"))},
    "joker": {"mode": ("joker_mode", _enum(JokerMode)), "in_flush": ("joker_in_flush", _enum(JokerInFlush))},
    "banker": {"rotation": ("banker_rotation", _direction),
               "max_consecutive": ("banker_max_consecutive", _at_least(1, " hands")),
               "min_wagers_in_round": ("banker_min_wagers_in_round", _at_least(0, " wagers")),
               "volunteer_when_all_refuse": ("banker_volunteer_when_all_refuse",
                                             lambda r, p, v: r.flag(p, v))},
}
SCALARS: dict[str, tuple[str, _Read]] = {
    "delivery": ("delivery_direction", _direction),
    "action": ("action_direction", _direction),
    "free_collection_hands": ("free_collection_hands", _at_least(0, " hands")),
    "banker_pays_collection": ("banker_pays_collection", lambda r, p, v: r.flag(p, v)),
    "five_aces": ("five_aces", _enum(FiveAces)),
    "wheel": ("wheel", _enum(Wheel)),
}


def _collection(r: _Reader, v: Any) -> tuple[CollectionTier, ...] | None:
    if not isinstance(v, list):
        r.bad("collection",
              f"must be a list of tiers ({{up_to_cents, fee_cents}}; [] for none), got {_shown(v)}")
        return None
    tiers: list[CollectionTier] = []
    ok = True
    for i, raw in enumerate(v):
        path = f"collection[{i}]"
        tier = r.mapping(path, raw, ("up_to_cents", "fee_cents"))
        if tier is None:
            ok = False
            continue
        fee = r.integer(f"{path}.fee_cents", tier.get("fee_cents"), 0, " cents")
        up_to = tier.get("up_to_cents")
        if up_to is not None:
            up_to = r.integer(f"{path}.up_to_cents", up_to, 0,
                              " cents; leave it out for the open-ended last tier")
            if up_to is None:
                ok = False
                continue
        if fee is None:
            ok = False
            continue
        if tiers and tiers[-1].up_to is None:
            r.bad(f"collection[{i - 1}].up_to_cents",
                  "only the last tier may be open-ended (give its up_to_cents, or move it last)")
            ok = False
        elif tiers and up_to is not None and tiers[-1].up_to is not None and up_to <= tiers[-1].up_to:
            r.bad(f"{path}.up_to_cents", f"{up_to} is not above the tier before it ({tiers[-1].up_to}); "
                                         "tiers must rise")
            ok = False
        tiers.append(CollectionTier(up_to=up_to, fee=fee))
    return tuple(tiers) if ok else None


def parse_profile(data: Any) -> tuple[PaiGowProfile | None, list[FieldProblem]]:
    """The profile a table file's ``profile:`` section describes (None: no section, today's default).

    Returns the profile, or None with every problem found (each names its key path, the bad value
    and what is allowed).
    """
    r = _Reader()
    if data is None:
        return profiles.DEFAULT_PROFILE, []
    section = r.mapping("", data, TOP_KEYS)
    if section is None:
        why = f"must be a mapping (keys: {', '.join(TOP_KEYS)}), got {_shown(data)}"
        return None, [FieldProblem("", why)]
    base_name = section.get("based_on", DEFAULT_BASE)
    base = BASES.get(base_name) if isinstance(base_name, str) else None
    if base is None:
        r.bad("based_on", f"{_shown(base_name)} is not allowed (allowed: {', '.join(BASES)})")
        base = profiles.DEFAULT_PROFILE
    changes: dict[str, Any] = {}
    if "game" in section:
        r.choice("game", section["game"], GAMES)
    if "rulebook" in section:
        book = r.choice("rulebook", section["rulebook"], pai_gow_rulebooks())
        if book is not None:
            changes["rulebook"] = book
    if "house_way" in section:
        way = r.choice("house_way", section["house_way"], HOUSE_WAYS)
        if way is not None:
            changes["house_way"] = way
    for key, (fname, read) in SCALARS.items():
        if key in section:
            value = read(r, key, section[key])
            if value is not None:
                changes[fname] = value
    for key, fields in SECTIONS.items():
        if key not in section:
            continue
        sub = r.mapping(key, section[key], tuple(fields))
        for sub_key, (fname, read) in fields.items():
            if sub is not None and sub_key in sub:
                value = read(r, f"{key}.{sub_key}", sub[sub_key])
                if value is not None:
                    changes[fname] = value
    if "collection" in section:
        tiers = _collection(r, section["collection"])
        if tiers is not None:
            changes["collection"] = tiers
    lo, hi = changes.get("table_min", base.table_min), changes.get("table_max", base.table_max)
    if lo > hi:
        r.bad("limits", f"min_cents {lo} is above max_cents {hi} (allowed: min_cents at most max_cents)")
    name = section.get("name")
    if name is None:
        if changes:
            r.bad("name", f"required when the profile changes {base.name}'s settings: alerts and the "
                          "dashboard name the profile that judged them (allowed: letters, digits, . _ : -)")
        name = base.name
    elif not isinstance(name, str) or not NAME.match(name):
        r.bad("name", f"{_shown(name)} is not allowed (allowed: 1-64 letters, digits, . _ : -)")
    if r.problems:
        return None, r.problems
    try:
        built = PaiGowProfile.model_validate({**base.model_dump(), **changes, "name": name})
    except (ProfileError, ValidationError) as exc:  # a rule the checks above missed: still named
        return None, [FieldProblem("", str(exc))]
    shipped = BASES.get(name)
    if shipped is not None and shipped != built:
        # the id must tell one set of settings from another, or an alert cannot say what judged it
        why = (f"{name!r} is a shipped profile with other settings; give this one a name of its own "
               "(allowed: 1-64 letters, digits, . _ : -)")
        return None, [FieldProblem("name", why)]
    return built, []


def _start_of(profile: PaiGowProfile) -> DiceStart:
    return DiceStart.BANKER if profile.banker_counts_as_one else DiceStart.AFTER_BANKER


def profile_data(profile: PaiGowProfile) -> dict[str, Any]:
    """The profile as a table file's ``profile:`` section, every key written out."""
    return {
        "name": profile.name,
        "game": "paigow",
        "rulebook": profile.rulebook,
        "house_way": profile.house_way,
        "dice": {"direction": profile.dice_direction.value, "start": _start_of(profile).value},
        "delivery": profile.delivery_direction.value,
        "action": profile.action_direction.value,
        "limits": {"min_cents": profile.table_min, "max_cents": profile.table_max},
        "collection": [{**({"up_to_cents": t.up_to} if t.up_to is not None else {}), "fee_cents": t.fee}
                       for t in profile.collection],
        "free_collection_hands": profile.free_collection_hands,
        "banker_pays_collection": profile.banker_pays_collection,
        "joker": {"mode": profile.joker_mode.value, "in_flush": profile.joker_in_flush.value},
        "five_aces": profile.five_aces.value,
        "wheel": profile.wheel.value,
        "banker": {"rotation": profile.banker_rotation.value,
                   "max_consecutive": profile.banker_max_consecutive,
                   "min_wagers_in_round": profile.banker_min_wagers_in_round,
                   "volunteer_when_all_refuse": profile.banker_volunteer_when_all_refuse},
    }


def _money(cents: int) -> str:
    d, c = divmod(cents, 100)
    return f"${d:,}" if c == 0 else f"${d:,}.{c:02d}"


def _collection_text(tiers: tuple[CollectionTier, ...]) -> str:
    if not tiers:
        return "no collection"
    parts = [f"{_money(t.fee)} to {_money(t.up_to)}" if t.up_to is not None else f"{_money(t.fee)} above"
             for t in tiers]
    return "collection " + ", ".join(parts)


def profile_line(profile: PaiGowProfile) -> str:
    """One line for the dashboard: what the table is judged by."""
    book = rulebooks()[profile.rulebook].name
    start = "the Player-Dealer" if profile.banker_counts_as_one else "the seat after the Player-Dealer"
    return (f"{profile.name}: {book}, house way {profile.house_way}, dice counted "
            f"{profile.dice_direction.value} ({start} counts 1), piles delivered "
            f"{profile.delivery_direction.value}, limits {_money(profile.table_min)}-"
            f"{_money(profile.table_max)}, {_collection_text(profile.collection)}")


def profile_summary(profile: PaiGowProfile) -> dict[str, Any]:
    """What the API's table view and the web page show of a table's profile (JSON-ready)."""
    return {**profile_data(profile), "line": profile_line(profile)}
