"""Seat hands: a delivered hand gone from its seat before it was set (``dead_hand_collected``, rule 9);
a seat's cards resting in its front and back areas (``hand_set``); the set cards all face up
(``hand_opened`` with the identities, rules 50, 56), read one by one or by their indices."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from monitor.calibration.zones import zone_kind, zone_number
from monitor.events.schema import EventBase
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.index_parts import inks, sure
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.round_record import HAND_CARDS, RoundRecord, Seat
from monitor.pipeline.watchers.view import FrameView
from monitor.rules.paigow.partial import MAX_UNREAD
from monitor.tablestate.index_cards import IndexCard

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings

GONE_ZONES = frozenset({"tray", "off_table"})


class SeatsWatcher:
    """Each delivered seat's hand (the record's ``seats``, filled by the deliveries watcher)."""

    def __init__(self, settings: ExtractorSettings, rest: RestWatcher, out: Outbox,
                 record: RoundRecord) -> None:
        self.s, self.rest, self.out, self.rec = settings, rest, out, record

    def reset(self) -> None:
        """A new round or a misdeal: nothing of its own (the seats are the record's)."""

    def zones_to_read(self) -> set[str]:
        """The hand areas of seats whose hand is set and not yet seen opened."""
        zones: set[str] = set()
        for seat, st in self.rec.seats.items():
            if st.reported_set is not None and not st.opened:
                zones |= {f"seat{seat}.front", f"seat{seat}.back"}
        return zones

    def where_hand_lies(self, st: Seat, o: Seen) -> bool:
        """``o`` rests where one of the seat's cards came to rest: the same hand, under a new track id
        (a detector that lost the pile for a second), not a second pile delivered there."""
        r2 = self.s.rebox_mm ** 2
        return any((tr := self.rest.tracks.get(t)) is not None and tr.resting is not None
                   and (tr.x - o.x) ** 2 + (tr.y - o.y) ** 2 <= r2 for t in st.tracks)

    def frame(self, view: FrameView) -> list[EventBase]:
        d, now, visible = self.rec, self.out.now, view.present
        for seat, st in sorted(d.seats.items()):
            if st.reported_set is None and not st.collected and not d.banker_exposed:
                if self._hand_here(seat, st, visible):
                    st.absent_since = None
                elif st.absent_since is None:
                    st.absent_since = now
                elif now - st.absent_since >= self.s.gone_s:
                    st.collected = True
                    self.out.emit("dead_hand_collected", seat=seat)
                    continue
            if st.collected or self._opened_by_index(seat, st, view.hand_cards):
                continue
            front: list[Seen] = []
            back: list[Seen] = []
            loose = hidden = 0
            for t in sorted(st.tracks):
                tr = self.rest.tracks.get(t)
                if tr is None or tr.last is None:
                    continue
                part = zone_kind(tr.resting or "") if zone_number(tr.resting or "") == seat else None
                if part == "front":
                    front.append(tr.last)
                elif part == "back":
                    back.append(tr.last)
                elif t in visible and zone_number(visible[t].zone) == seat:
                    loose += 1
                elif t not in visible and zone_kind(tr.last.zone) == "pile":
                    hidden += 1  # never seen since its pile: carried and set under the others
            st.set_rest.update(bool(front and back) and not loose, now)
            if not front and not back:
                continue
            seen_n = len(front) + len(back)
            if seen_n != HAND_CARDS and seen_n + hidden != HAND_CARDS:
                # Each seat got seven cards (seed 000 rule 1); a count other than seven is the
                # tracker's (a fanned card boxed twice, a card hidden under another), not the player's.
                # A foul of too many cards in front still adds up to seven.
                self._uncounted_set(seat, st, front, back)
                continue
            # cards hidden since the pile lie under the others: in the five-card hand, unless it is full
            to_back = min(max(0, 5 - len(back)), HAND_CARDS - seen_n) if seen_n < HAND_CARDS else 0
            to_front = (HAND_CARDS - seen_n - to_back) if seen_n < HAND_CARDS else 0
            key = (tuple(o.card if o.face_up else None for o in _along(front)) + (None,) * to_front,
                   tuple(o.card if o.face_up else None for o in _along(back)) + (None,) * to_back)
            st.set_counts.update((key, loose), now)
            if not st.set_counts.held(now, self.s.stable_s) or loose:
                continue
            conf = min((o.confidence for o in (*front, *back)), default=1.0)
            all_up = all(c is not None for c in (*key[0], *key[1]))
            if not all_up and not self.s.count_face_down and (len(key[0]), len(key[1])) != (2, 5):
                self._uncounted_set(seat, st, front, back)
                continue
            if all_up and st.reported_set is not None and not st.opened:
                st.opened = True
                self.out.emit("hand_opened", conf, seat=seat, front=list(key[0]), back=list(key[1]))
            elif not st.opened and (st.reported_set is None
                                    or (len(key[0]), len(key[1])) != tuple(map(len, st.reported_set))):
                st.reported_set = key
                # Once the banker's hand is exposed the dealer sets the hands left, house way (rule 37);
                # vision cannot tell whose hand moved the cards, so it says what the rule says.
                self.out.emit("hand_set", conf, seat=seat, front=list(key[0]), back=list(key[1]),
                              house_way=d.banker_exposed)
        return self.out.take()

    def _opened_by_index(self, seat: int, st: Seat, hand_cards: Mapping[str, list[IndexCard]]) -> bool:
        """A set hand lying turned up, fanned, read by its indices: both its areas still, no more cards
        than a hand holds, at most ``MAX_UNREAD`` of the seven not read at least to their rank (the
        rules judge the rest every way it could be, rule 50a). Cards not seen count as unread."""
        if st.opened or st.reported_set is None:
            return False
        front = hand_cards.get(f"seat{seat}.front")
        back = hand_cards.get(f"seat{seat}.back")
        if front is None or back is None or len(front) > 2 or len(back) > HAND_CARDS - 2:
            return False
        read = [c for c in (*front, *back) if c.card is not None or c.rank is not None]
        if len(read) < HAND_CARDS - MAX_UNREAD or not front or not back:
            return False
        pad_f, pad_b = [None] * (2 - len(front)), [None] * (HAND_CARDS - 2 - len(back))
        st.opened = True
        conf = min(c.confidence for c in (*front, *back))
        self.out.emit("hand_opened", conf, seat=seat,
                      front=[c.card for c in front] + pad_f, back=[c.card for c in back] + pad_b,
                      front_ranks=[c.rank for c in front] + pad_f, back_ranks=[c.rank for c in back] + pad_b,
                      front_colours=inks(front, pad_f), back_colours=inks(back, pad_b),
                      front_sure=sure(front, pad_f), back_sure=sure(back, pad_b))
        return True

    def _uncounted_set(self, seat: int, st: Seat, front: list[Seen], back: list[Seen]) -> None:
        """A detector's face-down boxes that cannot be counted (a fan of backs is fewer boxes than
        cards): cards resting in both hands, none loose at the seat, for ``uncounted_s``, is a hand
        set all the same (the banker may not open before it, rules 35, 37); its count waits for the
        cards to be turned up."""
        if self.s.count_face_down or st.reported_set is not None or st.opened:
            return
        if not st.set_rest.value or not st.set_rest.held(self.out.now, self.s.uncounted_s):
            return
        st.reported_set = ((), ())
        conf = min(o.confidence for o in (*front, *back))
        self.out.emit("hand_set", conf, seat=seat, front=[], back=[], counted=False,
                      house_way=self.rec.banker_exposed)

    def _hand_here(self, seat: int, st: Seat, visible: Mapping[str, Seen]) -> bool:
        """The seat's delivered hand is still at the table (on its way to the banker's place or being
        set counts; swept to the tray does not). Cards resting at the seat count too: a tracker may
        give a hand a new id after an arm hid it."""
        if any(t in visible and visible[t].zone not in GONE_ZONES for t in st.tracks):
            return True
        return any(o.kind == "card" and zone_number(o.zone) == seat and zone_kind(o.zone) in
                   ("seat", "front", "back") and self.rest.at_rest(o) for o in visible.values())


def _along(cards: list[Seen]) -> list[Seen]:
    """Cards of a hand in a fixed order (left to right, then top to bottom), so a re-read compares equal."""
    return sorted(cards, key=lambda o: (round(o.x / 10), o.y))
