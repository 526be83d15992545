"""The banker's hand: its cards face up at the banker's place (``banker_hand_exposed``, rule 11), then,
split into two groups along the row, ``banker_hand_set`` (the smaller group is the two-card hand, rule
54), read card by card or by the indices; and, with no console to say who banks, the seat whose hand
was taken there (``banker_changed``)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from monitor.calibration.zones import zone_kind, zone_number
from monitor.events.schema import EventBase
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.held import Held
from monitor.pipeline.watchers.index_parts import inks, sure
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.round_record import HAND_CARDS, RoundRecord
from monitor.pipeline.watchers.view import FrameView
from monitor.rules.paigow.partial import MAX_UNREAD
from monitor.tablestate.index_cards import IndexCard

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings

BANKER_SHOWN = 4  # face-up cards resting in the banker's place: its hand is exposed (rule 11), read or not


class BankerWatcher:
    """The banker's hand; see the module doc. ``seat``: who banks this round (the console says it as
    the round opens, :meth:`banks`; else the settings', else seen from vision)."""

    def __init__(self, settings: ExtractorSettings, rest: RestWatcher, out: Outbox,
                 record: RoundRecord) -> None:
        self.s, self.rest, self.out, self.rec = settings, rest, out, record
        self.seat = settings.banker_seat
        self.reset()

    def banks(self, seat: int | None) -> None:
        """Who banks the round now opening (the bank moves, rule 3)."""
        self.seat = seat

    def reset(self) -> None:
        """A new round or a misdeal (a misdeal keeps the banker: :meth:`banks` is told at a round's open)."""
        self.row = Held()
        self.seen = False  # the banker's seat looked for from vision (no console said it)
        self.cards_at: float | None = None  # ... since cards came to rest at the banker's place
        self.unread = False  # banker_exposed with cards not named: the named event is still due
        self.faces_since: tuple[float, int] | None = None  # BANKER_SHOWN cards there certainly faces since
        self.faces_lost: float | None = None  # ... and fewer of them since
        self.up_at: tuple[float, int] | None = None  # BANKER_SHOWN certain faces there, moving or not
        self.up_last = 0.0  # a certain face there last seen
        self.count = 0
        self.setting: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self.index_set: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # as read by its indices
        # settings read by index while the exposure's report waits (on the players' sets): each held a
        # while, kept with when it was first read, and sent once the exposure is (a foul setting may be
        # changed before that: banker_foul's lay 1.4 s)
        self.index_row = Held()
        self.index_early: list[tuple[tuple[float, int], dict[str, Any]]] = []

    def zones_to_read(self) -> set[str]:
        """The banker's place once the hand is turned up: its setting may change before the exposure
        is reported."""
        return {"banker"} if self.rec.banker_exposed or self.up_at is not None else set()

    def frame(self, view: FrameView) -> list[EventBase]:
        self._seat_seen(view.present)
        self._hand(view.present, view.hand_cards)
        return self.out.take()

    def _hand(self, visible: Mapping[str, Seen], hand_cards: Mapping[str, list[IndexCard]]) -> None:
        d, now = self.rec, self.out.now
        shown = sum(1 for o in visible.values()
                    if o.kind == "card" and o.zone == "banker" and o.face_up and self.rest.at_rest(o))
        if shown >= BANKER_SHOWN:
            d.banker_face_up = True
        self._unread(visible, hand_cards)
        self._set_by_index(hand_cards)
        up = [o for o in visible.values()
              if o.kind == "card" and o.zone == "banker" and o.face_up and o.card is not None
              and self.rest.at_rest(o)]
        if not up:
            return
        if len(up) < max(shown, BANKER_SHOWN):
            # a face-up card there is not read (yet): the row's count and cards would both be short
            # (one card of seven read is no "hand of one card"); wait until every card is named. Fewer
            # than BANKER_SHOWN face up is no exposure at all (one back read as the joker is not a hand)
            return
        row = sorted(up, key=lambda o: o.x)
        cards = tuple(o.card for o in row if o.card is not None)
        self.row.update(cards, now)
        if not self.row.held(now, self.s.row_stable_s):
            return
        conf = min(o.confidence for o in row)
        if not d.banker_exposed or self.unread:
            # all the banker's cards in view, or (a short hand) the row settled for longer
            pile = next((p for p, s in d.delivered.items() if s == self.seat), None)
            full = d.counts[pile] if pile is not None else None
            if len(cards) != full and not self.row.held(now, 1.0):
                return
            d.banker_exposed, self.unread = True, False
            self.count = len(cards)
            self.out.emit("banker_hand_exposed", conf, cards=sorted(cards))
            return
        if len(cards) != self.count:
            return  # a card hidden (an arm) or still on its way: the setting is not all in view
        cut = self._row_cut([o.x for o in row])
        if cut is None:
            return
        left, right = cards[:cut], cards[cut:]
        front, back = (left, right) if len(left) < len(right) else (right, left)
        if (front, back) != self.setting:
            self.setting = (front, back)
            self.out.emit("banker_hand_set", conf, front=list(front), back=list(back))

    def _seat_seen(self, visible: Mapping[str, Seen]) -> None:
        """Who banks, from vision alone (no console said it): the Player-Dealer's pile is delivered to
        their seat like any other (seed 000 rules 8, 9, 21), then the dealer takes it to the banker's
        place to set it (rules 11, 35). The one seat whose delivered hand, never set, left as cards
        came to rest there is the banker's: ``banker_changed`` (the procedure then judges what waited
        for it: the deliveries, whose turn the bank was)."""
        d, now = self.rec, self.out.now
        if self.seat is not None or self.seen or not d.delivered:
            return
        there = {o.track for o in visible.values()
                 if o.kind == "card" and o.zone == "banker" and self.rest.at_rest(o)}
        if len(there) < BANKER_SHOWN:
            return
        if self.cards_at is None:
            self.cards_at = now
        # the cards there followed from a seat (the tracker kept them on the way), else the seat whose
        # hand went out of sight just before (a hand lost from view is missed for a moment first)
        recent = self.cards_at - self.s.banker_move_s
        left = [seat for seat, st in d.seats.items() if st.reported_set is None and st.tracks & there] or [
            seat for seat, st in d.seats.items()
            if st.reported_set is None and st.absent_since is not None and st.absent_since >= recent]
        if not left and now - self.cards_at < self.s.banker_move_s:
            return
        self.seen = True  # once a round, right or not: a guess among several is no evidence
        if len(left) != 1:
            return
        self.seat = left[0]
        self.out.emit("banker_changed", seat=left[0])

    def _row_cut(self, xs: list[float]) -> int | None:
        """Where the banker's row (positions in order) is split in two: after its widest gap, if that
        gap is at least ``split_gap_mm`` (else the hand is not set yet)."""
        gaps = [b - a for a, b in itertools.pairwise(xs)]
        if not gaps or max(gaps) < self.s.split_gap_mm:
            return None
        return gaps.index(max(gaps)) + 1

    def _set_by_index(self, hand_cards: Mapping[str, list[IndexCard]]) -> None:
        """The banker's hand set in two fans, read by its indices (both fans overlap their cards: no
        outline for the whole-card reader): the row of cards split at its widest gap, two and five,
        at most ``MAX_UNREAD`` of them not read at least to their rank (a group one card short of
        its count is padded with an unread card). Once per setting read. Before the exposure is
        reported (it waits for the players' sets, ``set_wait_s``) a setting read is kept once it held
        ``early_set_s``, dated when first read, and sent after the exposure's event."""
        d, now = self.rec, self.out.now
        if d.banker_exposed and self.index_early:
            for at, fields in self.index_early:
                self.out.emit("banker_hand_set", at=at, **fields)
            self.index_early.clear()
        cards = hand_cards.get("banker")
        # a card's index cut twice may make one read too many: the groups are counted once it is dropped
        if not (d.banker_exposed or self.up_at is not None) or not cards or len(cards) > HAND_CARDS + 1:
            return
        row = sorted(cards, key=lambda c: c.x)
        cut = self._row_cut([c.x for c in row])
        if cut is None:
            return
        left, right = row[:cut], row[cut:]
        front, back = (left, right) if len(left) < len(right) else (right, left)
        front, back = _unread_doubles_dropped(front, 2), _unread_doubles_dropped(back, HAND_CARDS - 2)
        if len(front) > 2 or len(back) > HAND_CARDS - 2 or (len(front) < 2 and len(back) < HAND_CARDS - 2):
            return  # more cards than a setting, or a card missing from both groups: not its count
        pad_f, pad_b = [None] * (2 - len(front)), [None] * (HAND_CARDS - 2 - len(back))
        read = [c for c in (*front, *back) if c.card is not None or c.rank is not None]
        if len(read) < HAND_CARDS - MAX_UNREAD:
            return
        key = (tuple(c.card or c.rank or "?" for c in front), tuple(c.card or c.rank or "?" for c in back))
        if not d.banker_exposed:
            # the hand is still being turned up and spread: only a setting that stays is one
            self.index_row.update(key, now, self.out.frame)
            if not self.index_row.held(now, self.s.early_set_s):
                return
        if key == self.index_set:
            return
        self.index_set = key
        fields = {"confidence": min(c.confidence for c in (*front, *back)),
                  "front": [c.card for c in front] + pad_f, "back": [c.card for c in back] + pad_b,
                  "front_ranks": [c.rank for c in front] + pad_f,
                  "back_ranks": [c.rank for c in back] + pad_b, "front_colours": inks(front, pad_f),
                  "back_colours": inks(back, pad_b), "front_sure": sure(front, pad_f),
                  "back_sure": sure(back, pad_b)}
        if d.banker_exposed:
            self.out.emit("banker_hand_set", **fields)
        else:
            self.index_early.append(((self.index_row.since, self.index_row.since_frame), fields))

    def _unread(self, visible: Mapping[str, Seen], hand_cards: Mapping[str, list[IndexCard]]) -> None:
        """The banker's hand face up though not every card is named: exposed all the same (rule 11),
        and when that happened is what rules 35 and 37 judge. Once ``BANKER_SHOWN`` cards there have
        certainly been faces for ``banker_unread_s`` (an unseen deck's pale back can pass for a face,
        but not certainly), reported with the cards read so far, dated when they were first all
        faces; the event naming every card follows if they are read."""
        d, now = self.rec, self.out.now
        if d.banker_exposed or self.s.banker_unread_s is None:
            return
        up = [o for o in visible.values()
              if o.kind == "card" and o.zone == "banker" and self.rest.certain_face(o)]
        if up:
            self.up_last = now
        elif self.up_at is not None and now - self.up_last > self.s.gone_s:
            self.up_at = None  # no face there for a while: it was not the hand turned up
        if len(up) >= BANKER_SHOWN and self.up_at is None:
            # turned up, still being spread: when it was exposed, once its faces settle to say so
            # (a fan's boxes merge and part while it is spread: fewer for a while is the same hand)
            self.up_at = (now, self.out.frame)
        faces = [o for o in up if self.rest.at_rest(o) and self.rest.tracks[o.track].certain_at is not None]
        if self._read_exposed(visible, hand_cards):
            return
        if len(faces) < BANKER_SHOWN:
            # boxes of a fanned row come and go: the hand is face down again only after a while
            if self.faces_lost is None:
                self.faces_lost = now
            if now - self.faces_lost > self.s.gone_s:
                self.faces_since = None
            return
        self.faces_lost = None
        if self.faces_since is None:
            # the fourth of them to show: the hand was turned up by then
            self.faces_since = sorted(self.rest.tracks[o.track].certain_at or (now, self.out.frame)
                                      for o in faces)[BANKER_SHOWN - 1]
        if now - self.faces_since[0] < self.s.banker_unread_s - 1e-9:
            return
        if self._sets_under_way(visible) and now - self.faces_since[0] < self.s.set_wait_s - 1e-9:
            return
        if all(o.card is not None for o in faces):
            return  # all named: the row's own event follows (it waits for the row to hold)
        d.banker_exposed = self.unread = True
        named = sorted(o.card for o in faces if o.card is not None)
        at = min(self.faces_since, self.up_at or self.faces_since)
        self.out.emit("banker_hand_exposed", min(o.confidence for o in faces), at=at,
                      cards=named, unread=len(faces) - len(named))

    def _read_exposed(self, visible: Mapping[str, Seen], hand_cards: Mapping[str, list[IndexCard]]) -> bool:
        """The banker's place, once seen turned up, read by its indices with ``BANKER_SHOWN`` cards or
        more read (an index is on a face): exposed, dated when it was seen turned up. A fanned row's
        boxes come and go while it is spread, so four of them certain faces at rest at once can take
        seconds (live, data/e2e/paigow_banker_foul: the exposure 1.5 s late one run in three, and the
        foul setting laid meanwhile alerted only then); the still picture's read says it at once."""
        if self.up_at is None:
            return False
        cards = hand_cards.get("banker") or []
        read = [c for c in cards if c.card is not None or c.rank is not None]
        if len(read) < BANKER_SHOWN:
            return False
        if self._sets_under_way(visible) and self.out.now - self.up_at[0] < self.s.set_wait_s - 1e-9:
            return True  # a player's hand is being set: the exposure waits for it (rules 35, 37)
        named = sorted(c.card for c in read if c.card is not None)
        self.rec.banker_exposed = self.unread = True
        self.out.emit("banker_hand_exposed", min(c.confidence for c in read), at=self.up_at,
                      cards=named, unread=len(cards) - len(named))
        return True

    def _sets_under_way(self, visible: Mapping[str, Seen]) -> bool:
        """A player's hand not yet reported set has cards resting in its front or back area: it is
        being set, or set and not yet seen whole (a card of it not found for a while). The banker's
        hand turned up now would be judged early against it, so its report waits (``set_wait_s``)."""
        waiting = {seat for seat, st in self.rec.seats.items()
                   if seat != self.seat and st.reported_set is None and not st.collected}
        if not waiting:
            return False
        # cards lost from sight for a moment (an arm, a detector's dropout) still lie there
        recent = self.out.now - self.s.gone_s
        return any(tr.resting is not None and tr.seen_at >= recent and tr.last is not None
                   and tr.last.kind == "card" and zone_number(tr.resting) in waiting
                   and zone_kind(tr.resting) in ("front", "back") for tr in self.rest.tracks.values())


def _unread_doubles_dropped(group: list[IndexCard], count: int) -> list[IndexCard]:
    """A group of the banker's setting read with more cards than it holds, the excess cuts that read
    nothing left out: one card's index cut twice along a row (13 mm apart, past the index reader's
    own merging), not a card more."""
    out = list(group)
    while len(out) > count:
        unread = [c for c in out if c.card is None and c.rank is None]
        if not unread:
            break
        out.remove(min(unread, key=lambda c: c.confidence))
    return out
