"""What every watcher reads of one frame, and the table's layout they are built with.

``FrameView`` is the one value a frame hands to the watchers: the tracked objects seen in it and the
readings of their pictures where the chain made them (betting spots and pile slots, the stub spread,
cards read by their indices, chips read at full resolution). The rest watcher
(:mod:`monitor.pipeline.watchers.rest`) adds what it made of the objects (visible, present, hands,
settled); every other watcher reads only that.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from monitor.calibration.zones import zone_kind, zone_number
from monitor.geometry.shapes import convex_hull
from monitor.geometry.zone_rules import DEFAULT_RULES, ZoneRules
from monitor.perception.spot_watch import SpotView
from monitor.perception.stub_spread import Spread
from monitor.pipeline.observe import Seen, SpotChips
from monitor.tablestate.index_cards import IndexCard


@dataclass(frozen=True, slots=True)
class FrameView:
    """One frame, as the watchers see it.

    ``spots``: zones (betting spots ``seatN.bet``, pile slots ``pileN``, the stub) as the frame's
    picture shows them (:class:`monitor.perception.spot_watch.SpotWatcher`), where the frame was
    watched; ``stub``: the stub spread counted from its picture, where the stub zone is watched;
    ``stub_still``: since when (time, frame) the stub's picture has lain still; ``hand_cards``: the
    cards read by their indices in each hand zone whose picture lies still; ``spot_chips``: the chips
    read at full resolution in each betting spot whose picture lies still (its version's).

    Filled by the rest watcher: ``visible`` (track -> object, hands left out), ``present`` (what is
    on the table: the visible objects and resting ones missed for a moment), ``hands`` (the hands
    seen: they never rest, they say where the dealer touches) and ``settled`` (objects come to rest
    in this frame, each with the zone it rested in before).
    """

    index: int
    media_time: float
    objects: tuple[Seen, ...] = ()
    spots: Mapping[str, SpotView] = field(default_factory=dict)
    stub: Spread | None = None
    stub_still: tuple[float, int] | None = None
    hand_cards: Mapping[str, list[IndexCard]] = field(default_factory=dict)
    spot_chips: Mapping[str, SpotChips] = field(default_factory=dict)
    visible: Mapping[str, Seen] = field(default_factory=dict)
    present: Mapping[str, Seen] = field(default_factory=dict)
    hands: tuple[Seen, ...] = ()
    settled: tuple[tuple[Seen, str | None], ...] = ()


class _Zone(Protocol):
    @property
    def center(self) -> tuple[float, float]: ...

    def outline(self, n: int = 48) -> Iterable[Any]: ...  # (x, y) points, table mm


@dataclass(frozen=True, slots=True)
class TableLayout:
    """Where the deal happens on this table (table mm): each pile slot's centre, where a dealt card
    lands, and where the deck rests while it is dealt (the stub zone's centre: the stub is what is
    left of the deck). Without it the deal is followed from the zones the objects are placed in.
    ``slot_hulls``: each pile slot's outline (its convex hull, counter-clockwise), where known: a
    hand putting a card on a slot is judged by how near it is to the slot itself, not only to its
    centre. ``rules``: the layout's zone rules (docs/layout.md); the deliveries watcher reads where
    a delivered pile rests (``delivered_pile``)."""

    slot_centers: Mapping[int, tuple[float, float]] = field(default_factory=dict)
    deck_at: tuple[float, float] | None = None
    rules: ZoneRules = DEFAULT_RULES
    slot_hulls: Mapping[int, list[tuple[float, float]]] = field(default_factory=dict)

    @classmethod
    def of(cls, zones: Mapping[str, _Zone], rules: ZoneRules = DEFAULT_RULES) -> TableLayout:
        """The layout of a calibration's zones and zone rules (``calibration.zones``,
        ``calibration.zone_rules``)."""
        piles = {n: zone for name, zone in zones.items()
                 if zone_kind(name) == "pile" and (n := zone_number(name)) is not None}
        slots = {n: zone.center for n, zone in piles.items()}
        hulls = {n: convex_hull([(float(p[0]), float(p[1])) for p in zone.outline()])
                 for n, zone in piles.items()}
        stub = zones.get("stub")
        return cls(slots, stub.center if stub is not None else None, rules, hulls)
