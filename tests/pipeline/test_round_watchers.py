"""The round's watchers (deal, exposures, deliveries, seats, banker) one at a time, each on a few
hand-built frames over a rest watcher and a shared round record, called in the extractor's order."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from monitor.calibration.table_file import load_table
from monitor.geometry.zone_rules import DeliveredPile, ZoneRules
from monitor.pipeline.extract import EventExtractor, ExtractorSettings
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.banker import BankerWatcher
from monitor.pipeline.watchers.deal import DealWatcher
from monitor.pipeline.watchers.deliveries import DeliveriesWatcher
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.exposures import ExposuresWatcher
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.round_record import RoundRecord, Seat
from monitor.pipeline.watchers.seats import SeatsWatcher
from monitor.pipeline.watchers.view import FrameView, TableLayout
from monitor.tablestate.index_cards import IndexCard
from tests.support.paths import TABLE_FILE

FPS = 30.0


class _Rig:
    """The round's watchers over one record, driven frame by frame with the objects given."""

    def __init__(self, layout: TableLayout | None = None, **settings: Any) -> None:
        self.s = ExtractorSettings(**settings)
        self.rest = RestWatcher(self.s)
        self.out = Outbox("T1")
        self.rec = RoundRecord()
        self.exposures = ExposuresWatcher(self.s, self.rest, self.out, self.rec)
        layout = layout or TableLayout()
        self.deal = DealWatcher(self.s, self.rest, self.out, self.rec, layout, self.exposures)
        self.seats = SeatsWatcher(self.s, self.rest, self.out, self.rec)
        self.deliveries = DeliveriesWatcher(self.s, self.rest, self.out, self.rec, layout, self.deal,
                                            self.exposures, self.seats)
        self.banker = BankerWatcher(self.s, self.rest, self.out, self.rec)
        self.n = 0

    def view(self, *objects: Seen, hand_cards: dict[str, list[IndexCard]] | None = None) -> FrameView:
        frame = FrameView(self.n, self.n / FPS, objects, hand_cards=hand_cards or {})
        self.exposures.look(frame)
        self.out.at(self.n, self.n / FPS)
        self.n += 1
        view = self.deal.landed(self.rest.frame(frame))
        return self.rest.with_present(view, carry=True)

    def run(self, seconds: float, *objects: Seen, **kw: Any) -> list[Any]:
        """Every watcher each frame, in the extractor's order."""
        events: list[Any] = []
        for _ in range(round(seconds * FPS)):
            view = self.view(*objects, **kw)
            for step in (self.deal.frame, self.deliveries.frame, self.deal.stub_spread, self.exposures.frame,
                         self.deliveries.slots, self.seats.frame, self.banker.frame):
                events += step(view)
        return events


def _card(track: str, zone: str, x: float = 0.0, y: float = 0.0, **kw: Any) -> Seen:
    return Seen(track, "card", zone, x, y, **kw)


def _types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


# ---- the deal ---------------------------------------------------------------------------------------

def test_deal_a_card_resting_on_a_pile_is_dealt_and_the_stub_spread_closes_the_deal() -> None:
    rig = _Rig()
    out = rig.run(0.3, _card("c", "pile3"))
    assert [(e.type, e.pile, e.face_up) for e in out] == [("card_dealt", 3, False)]
    assert rig.rec.counts[3] == 1 and rig.rec.pile_of == {"c": 3}
    stub = (_card("s1", "stub", 0.0), _card("s2", "stub", 30.0))
    out = rig.run(1.0, _card("c", "pile3"), *stub)
    assert _types(out) == ["piles_complete", "stub_counted"]
    assert out[0].counts == [0, 0, 1, 0, 0, 0, 0] and out[1].n == 2
    assert rig.rec.done and rig.deal.stub_n == 2
    rig.deal.reset()
    assert rig.deal.stub_n is None and rig.deal.stub_seen == {}


def test_deal_a_squared_stub_is_said_not_countable_once_the_deal_has_been_idle() -> None:
    rig = _Rig(stub_wait_s=1.0)
    rig.run(0.3, _card("c", "pile3"))
    stack = _card("s", "stub")  # the stub left in one stack: one box
    assert _types(rig.run(0.6, _card("c", "pile3"), stack)) == []  # the dealer may spread it yet
    out = rig.run(0.6, _card("c", "pile3"), stack)
    assert [(e.type, e.reason) for e in out] == [("stub_not_countable", "squared")]
    assert not rig.rec.done  # not the deal's end in itself: a count may follow
    out = rig.run(0.4, _card("c", "pile3", 500.0))  # ... and its close says it no second time
    assert "stub_not_countable" not in _types(out)


def test_deal_a_trip_of_the_hand_from_the_deck_counts_the_card_it_put_down() -> None:
    # the deck 300 mm from pile 1: the hand goes out over the slot, puts a card there, and comes back
    rig = _Rig(TableLayout({1: (0.0, 0.0), 2: (200.0, 200.0)}, deck_at=(300.0, 0.0)))
    hand = Seen("h", "hand", "felt", 300.0, 0.0)
    rig.run(0.1, hand)
    rig.run(0.2, replace(hand, x=0.0, zone="pile1"), _card("c", "pile1"))
    out = rig.run(0.6, hand, _card("c", "pile1"))
    assert [(e.type, e.pile) for e in out] == [("card_dealt", 1)]
    assert len(rig.rec.visits) == 1 and rig.rec.visits[0].pile == 1 and rig.rec.visits[0].read


def test_deal_a_counted_card_waits_for_its_read_and_a_flush_sends_it_unread() -> None:
    rig = _Rig(TableLayout({1: (0.0, 0.0)}, deck_at=(300.0, 0.0)), unread_hold_s=1.0)
    hand = Seen("h", "hand", "felt", 300.0, 0.0)
    face = _card("c", "pile1", face_up=True, face_sure=True, back_p=0.0001)  # certainly a face, unread
    rig.run(0.1, hand)
    rig.run(0.2, replace(hand, x=0.0, zone="pile1"), face)
    assert rig.run(0.2, hand, face) == []  # counted, its read awaited
    assert [e.pile for e in rig.rec.dealt_out] == [1] and rig.deal.zones_to_read() == {"pile1"}
    rig.deal.flush()
    out = rig.out.take()
    assert [(e.type, e.face_up, e.card) for e in out] == [("card_dealt", True, None)]
    assert rig.rec.dealt_out == []


# ---- exposures ----------------------------------------------------------------------------------------

def test_exposures_a_named_face_on_a_pile_is_exposed_once() -> None:
    rig = _Rig(count_deal=False)
    ace = _card("a", "pile2", face_up=True, card="As", face_sure=True)
    out = rig.run(0.5, ace)
    assert [(e.type, e.card, e.zone) for e in out] == [("card_exposed", "As", "pile:2")]
    assert rig.rec.exposed == {"a": 2} and "As" in rig.rec.exposed_cards


def test_exposures_an_unread_face_is_read_by_index_while_it_waits_and_reset_forgets_the_wait() -> None:
    rig = _Rig(count_deal=False)
    face = _card("f", "pile4", face_up=True, face_sure=True, back_p=0.0001)
    assert rig.run(0.25, face) == []  # a face for unread_face_s: waiting for its read (unread_hold_s)
    assert rig.exposures.zones_to_read() == {"pile4"}
    read = [IndexCard(0.0, 0.0, "pile4", None, "A", 0.9)]
    out = rig.run(1 / FPS, face, hand_cards={"pile4": read})
    assert [(e.type, e.card, e.rank) for e in out] == [("card_exposed", None, "A")]
    rig2 = _Rig(count_deal=False)
    rig2.run(0.25, face)
    rig2.exposures.reset()
    assert rig2.exposures.zones_to_read() == set()


# ---- deliveries -----------------------------------------------------------------------------------------

def test_deliveries_a_pile_followed_to_a_seat_is_delivered_and_named_the_action_pile() -> None:
    rig = _Rig()
    assert _types(rig.run(0.2, _card("p", "pile4"))) == ["card_dealt"]
    out = rig.run(0.3, _card("p", "seat3", 500.0))
    # the deal is over, its stub never seen: said so
    assert _types(out) == ["piles_complete", "stub_not_countable", "action_pile_chosen", "pile_delivered"]
    assert (out[1].reason, out[2].pile, out[3].pile, out[3].seat) == ("not_seen", 4, 4, 3)
    assert rig.rec.delivered == {4: 3} and rig.rec.seats[3].tracks == {"p"}


def test_deliveries_a_pile_boxed_anew_at_a_seat_came_from_the_slot_that_emptied() -> None:
    rig = _Rig(count_deal=False)
    rig.run(0.3, _card("a", "pile5"), _card("b", "pile6", 100.0))
    rig.run(0.3, _card("b", "pile6", 100.0))  # pile 5's slot empties: its cards are on their way
    out = rig.run(0.5, _card("b", "pile6", 100.0), _card("n", "seat2", 600.0))  # a new track at seat 2
    assert [(e.type, e.pile) for e in out if e.type not in ("piles_complete", "stub_not_countable")] == [
        ("action_pile_chosen", 5), ("pile_delivered", 5)]
    assert rig.rec.delivered == {5: 2}
    rig.deliveries.reset()
    assert rig.deliveries.emptied == {} and rig.deliveries.occupied == set()


# ---- seats ------------------------------------------------------------------------------------------------

def _hand(seat: int, face_up: bool = False) -> list[Seen]:
    names = ["As", "Kd", "2c", "3c", "4c", "5c", "6c"]
    return [_card(f"c{i}", f"seat{seat}.front" if i < 2 else f"seat{seat}.back", 30.0 * i,
                  face_up=face_up, card=names[i] if face_up else None) for i in range(7)]


def test_seats_a_delivered_hand_is_set_then_opened() -> None:
    rig = _Rig()
    rig.rec.seats[2] = Seat(1, {f"c{i}" for i in range(7)})
    out = rig.run(0.6, *_hand(2))
    assert [(e.type, e.front, e.back) for e in out] == [("hand_set", [None, None], [None] * 5)]
    assert rig.seats.zones_to_read() == {"seat2.front", "seat2.back"}
    out = rig.run(0.6, *_hand(2, face_up=True))
    assert [(e.type, e.front) for e in out] == [("hand_opened", ["As", "Kd"])]
    assert rig.seats.zones_to_read() == set()


def _on_circle(seat: int, hidden: int | None = None, gap: float = 45.0) -> list[Seen]:
    """The hand _hand(seat) dealt, turned face up onto the seat's betting circle along a slanting line:
    the five-card hand fanned 16 mm a card, the two-card hand ``gap`` mm past it (card ``hidden``
    under the others, out of view)."""
    names = ["As", "Kd", "2c", "3c", "4c", "5c", "6c"]
    along = [-62.0 + 16.0 * i for i in range(5)] + [-62.0 + 64.0 + gap + 16.0 * i for i in range(2)]
    order = [2, 3, 4, 5, 6, 0, 1]  # the back's cards first along the line, then the front's
    return [_card(f"c{k}", f"seat{seat}.bet", 300.0 + 0.8 * a, 400.0 + 0.6 * a, face_up=True, card=names[k])
            for a, k in zip(along, order, strict=True) if k != hidden]


def test_seats_a_hand_laid_face_up_on_its_betting_circle_is_opened_split_at_its_widest_gap() -> None:
    rig = _Rig()
    rig.rec.seats[2] = Seat(1, {f"c{i}" for i in range(7)})
    assert _types(rig.run(0.6, *_hand(2))) == ["hand_set"]
    out = rig.run(0.6, *_on_circle(2))
    assert [(e.type, e.front, e.back) for e in out] == [
        ("hand_opened", ["As", "Kd"], ["2c", "3c", "4c", "5c", "6c"])]
    assert out[0].media_time < 0.6 + 0.3  # dated when it first lay there, settled


def test_seats_a_card_hidden_under_the_others_on_the_circle_is_unread() -> None:
    rig = _Rig()
    rig.rec.seats[2] = Seat(1, {f"c{i}" for i in range(7)})
    rig.run(0.6, *_hand(2))
    out = rig.run(0.6, *_on_circle(2, hidden=0))
    assert [(e.type, e.front, e.back) for e in out] == [
        ("hand_opened", ["Kd", None], ["2c", "3c", "4c", "5c", "6c"])]


def test_seats_a_hand_on_the_circle_with_no_gap_and_cards_not_followed_is_not_guessed() -> None:
    rig = _Rig()
    rig.rec.seats[2] = Seat(1, {f"c{i}" for i in range(7)})
    rig.run(0.6, *_hand(2))
    renamed = [replace(o, track=f"n{o.track}") for o in _on_circle(2, gap=16.0 - 64.0 + 16.0)]
    assert "hand_opened" not in _types(rig.run(0.6, *renamed))


def test_seats_a_delivered_hand_gone_before_it_was_set_was_collected() -> None:
    rig = _Rig()
    rig.rec.seats[5] = Seat(3, {"x"})
    rig.run(0.2, _card("x", "seat5"))
    out = rig.run(1.5)
    assert [(e.type, e.seat) for e in out] == [("dead_hand_collected", 5)]
    assert rig.rec.seats[5].collected


# ---- the banker -----------------------------------------------------------------------------------------

def _row(gap: float) -> list[Seen]:
    names = ["As", "Kd", "2c", "3c", "4c", "5c", "6c"]
    return [_card(f"b{i}", "banker", 40.0 * i + (gap if i >= 2 else 0.0), face_up=True, card=names[i],
                  face_sure=True) for i in range(7)]


def test_banker_a_row_face_up_is_exposed_and_split_in_two_is_set() -> None:
    rig = _Rig(banker_seat=6)
    rig.rec.delivered, rig.rec.counts[6] = {6: 6}, 7  # pile 6 went to the banker's seat: seven cards
    out = rig.run(0.3, *_row(0.0))
    assert [(e.type, sorted(e.cards)) for e in out] == [
        ("banker_hand_exposed", sorted(c.card for c in _row(0) if c.card is not None))]
    assert rig.rec.banker_exposed and rig.rec.banker_face_up and rig.banker.zones_to_read() == {"banker"}
    out = rig.run(0.5, *_row(120.0))
    assert [(e.type, e.front, e.back) for e in out] == [("banker_hand_set", ["As", "Kd"],
                                                         ["2c", "3c", "4c", "5c", "6c"])]
    rig.banker.reset()
    assert rig.banker.setting is None and rig.banker.seat == 6  # a misdeal keeps the banker


def test_banker_with_no_console_the_seat_whose_hand_went_there_banks() -> None:
    rig = _Rig()
    rig.rec.delivered = {1: 4}
    rig.rec.seats[4] = Seat(1, {f"b{i}" for i in range(7)})
    out = rig.run(0.3, *_row(0.0))
    assert [(e.type, e.seat) for e in out if e.type == "banker_changed"] == [("banker_changed", 4)]
    assert rig.banker.seat == 4
    rig.banker.banks(None)
    assert rig.banker.seat is None


# ---- where a delivered pile rests: the layout's rule -------------------------------------------------------

def _carried_to(zone: str, rules: ZoneRules) -> list[Any]:
    """Pile 5's cards leave its slot and a new track (the tracker lost them on the way) rests in ``zone``."""
    rig = _Rig(TableLayout(rules=rules), count_deal=False)
    rig.run(0.3, _card("a", "pile5"), _card("b", "pile6", 100.0))
    rig.run(0.3, _card("b", "pile6", 100.0))
    out = rig.run(0.5, _card("b", "pile6", 100.0), _card("n", zone, 600.0))
    return [(e.type, e.pile, e.seat) for e in out if e.type == "pile_delivered"]


def test_deliveries_a_pile_not_followed_is_delivered_where_the_layouts_rule_says_it_rests() -> None:
    seat_area, hands = ZoneRules(), ZoneRules(delivered_pile=DeliveredPile.HAND_AREAS)
    either = ZoneRules(delivered_pile=DeliveredPile.SEAT_OR_HANDS)
    assert _carried_to("seat2", seat_area) == [("pile_delivered", 5, 2)]  # the default: the seat's own felt
    assert _carried_to("seat2.back", seat_area) == []
    assert _carried_to("seat2.back", hands) == [("pile_delivered", 5, 2)]
    assert _carried_to("seat2", hands) == []
    assert _carried_to("seat2.front", either) == _carried_to("seat2", either) == [("pile_delivered", 5, 2)]


def test_deliveries_on_hand_areas_a_seats_own_hand_being_set_is_no_second_pile() -> None:
    rig = _Rig(TableLayout(rules=ZoneRules(delivered_pile=DeliveredPile.HAND_AREAS)), count_deal=False)
    rig.run(0.3, _card("a", "pile5"), _card("b", "pile6", 100.0))
    rig.run(0.3, _card("b", "pile6", 100.0))
    out = rig.run(0.5, _card("b", "pile6", 100.0), _card("n", "seat2.back", 600.0))
    assert [e.pile for e in out if e.type == "pile_delivered"] == [5]
    # pile 6's slot empties as seat 2's hand is set, a card boxed anew on its front area: still seat 2's hand
    out = rig.run(0.5, _card("n", "seat2.back", 600.0), _card("m", "seat2.front", 640.0))
    assert [e for e in out if e.type == "pile_delivered"] == [] and "m" in rig.rec.seats[2].tracks


def test_an_extractor_reads_the_delivered_pile_rule_of_its_table_file() -> None:
    cal = load_table(TABLE_FILE)
    assert TableLayout.of(cal.zones, cal.zone_rules).rules == ZoneRules()  # the default table's
    hands = replace(cal, zone_rules=ZoneRules(delivered_pile=DeliveredPile.HAND_AREAS))

    def delivered(layout: TableLayout) -> list[tuple[int, int]]:
        x = EventExtractor("T1", ExtractorSettings(count_deal=False), layout=layout)
        frames = [(_card("a", "pile5"), _card("b", "pile6", 100.0))] * 9 + [(_card("b", "pile6", 100.0),)] * 9
        frames += [(_card("b", "pile6", 100.0), _card("n", "seat2.back", 600.0))] * 15
        events = [e for k, objects in enumerate(frames) for e in x.frame(k, k / FPS, objects)]
        return [(e.pile, e.seat) for e in events if e.type == "pile_delivered"]

    assert delivered(TableLayout.of(hands.zones, hands.zone_rules)) == [(5, 2)]
    assert delivered(TableLayout.of(cal.zones, cal.zone_rules)) == []  # the seat's own felt, by default
