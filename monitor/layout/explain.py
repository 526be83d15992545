"""Each zone of a layout in words: where it is, what it means at the table, and what the monitor reads
there; then the zone rules and the zones this table does not have.

Pure: a :class:`TableLayout` in, lines of text out (``table-monitor layout explain`` prints them).
"""

from __future__ import annotations

from monitor.geometry import TableLayout
from monitor.geometry.layout import OPTIONAL_PARTS, Zone
from monitor.geometry.shapes import Circle, Polygon, Rect, Shape
from monitor.geometry.zone_rules import DeliveredPile, priority_text

# What a zone of each kind is, and what the monitor makes of what lies there. ``{n}``: the seat or
# pile number.
MEANING: dict[str, str] = {
    "bet": "seat {n}'s betting circle: chips resting here are seat {n}'s wager (bet_placed, bet_changed; "
           "a change after bets close is raised)",
    "front": "seat {n}'s front hand area, the two-card (low) hand: with the back area, where the seat's "
             "set hand lies to be read (hand_set)",
    "back": "seat {n}'s back hand area, the five-card (high) hand: with the front area, where the seat's "
            "set hand lies to be read (hand_set)",
    "seat": "the rest of seat {n}'s own felt, off its betting circle and hand areas",
    "pile": "pile slot {n} (1 is at the dealer's left): one of the seven piles of seven is dealt here; "
            "cards landing here are counted per pile (card_dealt), and the first pile delivered is the "
            "action pile (rule 8)",
    "stub": "the stub spot: the four cards left after the deal are laid here and counted (rule 55)",
    "center": "the rest of the centre around the pile slots: nothing is judged by this zone alone (a "
              "card resting here lies off the piles)",
    "banker": "the banker's place: where the Player-Dealer's hand is exposed and set; the hand set here "
              "is read (banker_hand_set)",
    "tray": "the dealer's chip tray: cards moved here have left the game (a delivered hand swept here "
            "has left its seat: collected)",
    "dice": "the dice area: three dice at rest here are read from the picture (dice_rolled)",
}
# What the monitor does on a table without the zone.
WITHOUT: dict[str, str] = {
    "center": "a card laid off the piles lies on the felt; nothing else changes",
    "banker": "the Player-Dealer's hand is not read from the picture at a place of its own (no "
              "banker_hand_set from the camera)",
    "tray": "a hand swept off the table is seen leaving it (off_table) instead",
    "dice": "the dice are not read from the picture; they come from the dice reader where the table "
            "has one",
}
DELIVERY: dict[DeliveredPile, str] = {
    DeliveredPile.SEAT_AREA: "on the seat's own felt (zone seat{n}), off its betting circle and hand areas",
    DeliveredPile.HAND_AREAS: "on the seat's front or back hand area",
    DeliveredPile.SEAT_OR_HANDS: "on the seat's own felt or its hand areas",
}


def shape_text(shape: Shape) -> str:
    """A shape in a few words: ``rect 150 x 120 mm at (-643, 49), turned 31.5 deg``."""
    cx, cy = shape.center
    at = f"at ({cx:.0f}, {cy:.0f})"
    if isinstance(shape, Rect):
        turned = f", turned {shape.angle_deg:g} deg" if shape.angle_deg else ""
        return f"rect {shape.w:g} x {shape.h:g} mm {at}{turned}"
    if isinstance(shape, Circle):
        return f"circle of radius {shape.r:g} mm {at}"
    if isinstance(shape, Polygon):
        return f"polygon of {len(shape.points)} points, {shape.area / 1e6:.3f} m2, centred {at}"
    return f"shape {at}"


def zone_meaning(zone: Zone) -> str:
    n = zone.seat if zone.seat is not None else zone.pile
    return MEANING[zone.kind].format(n=n)


def explain(layout: TableLayout) -> list[str]:
    """Every zone, one line each (seats by number, then the centre and the dealer's side), the rules and
    what the table lacks."""
    rules = layout.rules
    lines = [f"layout {layout.name}" + (f": {layout.description}" if layout.description else "")]
    lines += [f"source: {layout.source}"] if layout.source else []
    lines += ["table frame: millimetres, origin at the middle of the table, +x to the dealer's right, +y "
              "from the dealer toward the players; seats 1-7 clockwise from the dealer's left, pile slots "
              "1-7 left to right from the dealer's view",
              "", "zones:"]
    order = {z.name: i for i, z in enumerate(layout.zones)}
    for z in sorted(layout.zones, key=_reading_order):
        lines.append(f"  {z.name:<12} {shape_text(z.shape)}")
        lines.append(f"  {'':<12} {zone_meaning(z)} (lookup order {order[z.name] + 1})")
        if z.kind in rules.delivery_kinds:
            lines.append(f"  {'':<12} a pile resting here is delivered to seat {z.seat}")
    lines += ["  felt         any other point on the table: no zone",
              "  off_table    outside the table outline, also where a zone reaches past it", "",
              "zone rules:",
              f"  zone_priority: {', '.join(rules.zone_priority) or 'smallest'}: {priority_text(rules)}",
              f"  delivered_pile: {rules.delivered_pile.value}: a pile delivered to a seat rests "
              f"{DELIVERY[rules.delivered_pile]}",
              "  hand areas: a seat's hand is set when cards rest in both its front and back areas; the "
              "banker's hand is exposed in a row at the banker's place and set in two groups along it, "
              "the smaller group the front hand",
              "", "not on this table:"]
    absent = [f"  {z:<12} {OPTIONAL_PARTS[z]}: {WITHOUT[z]}" for z in layout.absent]
    return lines + (absent or ["  (nothing: every optional zone is there)"])


def _reading_order(z: Zone) -> tuple[int, int, str]:
    parts = ("bet", "back", "front", "seat")
    if z.seat is not None:
        return (z.seat, parts.index(z.kind), z.name)
    kinds = ("pile", "center", "stub", "banker", "dice", "tray")
    return (10 + kinds.index(z.kind), z.pile or 0, z.name)
