"""With no console, a round opens on whichever comes first: chips at rest on a betting spot, a card or
pile at rest on a pile slot, cards at rest elsewhere on the table, or a roll from the dice reader."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.events.schema import CardDealt, EventBase, RoundStarted, parse_event
from monitor.pipeline.extract import EventExtractor, ExtractorSettings
from monitor.pipeline.observe import Seen

FPS = 30.0


class Table:
    """Drives an extractor frame by frame with objects held on a 'table'; one sequence counter for
    vision and outside events, as the live chain and the review keep."""

    def __init__(self, **settings: object) -> None:
        self.seq = 0
        self.x = EventExtractor("T1", ExtractorSettings(**settings), next_seq=self._next)  # type: ignore[arg-type]
        self.objects: dict[str, Seen] = {}
        self.frame = 0

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def put(self, track: str, kind: str, zone: str, **kw: object) -> None:
        self.objects[track] = Seen(track, kind, zone, 0.0, 0.0, **kw)  # type: ignore[arg-type]

    def run(self, seconds: float) -> list[EventBase]:
        out: list[EventBase] = []
        for _ in range(round(seconds * FPS)):
            out += self.x.frame(self.frame, self.frame / FPS, list(self.objects.values()))
            self.frame += 1
        return out

    def roll(self, values: list[int]) -> list[EventBase]:
        """A roll from the dice reader, as the chain hands it on: what it opens first, then the roll."""
        raw = {"type": "dice_rolled", "table_id": "T1", "seq": 0, "media_time": self.frame / FPS,
               "wall_time": "2026-01-01T00:00:00Z", "source": "dice_reader", "values": values}
        return self.x.told(parse_event(raw), self._next)


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def test_a_roll_from_the_dice_reader_opens_the_round_before_it_with_the_lower_number() -> None:
    t = Table(round_from_vision=True, banker_seat=2)
    assert t.run(0.5) == []
    out = t.roll([3, 4, 5])
    assert types(out) == ["round_started", "dice_rolled"]
    opened, roll = out
    assert isinstance(opened, RoundStarted) and opened.opened_by == "dice" and opened.banker_seat == 2
    assert opened.seq < roll.seq and opened.media_time == roll.media_time
    assert types(t.roll([1, 1, 2])) == ["dice_rolled"]  # one round: a second roll opens nothing


def test_with_a_console_a_roll_opens_nothing() -> None:
    t = Table(round_from_vision=False)
    assert types(t.roll([3, 4, 5])) == ["dice_rolled"]


@pytest.mark.parametrize(("kind", "zone", "opened_by"), [
    ("card", "pile3", "pile"),
    ("pile", "pile5", "pile"),
    ("card", "seat2.front", "cards"),
    ("card", "felt", "cards"),
])
def test_cards_coming_to_rest_on_a_bare_table_open_the_round(kind: str, zone: str, opened_by: str) -> None:
    t = Table(round_from_vision=True, banker_seat=4, clear_s=1.0)
    assert t.run(0.5) == []
    t.put("c1", kind, zone)
    out = t.run(0.5)
    assert isinstance(out[0], RoundStarted) and out[0].opened_by == opened_by


def test_the_first_pile_opens_the_round_and_its_card_is_counted() -> None:
    t = Table(round_from_vision=True, clear_s=1.0)
    t.put("c1", "card", "pile3")
    out = t.run(0.5)
    assert types(out) == ["round_started", "card_dealt"]
    assert isinstance(out[1], CardDealt) and out[1].pile == 3


def test_chips_open_the_round_where_chips_and_cards_come_to_rest_together() -> None:
    t = Table(round_from_vision=True, clear_s=1.0)
    t.put("c1", "card", "seat3.back")
    t.put("a", "chips", "seat1.bet", value=2500)
    out = t.run(0.5)
    assert isinstance(out[0], RoundStarted) and out[0].opened_by == "chips"


def test_the_trays_cards_and_chips_open_no_round_and_one_left_on_the_table_closes_none() -> None:
    t = Table(round_from_vision=True, clear_s=1.0)
    t.put("deck", "pile", "tray")
    t.put("float", "chips", "tray", value=100000)
    assert t.run(1.0) == []
    t.put("c1", "card", "seat6.front")
    assert types(t.run(0.5))[:1] == ["round_started"]
    assert "round_ended" not in types(t.run(2.0))  # a card still lies on the table
    del t.objects["c1"]
    assert "round_ended" in types(t.run(1.5))
