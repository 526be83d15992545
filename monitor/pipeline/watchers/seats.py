"""Seat hands: a delivered hand gone from its seat before it was set (``dead_hand_collected``, rule 9);
a seat's cards resting in its front and back areas (``hand_set``); the set cards all face up
(``hand_opened`` with the identities, rules 50, 56), read one by one or by their indices, where they
were set or laid open elsewhere in the seat's area (on its betting circle)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from monitor.calibration.zones import zone_kind, zone_number
from monitor.events.schema import EventBase
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.index_parts import inks, sure
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.round_record import HAND_CARDS, LaidHand, RoundRecord, Seat
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
            if self._opened_laid_out(seat, st, visible):
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
                st.set_parts = {o.track: "front" for o in front} | {o.track: "back" for o in back}
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

    def _opened_laid_out(self, seat: int, st: Seat, present: Mapping[str, Seen]) -> bool:
        """A set hand opened away from its front and back areas: laid face up on the betting circle
        (some dealers settle there) or elsewhere in the seat's area, its cards at rest. Reported, dated
        when it first lay so, once it has for ``stable_s``, or as soon as it is taken up before that
        (not lying so for ``leave_frames`` frames: the last hand opened may be swept up 0.1 s after
        its cards settle), with its fullest reading meanwhile (an arm passing hides a card for a frame
        or two). The two hands are told apart by the cards' own arrangement: split along their line
        at its widest gap, if that is at least ``circle_gap_mm`` (the smaller group is the two-card
        hand, as in the banker's row), else by the part each card lay in when the hand was set. Cards
        of the hand out of sight in the seat's area lie under the others: unread, at most
        ``MAX_UNREAD`` of the seven not read at least to their rank."""
        if st.opened or st.reported_set is None:
            return False
        reading = self._laid_reading(seat, st, present)
        now = self.out.now
        if reading is not None:
            if st.laid_best is None:
                st.laid_open.update(True, now, self.out.frame)
            st.laid_lost = 0
            if st.laid_best is None or reading.read >= st.laid_best.read:
                st.laid_best = reading
            if not st.laid_open.held(now, self.s.stable_s):
                return False
        elif st.laid_best is None:
            return False
        else:
            st.laid_lost += 1
            if st.laid_lost < self.s.leave_frames:
                return False
        b = st.laid_best
        st.opened = True
        ranked = any(r is not None for r in (*b.front_ranks, *b.back_ranks))
        self.out.emit("hand_opened", b.confidence, at=(st.laid_open.since, st.laid_open.since_frame),
                      seat=seat, front=b.front, back=b.back,
                      front_ranks=b.front_ranks if ranked else None,
                      back_ranks=b.back_ranks if ranked else None)
        return True

    def _laid_reading(self, seat: int, st: Seat, present: Mapping[str, Seen]) -> LaidHand | None:
        """The hand laid open in the seat's area as read this frame, or None where it does not lie so."""
        others: set[str] = set()
        for n, hand in self.rec.seats.items():
            if n != seat:
                others |= hand.tracks
        up = [o for o in present.values()
              if o.kind == "card" and o.face_up and _in_seat_area(o.zone, seat) and self.rest.at_rest(o)
              and (o.track in st.tracks or o.track not in others)]
        if not any(zone_kind(o.zone) not in ("front", "back") for o in up):
            return None  # turned up where it was set (or not yet turned up): read there
        under = sum(1 for t in st.tracks if t not in present and (tr := self.rest.tracks.get(t)) is not None
                    and tr.resting is not None and _in_seat_area(tr.resting, seat))
        missing = HAND_CARDS - len(up)
        split = self._laid_parts(st, up) if 0 <= missing <= min(under, MAX_UNREAD) else None
        if split is None:
            return None
        front, back = split
        pad_f: list[str | None] = [None] * (2 - len(front))
        pad_b: list[str | None] = [None] * (HAND_CARDS - 2 - len(back))
        read = sum(1 for o in up if o.card is not None or o.rank is not None)
        if read < HAND_CARDS - MAX_UNREAD:
            return None
        return LaidHand([o.card for o in front] + pad_f, [o.card for o in back] + pad_b,
                        _ranks(front, pad_f), _ranks(back, pad_b), read, min(o.confidence for o in up))

    def _laid_parts(self, st: Seat, up: list[Seen]) -> tuple[list[Seen], list[Seen]] | None:
        """The two hands of a hand laid open, in order along their line: split at the widest gap, else
        as the cards lay when set; None where neither gives a two-card and a five-card hand."""
        row = _along_line(up)
        proj = [p for p, _ in row]
        gaps = [b - a for a, b in itertools.pairwise(proj)]
        if gaps and max(gaps) >= self.s.circle_gap_mm:
            cut = gaps.index(max(gaps)) + 1
            left, right = [o for _, o in row[:cut]], [o for _, o in row[cut:]]
            front, back = (left, right) if len(left) < len(right) else (right, left)
        elif up and all(o.track in st.set_parts for o in up):
            front = [o for _, o in row if st.set_parts[o.track] == "front"]
            back = [o for _, o in row if st.set_parts[o.track] == "back"]
        else:
            return None
        if len(front) > 2 or len(back) > HAND_CARDS - 2 or not front or not back:
            return None
        return front, back

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


def _ranks(part: list[Seen], pad: list[str | None]) -> list[str | None]:
    """A hand part's ranks read of cards not named, padded like the part."""
    return [o.rank if o.card is None else None for o in part] + list(pad)


def _in_seat_area(zone: str, seat: int) -> bool:
    """The zone is one of the seat's own: its felt, betting circle, front or back area."""
    return zone_number(zone) == seat and zone_kind(zone) in ("seat", "bet", "front", "back")


def _along_line(cards: list[Seen]) -> list[tuple[float, Seen]]:
    """Cards in order along the line they lie on (the principal axis of their centres), each with its
    place on it in mm: a hand laid along a seat's angle lies neither along x nor y."""
    if not cards:
        return []
    mx = sum(o.x for o in cards) / len(cards)
    my = sum(o.y for o in cards) / len(cards)
    sxx = sum((o.x - mx) ** 2 for o in cards)
    syy = sum((o.y - my) ** 2 for o in cards)
    sxy = sum((o.x - mx) * (o.y - my) for o in cards)
    a = 0.5 * math.atan2(2 * sxy, sxx - syy)
    ux, uy = math.cos(a), math.sin(a)
    return sorted((((o.x - mx) * ux + (o.y - my) * uy, o) for o in cards), key=lambda p: p[0])


def _along(cards: list[Seen]) -> list[Seen]:
    """Cards of a hand in a fixed order (left to right, then top to bottom), so a re-read compares equal."""
    return sorted(cards, key=lambda o: (round(o.x / 10), o.y))
