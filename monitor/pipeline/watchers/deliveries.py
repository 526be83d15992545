"""Deliveries: a pile's cards come to rest at a seat (``pile_delivered``, seed 000 rules 8, 9, 21), the
first one also naming the action pile (rule 8: the action pile is delivered first) unless the console
did; and the cards resting at each seat once its pile is there (the seat's hand, for the seats
watcher).

A pile crosses the table in a few frames; a tracker matching boxes frame to frame loses it on the way
and starts a new track at the seat. The slot it left says which pile it was: piles are carried one at
a time, so they show at the seats in the order their slots emptied. Where the slots' pictures are
watched, a slot is empty once its picture says so (the dealer's arm over the next slot hides that
pile for a moment).

Where a pile not followed from its slot counts as delivered is the layout's ``delivered_pile`` rule
(docs/layout.md): on the seat's own felt (the default), on its hand areas, or on either. A pile
followed from its slot counts wherever it rests among the seat's zones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from monitor.calibration.zones import delivery_seat, zone_kind, zone_number
from monitor.events.schema import PILES, EventBase
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.deal import DealWatcher
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.exposures import ExposuresWatcher
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.round_record import RoundRecord, Seat
from monitor.pipeline.watchers.seats import SeatsWatcher
from monitor.pipeline.watchers.view import FrameView, TableLayout

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings

WAIT = -1  # a judgement that waits for more frames
AMBIGUOUS = -2  # two slots emptied before a pile showed at a seat: the next pile to show says which


class DeliveriesWatcher:
    """Where each pile went; see the module doc. A card come to rest on a pile slot is the deal
    watcher's to count; an exposed card taken off its pile is told by the exposures watcher's reads;
    a seat's hand boxed anew is known by where the seats watcher's cards lie. ``layout``: its zone
    rules say where a delivered pile rests."""

    def __init__(self, settings: ExtractorSettings, rest: RestWatcher, out: Outbox, record: RoundRecord,
                 layout: TableLayout, deal: DealWatcher, exposures: ExposuresWatcher,
                 seats: SeatsWatcher) -> None:
        self.s, self.rest, self.out, self.rec = settings, rest, out, record
        self.rules = layout.rules
        self.deal, self.exposures, self.seats = deal, exposures, seats
        self.reset()

    def reset(self) -> None:
        """A new round or a misdeal."""
        self.emptied: dict[int, float] = {}  # pile slot -> when its cards left it
        # Watched slots (their pictures): pile slot -> when its cards went out of sight, until its picture
        # shows it still and not as it was with the pile (an arm over it hides a pile that stays); the
        # version it showed holding its pile; seat cards waiting for the slot their pile left to be known.
        self.vanished: dict[int, float] = {}
        self.slot_version: dict[int, int] = {}
        self.waiting: dict[str, float] = {}  # card track -> when it came to rest
        self.carried: dict[int, float] = {}  # delivered pile -> when its slot emptied
        self.occupied: set[int] = set()  # pile slots holding cards (after the deal)

    def frame(self, view: FrameView) -> list[EventBase]:
        """The cards come to rest in this frame (the deal watcher's landings among them)."""
        for o, _ in view.settled:
            if o.kind == "card":
                self._card_rests(o)
        return self.out.take()

    def slots(self, view: FrameView) -> list[EventBase]:
        """Which pile slots hold cards, and when each was emptied (the deal never empties one); then
        the cards waiting at seats for the slot their pile left to be known, judged again."""
        d, now = self.rec, self.out.now
        if d.last_card is None:
            return self.out.take()
        # (a pile carried across other slots on its way to a seat does not fill them)
        now_occupied = {n for o in view.present.values() if o.kind == "card" and zone_kind(o.zone) == "pile"
                        and self.rest.tracks[o.track].resting == o.zone
                        and (n := zone_number(o.zone)) is not None}
        for p in self.occupied - now_occupied:
            self.vanished[p] = now
        for p in now_occupied:
            self.emptied.pop(p, None)
            self.vanished.pop(p, None)
            spot = view.spots.get(f"pile{p}")
            if spot is not None and spot.settled:
                self.slot_version[p] = spot.version
        self.occupied = now_occupied
        for p, t in list(self.vanished.items()):
            spot = view.spots.get(f"pile{p}")
            if spot is None or (spot.settled and spot.version != self.slot_version.get(p, -1)):
                self.emptied[p] = t  # dated when its cards were last known there
                del self.vanished[p]
            elif spot.settled:
                self.vanished[p] = now  # still as it was with its pile: there, though not detected
        for track in sorted(self.waiting, key=self.waiting.__getitem__):  # in the order they came to rest
            tr = self.rest.tracks.get(track)
            if tr is None or tr.last is None or not self.rest.at_rest(tr.last) or track in d.pile_of:
                del self.waiting[track]
            else:
                self._card_rests(tr.last)
        return self.out.take()

    def _card_rests(self, o: Seen) -> None:
        d, now = self.rec, self.out.now
        kind = zone_kind(o.zone)
        if kind == "pile":
            self.deal.card_rests(o)
            return
        seat = zone_number(o.zone) if kind in ("seat", "front", "back") else None
        if seat is not None and kind in ("front", "back"):
            self._delivery_unseen(seat, o)
        if seat in d.seats and kind in ("front", "back") and not any(o.track in st.tracks
                                                                       for st in d.seats.values()):
            d.seats[seat].tracks.add(o.track)  # a card never seen on its pile (always covered there)
        if (seat in d.seats and kind == "seat" and o.track not in d.pile_of
                and not any(o.track in st.tracks for st in d.seats.values())
                and self.seats.where_hand_lies(d.seats[seat], o)):
            d.seats[seat].tracks.add(o.track)  # the seat's hand boxed anew after a dropout: no delivery
            return
        pile = d.pile_of.get(o.track)
        if pile is None and seat is not None and self._rests_delivered(o, seat):
            # judged as of when it came there: the next pile's slot may go out of sight (the arm
            # reaching for it) while this one settles
            rested = self.waiting.pop(o.track, min(now, self.rest.tracks[o.track].entered))
            pile = self._arrived_from(o, seat, rested)
            if pile in (WAIT, AMBIGUOUS):
                if now - rested < self.s.slot_wait_s:
                    self.waiting[o.track] = rested
                    return
                pile = self._pile_just_moved(rested, judged=False)
            if pile is not None:
                d.pile_of[o.track] = pile
        if seat is None and o.zone != "banker" and not d.delivered:
            gone = o.track if o.track in d.exposed else self.exposures.exposed_card(o)
            if gone is not None:
                # the exposed card taken off its pile (rule 51): it is no longer part of that hand
                d.removed.append(d.exposed.pop(gone))
                d.pile_of.pop(gone, None)
                return
        if seat is not None and pile is not None and pile not in d.delivered:
            self.deal.complete(stub=None)
            if d.action_pile is None and not d.delivered:
                d.action_pile = self._moved_first(pile, self.rest.tracks[o.track].entered)
                self.out.emit("action_pile_chosen", o.confidence, pile=d.action_pile)
            self._deliver(pile, seat, {t for t, p in d.pile_of.items() if p == pile}, o.confidence)

    def _rests_delivered(self, o: Seen, seat: int) -> bool:
        """``o`` rests where the layout's rules put a delivered pile. A hand area of a seat whose pile
        is there already holds that hand being set, not a second pile."""
        if delivery_seat(o.zone, self.rules) is None:
            return False
        return zone_kind(o.zone) == "seat" or seat not in self.rec.seats

    def _deliver(self, pile: int, seat: int, tracks: set[str], confidence: float) -> None:
        d = self.rec
        d.delivered[pile] = seat
        self.carried[pile] = self.emptied.get(pile, self.vanished.get(pile, self.out.now))
        d.seats[seat] = Seat(pile, tracks)
        self.out.emit("pile_delivered", confidence, pile=pile, seat=seat)

    def _delivery_unseen(self, seat: int, o: Seen) -> None:
        """A hand being set at a seat no pile was seen to reach: the detector missed the pile at that
        seat (seat 7, at the layout's edge, in two of a hundred random rounds). When every other pile
        was delivered and the one left is gone from its slot, it is the pile that went there: delivered
        (reported now, when vision knows it), so the seat's setting is followed and not taken for a
        hand never set (rules 35, 37)."""
        d = self.rec
        if seat in d.seats or not d.delivered or seat in d.delivered.values():
            return
        left = [p for p in range(1, PILES + 1) if p not in d.delivered]
        if len(left) != 1 or left[0] in self.occupied:
            return
        self._deliver(left[0], seat, {o.track}, o.confidence)

    def _moved_first(self, pile: int, at: float) -> int:
        """The action pile, the one delivered first (rule 8): ``pile``, seen first at a seat at ``at``,
        unless another slot emptied before its own (within ``move_s``): that pile's arrival went unseen
        (a stack the detector never boxed), and taking ``pile`` for the action pile would judge every
        delivery after it against the wrong seat."""
        own = self.emptied.get(pile, self.vanished.get(pile, at))
        earlier = [(t, p) for p, t in self.emptied.items() if p != pile and at - self.s.move_s <= t < own]
        return min(earlier)[1] if earlier else pile

    def _arrived_from(self, o: Seen, seat: int, rested: float) -> int | None:
        """The pile slot a pile come to rest at ``seat`` at ``rested`` left, ``WAIT`` or ``AMBIGUOUS``.

        Piles are carried one at a time, so they show at the seats in the order their slots emptied.
        An arrival seen late (its track started after the next slot emptied) finds two slots emptied
        before it: the next arrival, at another seat, takes the later one, and this one the earlier.
        """
        if any(r < rested for t, r in self.waiting.items() if t != o.track):
            return WAIT  # an earlier arrival is still undecided: judged in the order they came
        pile = self._pile_just_moved(rested)
        if pile != AMBIGUOUS:
            return pile
        later = sorted((r, t) for t, r in self.waiting.items()
                       if r > rested and (tr := self.rest.tracks.get(t)) is not None
                       and zone_number(tr.zone) != seat)
        if not later:
            return AMBIGUOUS
        nxt = self._pile_just_moved(later[0][0], before=math.inf)
        if nxt is None or nxt < 0:
            return AMBIGUOUS
        return self._pile_just_moved(rested, before=self.emptied[nxt])

    def _pile_just_moved(self, at: float, judged: bool = True, before: float | None = None) -> int | None:
        """The pile slot emptied last (within ``move_s`` before ``at``) and not yet delivered, or
        ``WAIT``: a slot whose cards went out of sight later is not yet known to be empty;
        ``AMBIGUOUS``: two slots emptied (given ``before``: the last one emptied before that time;
        ``math.inf``: the later one).

        Taking an arm over the next slot for the slot emptied last delivered the wrong pile, so a slot
        out of sight is not yet empty. ``judged=False``: every slot out of sight counts (waited too
        long). A slot emptied before the slot of a pile already delivered is not this pile's: piles
        are carried one at a time, and its own arrival was missed.
        """
        d = self.rec
        after = max(self.carried.values(), default=-math.inf)
        lo, hi, end = at - self.s.move_s, at - self.s.carry_s, at
        if before is not None:
            hi, end = min(hi, before - 1e-6), min(end, before - 1e-6)

        def fresh(slots: Mapping[int, float]) -> list[tuple[float, int]]:
            return [(t, p) for p, t in slots.items() if p not in d.delivered and after < t and lo <= t <= end]

        left, hidden = fresh(self.emptied), fresh(self.vanished)
        if not judged:
            left, hidden = left + hidden, []
        # (a slot whose cards left after the pile came to rest at the seat is the next pile's)
        early, early_hidden = [e for e in left if e[0] <= hi], [e for e in hidden if e[0] <= hi]
        if early_hidden and (not early or max(early_hidden)[0] > max(early)[0]):
            return WAIT
        if early:
            if len(early) > 1 and judged and before is None:
                return AMBIGUOUS
            return max(early)[1]
        # none emptied carry_s before: a pile carried faster than that left the slot emptied first
        if hidden and (not left or min(hidden)[0] < min(left)[0]):
            return WAIT
        return min(left)[1] if left else None
