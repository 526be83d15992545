"""The zone rules of a table: which zone a point is in where zones overlap, and where a pile delivered
to a seat comes to rest.

A layout file's ``rules:`` section sets them (docs/layout.md) and the table file made from it carries
them. Both are optional: the defaults are the rules every table was read by before layouts had a
``rules:`` section (the smallest zone wins; a delivered pile rests on the seat's own felt).

Pure: already-parsed data in, a :class:`ZoneRules` or the list of problems (each naming its key) out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from monitor.rules.table_profile import FieldProblem

# Every kind of zone a layout can have, in the order docs/layout.md lists them.
ZONE_KINDS: tuple[str, ...] = ("bet", "front", "back", "seat", "pile", "stub", "center", "banker", "tray",
                               "dice")
SMALLEST = "smallest"  # zone_priority's default: of the zones holding a point, the smallest in area wins
RULE_KEYS = ("zone_priority", "delivered_pile")

T = TypeVar("T")


class DeliveredPile(StrEnum):
    """Where a pile delivered to a seat comes to rest (Livermore rule 9: the piles go to the seats)."""

    SEAT_AREA = "seat_area"  # on the seat's own felt (zone seat{n}), off its betting circle and hand areas
    HAND_AREAS = "hand_areas"  # on the seat's front or back hand area
    SEAT_OR_HANDS = "seat_or_hands"  # on either


# the zone kinds a delivered pile may rest on, for each choice
DELIVERY_KINDS: dict[DeliveredPile, frozenset[str]] = {
    DeliveredPile.SEAT_AREA: frozenset({"seat"}),
    DeliveredPile.HAND_AREAS: frozenset({"front", "back"}),
    DeliveredPile.SEAT_OR_HANDS: frozenset({"seat", "front", "back"}),
}


@dataclass(frozen=True, slots=True)
class ZoneRules:
    """``zone_priority``: zone kinds, the first winning where zones overlap; kinds left out come after
    those named; within one kind (and with ``()``, among all zones) the smallest zone wins.
    ``delivered_pile``: where a pile delivered to a seat rests."""

    zone_priority: tuple[str, ...] = ()
    delivered_pile: DeliveredPile = DeliveredPile.SEAT_AREA

    @property
    def smallest_wins(self) -> bool:
        return not self.zone_priority

    @property
    def delivery_kinds(self) -> frozenset[str]:
        return DELIVERY_KINDS[self.delivered_pile]


DEFAULT_RULES = ZoneRules()


def lookup_order(items: Iterable[T], kind: Callable[[T], str | None], area: Callable[[T], float],
                 rules: ZoneRules = DEFAULT_RULES) -> list[T]:
    """``items`` (zones) in the order a point's zone is looked up: the first that holds it wins.

    >>> zones = [("seat1", "seat", 9.0), ("seat1.bet", "bet", 1.0), ("seat1.back", "back", 3.0)]
    >>> [z[0] for z in lookup_order(zones, lambda z: z[1], lambda z: z[2])]
    ['seat1.bet', 'seat1.back', 'seat1']
    >>> [z[0] for z in lookup_order(zones, lambda z: z[1], lambda z: z[2], ZoneRules(("back",)))]
    ['seat1.back', 'seat1.bet', 'seat1']
    """
    if rules.smallest_wins:
        return sorted(items, key=area)  # exactly the order every table had before zone rules
    rank = {k: i for i, k in enumerate(rules.zone_priority)}
    last = len(rank)
    return sorted(items, key=lambda it: (rank.get(kind(it) or "", last), area(it)))


def parse_zone_rules(data: Any, path: str = "rules") -> tuple[ZoneRules | None, list[FieldProblem]]:
    """A ``rules:`` section (None: the defaults); problems name ``PATH.KEY`` and the bad value (``path``:
    where the section is, ``rules`` in a layout file, ``zone_rules`` in a table file)."""
    if data is None:
        return DEFAULT_RULES, []
    if not isinstance(data, dict):
        why = f"must be a mapping with keys {', '.join(RULE_KEYS)}, got {data!r}"
        return None, [FieldProblem(path, why)]
    problems = [FieldProblem(f"{path}.{k}", f"unknown key (allowed: {', '.join(RULE_KEYS)})")
                for k in data if k not in RULE_KEYS]
    priority = _priority(data.get("zone_priority", SMALLEST), f"{path}.zone_priority", problems)
    raw = data.get("delivered_pile", DeliveredPile.SEAT_AREA.value)
    allowed = tuple(d.value for d in DeliveredPile)
    delivered = DeliveredPile(raw) if isinstance(raw, str) and raw in allowed else None
    if delivered is None:
        why = f"{raw!r} is not allowed (allowed: {', '.join(allowed)})"
        problems.append(FieldProblem(f"{path}.delivered_pile", why))
    if problems or priority is None or delivered is None:
        return None, problems
    return ZoneRules(priority, delivered), []


def _priority(v: Any, path: str, problems: list[FieldProblem]) -> tuple[str, ...] | None:
    if v == SMALLEST:
        return ()
    if not isinstance(v, list) or not v:
        why = f"must be {SMALLEST!r} or a list of zone kinds, first wins ({', '.join(ZONE_KINDS)}), got {v!r}"
        problems.append(FieldProblem(path, why))
        return None
    before = len(problems)
    seen: set[str] = set()
    for i, k in enumerate(v):
        if not isinstance(k, str) or k not in ZONE_KINDS:
            problems.append(FieldProblem(f"{path}[{i}]",
                                         f"{k!r} is not a zone kind (kinds: {', '.join(ZONE_KINDS)})"))
        elif k in seen:
            problems.append(FieldProblem(f"{path}[{i}]", f"{k!r} is named twice"))
        seen.add(str(k))
    return None if len(problems) > before else tuple(v)


def zone_rules_data(rules: ZoneRules) -> dict[str, Any]:
    """The ``rules:`` section that :func:`parse_zone_rules` reads back as ``rules``."""
    priority: list[str] | str = list(rules.zone_priority) or SMALLEST
    return {"zone_priority": priority, "delivered_pile": rules.delivered_pile.value}


def priority_text(rules: ZoneRules) -> str:
    """The overlap rule in words, as ``layout explain`` and ``layout draw`` say it."""
    if rules.smallest_wins:
        return "where zones overlap, the smallest zone wins"
    return (f"where zones overlap, the first kind in {', '.join(rules.zone_priority)} wins "
            "(kinds not named come after, smallest first; within a kind the smallest wins)")
