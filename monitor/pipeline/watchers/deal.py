"""The deal: each card put on a pile slot counted (``card_dealt``), the piles complete and the stub
counted (``piles_complete``, ``stub_counted``, rule 55) or said not countable and why
(``stub_not_countable``), a replacement for an exposed card taken off (``exposed_card_replaced``, rule 51).

A card put on a pile covers the one below at nearly the same place, under the hand: a tracker keeps
the covered card's id (or the detector sees one pile), so no new card is seen. The dealer's hand
shows it: in a 7x7 deal it goes back to the deck between two cards, so one trip over the slots is one
card, put on the slot the hand came closest to. Where the deck's place is known (the layout), a trip
ends where the hand turns back toward it. A trip is read ``visit_read_s`` after the hand left (is
the card face up?), and the counted cards go out in the deal's order.

So a card that comes to rest on a pile with no trip is taken for a card lying there boxed anew,
except while the hand is out of view (no hand over any slot since the card set off, that is since it
was last seen lying where it lay: a card carried hidden under a seen hand is its trip's): then what lands
is counted, a card brought from more than ``land_mm`` away (from the deck, or first seen in flight)
or, boxed first where it lies, one under which the slot's picture changed since its last card.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from monitor.calibration.zones import zone_kind, zone_number
from monitor.events.schema import PILES, EventBase
from monitor.geometry.shapes import convex_hull, hull_distance
from monitor.perception.spot_watch import SpotView
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.exposures import ExposuresWatcher
from monitor.pipeline.watchers.held import Held
from monitor.pipeline.watchers.rest import RestWatcher, Track
from monitor.pipeline.watchers.round_record import Dealt, HandAt, RoundRecord, Visit
from monitor.pipeline.watchers.view import FrameView, TableLayout

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings

# events that may pass a counted card still waiting for its read (none of them closes the deal)
PASS_DEALT = frozenset({"card_dealt", "card_exposed", "bet_placed", "bet_changed", "dice_rolled"})


class DealWatcher:
    """The deal card by card; see the module doc. ``layout``: the pile slots' centres and the deck's
    place, where known."""

    def __init__(self, settings: ExtractorSettings, rest: RestWatcher, out: Outbox, record: RoundRecord,
                 layout: TableLayout, exposures: ExposuresWatcher) -> None:
        self.s, self.rest, self.out, self.rec = settings, rest, out, record
        self.exposures = exposures
        self.slot_centers = layout.slot_centers
        self.slot_hulls = layout.slot_hulls
        self.deck_at = layout.deck_at
        self._deal_hull: list[tuple[float, float]] | None = None  # deck and slots: where the hand deals
        self.reset()

    def reset(self) -> None:
        """A new round or a misdeal (send what is queued first: :meth:`flush`)."""
        self.stub = Held()
        self.stub_n: int | None = None
        self.stub_seen: dict[str, float] = {}  # stub card track -> last seen resting
        # why the stub, as last seen after the deal, gave no count: (reason, the counter's words)
        self.stub_why: tuple[str, str | None] = ("not_seen", None)
        self.stub_said = False  # stub_not_countable sent for this deal
        self.hand_frame: int | None = None  # the last frame a hand was seen over a pile slot in
        self.slot_pics: Mapping[str, SpotView] = {}  # the pile slots' pictures this frame, where watched
        self.counted_pic: dict[int, int] = {}  # pile -> its picture's version when a card was last counted

    def zones_to_read(self) -> set[str]:
        """Pile slots where a counted card lies unread, its read awaited."""
        return {f"pile{e.pile}" for e in self.rec.dealt_out if e.track is not None}

    def flush(self) -> None:
        """Send every counted card now, read or not: the deal is closing, or the round is."""
        if self.rec.dealt_out:
            self._send_dealt({}, force=True)

    def before(self, etype: str) -> None:
        """The outbox's hook: what closes or follows the deal comes after its cards."""
        if etype not in PASS_DEALT:
            self.flush()

    # ---- each frame ------------------------------------------------------------------------------

    def landed(self, view: FrameView) -> FrameView:
        """The view with the cards that came onto a pile and vanished there before they settled added
        to what settled: they landed.

        A card covered before the debounce ended (the next card came quickly, or a lagging chain
        skipped frames) is one case. A tracker's id switch is the other: the card landing on a pile
        covers the one below, and the tracker may give the landing card's box to the covered card's
        track, so the landing card's own track ends on the pile. Either way a card that vanishes on a
        pile, on top of (``land_mm``) a card resting there, landed; one that vanishes for less than
        ``missing_s`` may be a detector's dropout, so the decision waits that long.
        """
        out: list[tuple[Seen, str | None]] = []
        for track in self.rest.gone_landing(view):
            tr = self.rest.tracks[track]
            o = tr.last
            if o is None or self.rec.done:
                continue
            if not self._brought_unseen(o) and self.visit_covers(pile := zone_number(tr.zone), tr.entered):
                if pile is not None and tr.still >= 2:
                    self.rec.pile_of.setdefault(track, pile)  # it stopped there: its hand's visit counted it
                continue
            # a card stopped there; or, where no hand is seen (none in the round, or none over a slot
            # since the card set off), one whose track ended on top of a pile (the tracker gave its
            # box to the covered card): with hands in view, a card that vanishes over a slot without
            # stopping and without a hand there was flying over it
            if tr.still >= 2 or ((not self.rec.visits or self._no_hand_since(tr.set_off[0]))
                                 and self._on_a_pile(o)):
                before, tr.resting = tr.resting, tr.zone
                out.append((o, before))
        return replace(view, settled=(*view.settled, *out)) if out else view

    def frame(self, view: FrameView) -> list[EventBase]:
        """The dealer's trips over the slots, and the counted cards sent as they are read."""
        present = view.present
        if any(self._slots_under(h) for h in view.hands):
            self.hand_frame = self.out.frame
        self.slot_pics = view.spots
        self._hand_visits(list(view.hands), present, view.spots)
        if self.rec.dealt_out:
            self._send_dealt(present, force=self.rec.done or bool(self.rec.delivered))
        return self.out.take()

    def card_rests(self, o: Seen) -> None:
        """A card come to rest on a pile slot: dealt (counted where no hand's trip counts it), or after
        the deal the first stub card replacing an exposed one taken off (rule 51)."""
        d, now = self.rec, self.out.now
        pile = zone_number(o.zone)
        assert pile is not None
        if o.track in d.pile_of and not d.done and not d.delivered:
            d.pile_of[o.track] = pile  # it lies here: an earlier guess (seen flying past) was wrong
            return
        if o.track in d.pile_of or d.delivered:
            return  # already counted, or a pile squared after delivery began
        # (a card brought with no hand in view after the visit's hand left is not the visit's card)
        if (not d.done and not self._brought_unseen(o)
                and self.visit_covers(pile, self.rest.tracks[o.track].entered)):
            d.pile_of[o.track] = pile  # put there by a hand whose visit counts it
            return
        if (not d.done and self.s.count_deal and self.deck_at is not None and d.visits
                and not self._landed_unseen(o, pile)):
            # the deal is counted by the hand's trips from the deck, and no trip put this card
            # here: a card already lying there boxed anew (a new track), not a card dealt
            d.pile_of[o.track] = pile
            return
        d.pile_of[o.track] = pile
        d.counts[pile] += 1
        d.last_card = now
        self._note_pic(pile)
        if not d.done and not self.s.count_deal:
            return  # not reported: a named face-up card is (by the exposures watcher), uncounted
        if not d.done:
            if o.face_up:
                self.exposures.mark_exposed(o.track, pile, o.card, o.rank)
            if d.dealt_out:  # trips' cards before it still wait for their reads: it goes out after them
                at = len(d.dealt_out)
                while at and d.dealt_out[at - 1].at[0] > now:
                    at -= 1
                d.dealt_out.insert(at, Dealt((now, self.out.frame), pile, o.face_up, o.confidence, o.card,
                                             o.rank))
            else:
                self.out.emit("card_dealt", o.confidence, pile=pile, face_up=o.face_up, card=o.card,
                              rank=o.rank)
        elif d.removed:
            d.removed.remove(pile) if pile in d.removed else d.removed.pop(0)
            self.stub_n = None if self.stub_n is None else self.stub_n - 1
            self.out.emit("exposed_card_replaced", o.confidence, pile=pile, card=o.card)

    def complete(self, stub: int | None, at: tuple[float, int] | None = None) -> None:
        """The deal is over (the stub counted, or a pile seen at a seat)."""
        d = self.rec
        if d.done or d.last_card is None:
            return
        d.done = True
        if self.s.count_deal:
            self.out.emit("piles_complete", at=at, counts=d.counts[1:8])
        if stub is not None:
            self.out.emit("stub_counted", at=at, n=stub)
        elif not self.stub_said:
            # the deal closed (a pile taken to a seat) with no count: said, so rule 55 is known unjudged
            self._not_countable()

    def _not_countable(self) -> None:
        reason, detail = self.stub_why
        self.stub_said = True
        self.out.emit("stub_not_countable", reason=reason, detail=detail)

    def stub_spread(self, view: FrameView) -> list[EventBase]:
        """The deal's end: the stub spread for counting, from its picture where watched, else from its
        cards' tracks; after the count, a replacement taken from it (rule 51)."""
        d, now = self.rec, self.out.now
        watched = "stub" in view.spots
        # Tracks count the stub only once no card has landed for a moment. A watched stub's picture
        # must lie still for a second (the chain), which it never does while the dealer's hand goes
        # between the deck and the piles; there the idle wait is not asked for, as a detector's
        # re-boxing of the piles keeps making "new" card tracks after the deal, for seconds.
        if d.last_card is None or (not watched and now - d.last_card < self.s.deal_idle_s):
            return self.out.take()
        n: int | None
        at: tuple[float, int] | None = None
        if watched:
            # its cards are counted edge by edge there, not by tracks, which cannot separate cards
            # fanned under one box; not countable (an arm over it, the cards squared) is no count
            n = None if view.stub is None else view.stub.n
            at = view.stub_still if n is not None else None  # dated when it came to lie still
            # (its zone not yet lying still, an arm passing over it, is no reason)
            if view.stub is not None and n is None and not d.done and "lain still" not in view.stub.why:
                self.stub_why = _spread_why(view.stub.why)
            squared = view.stub is not None and view.stub.why.startswith("squared")
        else:
            for o in view.present.values():
                if o.kind == "card" and o.zone == "stub" and self.rest.at_rest(o):
                    self.stub_seen[o.track] = now
            # a card missing from a frame or two (a detector's dropout) is still in the stub
            n = sum(1 for t in self.stub_seen.values() if now - t <= self.s.missing_s)
            squared = n == 1
            if squared and not d.done:
                # one box there is the stub squared in one stack: its cards are not separated from above
                # (none there is no reason in itself: an arm may be passing over it)
                self.stub_why = ("squared", "one stack in the stub's zone")
        if (squared and not d.done and not self.stub_said and d.last_card is not None
                and now - d.last_card >= self.s.stub_wait_s - 1e-9):
            # the deal over (no card for a while) and the stub left squared: said now, not only when a
            # pile is delivered (a misdeal may void the deal first); a count later supersedes it
            self._not_countable()
        self.stub.update(n, now)
        if n is None:
            return self.out.take()
        if d.done:
            # After the count, the first stub card going into a pile whose exposed card was taken off
            # is the replacement of rule 51, even where it slides in under other cards unseen.
            if (d.removed and self.stub_n is not None and not d.delivered and n < self.stub_n
                    and self.stub.held(now, self.s.stable_s)):
                pile = d.removed.pop(0)
                self.stub_n -= 1
                self.out.emit("exposed_card_replaced", pile=pile)
            return self.out.take()
        # the stub spread for counting: several cards resting side by side, for a while
        if n >= 2 and (at is not None or self.stub.held(now, self.s.stable_s)):
            self.stub_n = n
            self.complete(stub=n, at=at)
        return self.out.take()

    def visit_covers(self, pile: int | None, entered: float) -> bool:
        """A card that came onto ``pile`` at ``entered`` was put there during a hand's visit."""
        # (a card that came in the frame the visit was read, or later, was not among those read)
        now = self.out.now
        return any((v.pile == pile or (v.ended is None and pile in v.closest)) and v.start - 0.2 <= entered
                   and entered <= (v.ended if v.ended is not None else now) + self.s.visit_read_s + 0.3
                   and (v.read_at is None or entered < v.read_at - 1e-9)
                   for v in self.rec.visits)

    def _brought_unseen(self, o: Seen) -> bool:
        """``o`` set off more than ``land_mm`` from where it is (from the deck, or first seen in
        flight) with no hand seen over a slot since: a card dealt with the dealer's hand out of view."""
        f0, x0, y0 = self.rest.tracks[o.track].set_off
        return self._no_hand_since(f0) and math.hypot(o.x - x0, o.y - y0) > self.s.land_mm

    def _no_hand_since(self, frame: int) -> bool:
        """No hand seen over a pile slot from ``frame`` on."""
        return self.hand_frame is None or self.hand_frame < frame

    def _note_pic(self, pile: int) -> None:
        """A card counted on ``pile``: its picture now is the one a card after it must change."""
        if (pic := self.slot_pics.get(f"pile{pile}")) is not None:
            self.counted_pic[pile] = pic.version

    def _landed_unseen(self, o: Seen, pile: int) -> bool:
        """A card come to rest on ``pile`` with no hand seen over any slot since it set off (the
        dealer's hand out of view): dealt, if it was brought there (it set off more than ``land_mm``
        away: from the deck, or seen first in flight) or, boxed first where it lies, the slot's picture
        has changed since the last card counted there. A card lying there boxed anew does neither.
        Where a hand is seen, its trips count the deal and such a card is a re-boxing."""
        if self._brought_unseen(o):
            return True
        if not self._no_hand_since(self.rest.tracks[o.track].set_off[0]):
            return False
        pic = self.slot_pics.get(f"pile{pile}")
        return pic is not None and pic.settled and pic.version != self.counted_pic.get(pile, 0)

    # ---- the dealer's hand over the pile slots ---------------------------------------------------

    def _on_a_pile(self, o: Seen) -> bool:
        """``o`` was over a card resting on its pile slot (not merely flying across the slot)."""
        for t, tr in self.rest.tracks.items():
            r = tr.last
            if (t != o.track and r is not None and r.kind == "card" and tr.resting == o.zone
                    and tr.zone == o.zone and self.out.now - tr.seen_at <= self.s.missing_s + 0.2
                    and (r.x - o.x) ** 2 + (r.y - o.y) ** 2 <= self.s.land_mm ** 2):
                return True
        return False

    def _hand_visits(self, hands: list[Seen], present: Mapping[str, Seen],
                     spots: Mapping[str, SpotView]) -> None:
        """Each trip of the dealer's hand to the pile slots during the deal puts one card down (see the
        module doc). Not after the deal: delivery and replacements have their own events."""
        d, now = self.rec, self.out.now
        if d.done or d.delivered or not self.s.count_deal:
            return
        if self.deck_at is not None:
            self._hand_trips(hands, present, spots)
            return
        over = [(n, h) for h in hands for n in self._slots_under(h)]
        run = d.visits[-1] if d.visits and d.visits[-1].ended is None else None
        if over:
            if run is None:
                for old in d.visits:  # the hand is back: read what is in view before it covers it
                    if not old.read:
                        self._visit_read(old, present, final=False)
                run = Visit(now, self.out.frame, now)
                d.visits.append(run)
            run.last = now
            for pile, h in over:
                run.closest[pile] = min(run.closest.get(pile, 1e9), self._to_slot(pile, h, present))
        elif run is not None and now - run.last >= self.s.visit_gap_s - 1e-9:
            run.ended = run.last
            run.pile = min(run.closest, key=lambda p: (run.closest[p], p))
        for v in d.visits:
            if v.ended is not None and not v.read and now - v.ended >= self.s.visit_read_s - 1e-9:
                self._visit_read(v, present, final=now - v.ended >= self.s.visit_read_s + 0.3)

    def _hand_trips(self, hands: list[Seen], present: Mapping[str, Seen],
                    spots: Mapping[str, SpotView]) -> None:
        """:meth:`_hand_visits` with the deck's place known: a trip goes out from the deck and back.

        At 15 fps a card takes 4-5 frames and the hand is seen near the deck for one of them or none,
        so waiting for it to be over no slot for ``visit_gap_s`` merges trips (two cards counted as
        one, every later card a pile early). A trip ends instead where the hand's distance from the
        deck turns from falling to rising by ``trip_turn_mm`` (the hand went back for the next card),
        or, as before, when it has been over no slot for ``visit_gap_s``; its card went to the slot
        under the hand where it came farthest from the deck (the end of its way out).
        """
        d, now = self.rec, self.out.now
        run = d.visits[-1] if d.visits and d.visits[-1].ended is None else None
        hand = self._dealing_hand(hands)
        if hand is not None:
            dist, under = hand
            if run is None and under and not self._deal_counted():
                run = self._new_trip(present)
            if run is not None:
                run.path.append(HandAt(now, self.out.frame, dist, under))
                if under:
                    run.last = now
                    for pile, mm in under:
                        run.closest[pile] = min(run.closest.get(pile, 1e9), mm)
                run = self._trip_turn(run, present)
        if run is not None and (hand is None or not hand[1]) \
                and now - run.last >= self.s.visit_gap_s - 1e-9:
            self._end_trip(run, run.path)
        unread = [v for v in d.visits if v.ended is not None and not v.read]
        if unread and spots:
            covered = {n for h in hands for n in self._slots_under(h)}
            for v in unread:
                if v.pile not in covered and (view := spots.get(f"pile{v.pile}")) is not None:
                    v.slot_moved = max(v.slot_moved, view.difference)
        for v in d.visits:
            if v.ended is not None and not v.read and now - v.ended >= self.s.visit_read_s - 1e-9:
                self._visit_read(v, present, final=now - v.ended >= self.s.visit_read_s + 0.3)

    def _deal_counted(self) -> bool:
        """All 49 cards of the 7x7 deal counted and the hand paused since (rule 6): a trip now is not
        the deal's (it takes an exposed card off a pile before the stub is counted, rule 51). A 50th
        card dealt in the deal's rhythm is still counted (a pile of eight is a foul deal)."""
        d = self.rec
        return (sum(d.counts) >= PILES * 7 and d.last_card is not None
                and self.out.now - d.last_card >= self.s.deal_idle_s)

    def _dealing_hand(self, hands: list[Seen]) -> tuple[float, tuple[tuple[int, float], ...]] | None:
        """The hand dealing, as (mm from the deck, slots under it): of the hands over a slot the
        farthest from the deck (a second box on the wrist is nearer), else the hand nearest the deck
        of those near it or on the way between it and the slots (at 10 fps the one sighting of the
        hand going back from a far pile may be 400 mm from the deck: without it two trips are one)."""
        assert self.deck_at is not None
        dx, dy = self.deck_at
        if self._deal_hull is None:
            self._deal_hull = convex_hull([(dx, dy), *self.slot_centers.values()])
        best: tuple[float, tuple[tuple[int, float], ...]] | None = None
        near: float | None = None
        for h in hands:
            dist = math.hypot(h.x - dx, h.y - dy)
            under = tuple((n, math.hypot(self.slot_centers[n][0] - h.x, self.slot_centers[n][1] - h.y))
                          for n in self._slots_under(h))
            if under and (best is None or dist > best[0]):
                best = (dist, under)
            elif not under and (near is None or dist < near) and (
                    dist <= self.s.deck_reach_mm
                    or hull_distance(self._deal_hull, h.x, h.y) <= self.s.hand_reach_mm):
                near = dist
        if best is not None:
            return best
        return None if near is None else (near, ())

    def _new_trip(self, present: Mapping[str, Seen]) -> Visit:
        for old in self.rec.visits:  # the hand is back: read what is in view before it covers it
            if not old.read:
                self._visit_read(old, present, final=False)
        now = self.out.now
        run = Visit(now, self.out.frame, now)
        self.rec.visits.append(run)
        return run

    def _trip_turn(self, run: Visit, present: Mapping[str, Seen]) -> Visit | None:
        """Split the trip where the hand turned back at the deck: a valley in its distance from the
        deck ``trip_turn_mm`` below the farthest point before it and below the sighting now."""
        path = run.path

        def turn(a: HandAt) -> float:
            return self.s.trip_turn_mm if a.under else min(self.s.trip_turn_mm, self.s.trip_turn_off_mm)

        # the lowest sighting that far below the farthest before it (checked every frame, so there
        # is at most one turn in the path: the next trip's farthest point may already be in it)
        valley, far = None, path[0].deck_mm
        for i in range(1, len(path) - 1):
            low = path[i].deck_mm
            if far - low >= turn(path[i]) and (valley is None or low < path[valley].deck_mm):
                valley = i
            far = max(far, low)
        if valley is None or path[-1].deck_mm - path[valley].deck_mm < turn(path[valley]):
            return run
        self._end_trip(run, path[:valley + 1])
        rest = path[valley + 1:]
        out = [a for a in rest if a.under]
        if not out:
            return None
        nxt = Visit(out[0].t, out[0].frame, out[-1].t, path=rest)
        for a in out:
            for pile, mm in a.under:
                nxt.closest[pile] = min(nxt.closest.get(pile, 1e9), mm)
        for old in self.rec.visits:
            if not old.read:
                self._visit_read(old, present, final=False)
        self.rec.visits.append(nxt)
        return nxt

    @staticmethod
    def _end_trip(run: Visit, path: list[HandAt]) -> None:
        """The trip's card went to the slot nearest the hand where it came farthest from the deck."""
        run.path = path
        over = [a for a in path if a.under]
        run.ended = run.last = over[-1].t if over else run.last
        far = max(over, key=lambda a: a.deck_mm, default=None)
        if far is not None:
            run.pile = min(far.under, key=lambda u: (u[1], u[0]))[0]
        else:
            run.pile = min(run.closest, key=lambda p: (run.closest[p], p))

    def _slots_under(self, hand: Seen) -> list[int]:
        if not self.slot_centers:
            n = zone_number(hand.zone) if zone_kind(hand.zone) == "pile" else None
            return [] if n is None else [n]
        r2 = self.s.hand_reach_mm ** 2
        return [n for n, (x, y) in self.slot_centers.items()
                if (x - hand.x) ** 2 + (y - hand.y) ** 2 <= r2
                or ((hull := self.slot_hulls.get(n)) is not None
                    and hull_distance(hull, hand.x, hand.y) <= self.s.slot_reach_mm)]

    def _to_slot(self, pile: int, hand: Seen, present: Mapping[str, Seen]) -> float:
        """How far the hand is from where cards lie on ``pile``: the slot's centre, or without a
        calibration the cards lying there (not a card in flight: the hand carries that one)."""
        c = self.slot_centers.get(pile)
        if c is not None:
            return math.hypot(c[0] - hand.x, c[1] - hand.y)
        return min((math.hypot(o.x - hand.x, o.y - hand.y) for o in present.values()
                    if o.kind == "card" and o.zone == hand.zone and self.rest.tracks[o.track].still >= 2),
                   default=1e9)

    # ---- a trip's card, read and sent --------------------------------------------------------------

    def _visit_read(self, v: Visit, present: Mapping[str, Seen], final: bool = True) -> bool:
        """Count the visit's card once it is seen lying on the slot (its face says if it is exposed).

        Not in view yet (a detector's dropout): wait, unless ``final``; then the cards seen lying there
        a moment ago, or come there since the visit, say it. Nothing lying on the slot: the hand only
        touched it, or swept its cards away (a misdeal): no card. True once read.
        """
        d, now, tracks = self.rec, self.out.now, self.rest.tracks
        # (not a card brought after the hand left with no hand in view: the next card, its own count)
        on_slot = [tr for tr in tracks.values()
                   if _card_on_slot(tr) and tr.last is not None and not self._brought_unseen(tr.last)]

        def lying(tr: Track) -> bool:  # a card flying over the slot to the next pile is not on it
            return zone_number(tr.zone) == v.pile and tr.still >= 2

        # A hand passing close to a neighbour on its way (a frame of the landing missed) is nearer
        # that slot: where a new card came to lie during the trip is the better witness.
        # (only during this trip: a card that came after it was put there by the next one)
        later = [w.start for w in d.visits if w.start > v.start]
        until = min([(v.ended or v.last) + 0.15, *later])
        landed = {n for tr in on_slot
                  if tr.still >= 2 and v.start - 0.2 <= tr.entered < until and tr.last is not None
                  and tr.last.track not in d.pile_of and (n := zone_number(tr.zone)) is not None
                  and (n in v.closest or not v.closest)}  # under the hand's way, not a box re-tracked afar
        if len(landed) == 1 and v.pile not in landed:
            v.pile = landed.pop()
        seen_now = [tr.last for tr in on_slot
                    if tr.last is not None and lying(tr) and tr.seen_at >= now - 1e-9]
        if not seen_now and not final:
            return False
        v.read, v.read_at = True, now
        # (the final read comes on the first frame past this: a card first seen in it came in time)
        end = max((v.ended or v.last) + self.s.visit_read_s + 0.3, now)
        # else what lay there a moment ago, or came onto the slot since the hand did (seen once is
        # enough: a new card on the slot, not one flying past, since it is still in the slot's zone)
        cards = seen_now or [tr.last for tr in on_slot
                             if tr.last is not None and ((lying(tr) and now - tr.seen_at <= self.s.missing_s)
                                                         or (zone_number(tr.zone) == v.pile
                                                             and v.start - 0.2 <= tr.entered <= end))]
        if not cards:
            if v.slot_moved < self.s.slot_card_share or d.counts[v.pile]:
                return True
            # no card boxed on the empty slot, but its picture changed by a card once the hand had left
            # (at 10 fps a card may lie in view one frame before the next trip covers it): the trip's
            # card, its face unseen (face down: a face up one is judged when seen, by the exposures
            # watcher). Not on a slot with cards: those witness a card put there, and a hand gathering
            # them after a misdeal changes the picture too.
            d.counts[v.pile] += 1
            d.last_card = max(d.last_card or 0.0, v.last)
            self._note_pic(v.pile)
            self._queue_dealt(v, Dealt((v.start, v.frame), v.pile, False), present)
            return True
        for o in cards:  # the ones lying there belong to this pile (not one seen once, flying past)
            if lying(tracks[o.track]):
                d.pile_of.setdefault(o.track, v.pile)
        d.counts[v.pile] += 1
        d.last_card = max(d.last_card or 0.0, v.last)
        self._note_pic(v.pile)
        # an unread "face" not certainly one (a pale back, a frame of glare) is left to the exposures
        # watcher, which waits for it to show as a face long enough
        up = [o for o in cards if self.rest.certain_face(o) and o.track not in d.exposed
              and (o.card is None or o.card not in d.exposed_cards)]
        if up:
            o = up[0]
            d.exposed[o.track] = v.pile
            d.exposed_as[o.track] = o.card or o.rank
            if o.card is not None:
                d.exposed_cards.add(o.card)
            tr = tracks[o.track]
            unread = o.card is None and o.rank is None
            dealt = Dealt((v.start, v.frame), v.pile, True, o.confidence, o.card, o.rank,
                          o.track if unread else None,
                          tr.certain_at[0] if tr.certain_at is not None else tr.seen_at, tr.seen_at)
        else:
            dealt = Dealt((v.start, v.frame), v.pile, False)
        self._queue_dealt(v, dealt, present)
        return True

    def _queue_dealt(self, v: Visit, dealt: Dealt, present: Mapping[str, Seen]) -> None:
        """Queue a trip's card for reporting, in the order of the trips (a trip split from the one
        before it late is read after the next), and report what is ready."""
        d = self.rec
        at = len(d.dealt_out)
        while at and d.dealt_out[at - 1].at[0] > v.start:
            at -= 1
        d.dealt_out.insert(at, dealt)
        self._send_dealt(present)

    def _send_dealt(self, present: Mapping[str, Seen], force: bool = False) -> None:
        """Report the counted cards in order, an unread face once read or held long enough (``force``:
        all of them now, read or not: the deal is closing)."""
        d, now = self.rec, self.out.now
        while d.dealt_out:
            e = d.dealt_out[0]
            if not force and any(v.ended is not None and not v.read and v.start < e.at[0] for v in d.visits):
                return  # an earlier trip's card is not read yet: the deal's order is kept
            if e.track is not None:
                o = present.get(e.track)
                tr = self.rest.tracks.get(e.track)
                seen = o if o is not None else (tr.last if tr is not None else None)
                if seen is not None and (seen.card is not None or seen.rank is not None):
                    e.card, e.rank = seen.card, seen.rank
                elif (best := self.exposures.index_read(e.pile)) is not None:  # the chain reads the slot
                    e.card, e.rank, e.confidence = best.card, best.rank, min(e.confidence, best.confidence)
                else:
                    if o is not None and self.rest.certain_face(o) and zone_number(o.zone) == e.pile:
                        e.last_certain = now
                        if not force and now - e.since < self.s.unread_hold_s - 1e-9:
                            return  # still unread, still in view: the cards after it wait with it
                    wait = self.s.unread_face_s
                    if wait is None or e.last_certain - e.since < wait - 1e-9:
                        # a face unread and not certainly one for unread_face_s (a card in flight
                        # boxed once as a face, glare): dealt face down, as the exposures watcher
                        # would judge it
                        e.face_up, e.confidence = False, 1.0
                        d.exposed.pop(e.track, None)
                        d.exposed_as.pop(e.track, None)
                if e.face_up:
                    d.exposed_as[e.track] = e.card or e.rank
                    if e.card is not None:
                        d.exposed_cards.add(e.card)
                    elif e.rank is None:
                        d.unread_out[e.pile] = (e.track, e.at, e.confidence)
                e.track = None
            d.dealt_out.pop(0)
            self.out.emit("card_dealt", e.confidence, at=e.at, pile=e.pile, face_up=e.face_up, card=e.card,
                          rank=e.rank)


def _card_on_slot(tr: Track) -> bool:
    """A card track whose last sighting is on a pile slot (the zone it is counted in)."""
    return (tr.last is not None and tr.last.kind == "card" and tr.zone == tr.last.zone
            and zone_kind(tr.zone) == "pile")


def _spread_why(why: str) -> tuple[str, str | None]:
    """The stub spread counter's reason for no count, as ``stub_not_countable`` says it."""
    if why.startswith("squared"):
        return "squared", why
    if why.startswith("no cards"):
        return "not_seen", why
    return "unreadable", why[:200]
