"""Bets and chips: what each betting spot holds, and when it changed.

Chips resting in a betting spot: ``bet_placed`` / ``bet_changed`` (rule 32 judges changes after the
dice), not followed once the banker's hand is exposed (settlement moves chips by design). A stack's
worth and a spot's total are each the reading most believed over ``chip_vote_s``. After the close, a
change is reported only if something touched the spot since the bet was read (a hand, chips moving,
the spot covered; or, where the spot's picture is watched, a change of its picture), since from
overhead a stack reads differently under changing light and cover while no one has touched it.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from monitor.calibration.zones import zone_kind, zone_number
from monitor.events.schema import EventBase
from monitor.perception.spot_watch import KEEP, SpotView
from monitor.pipeline.observe import Seen, SpotChips
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.held import Held
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.view import FrameView

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings

HAND_SHOWN = 3  # a player's set cards face up, read or not: that hand is opened (rule 56)


class Settlement(Protocol):
    """What the bets watcher reads of the hands: settlement moves chips on purpose (rules 13, 23)."""

    @property
    def banker_exposed(self) -> bool: ...

    @property
    def banker_face_up(self) -> bool: ...

    @property
    def piles_delivered(self) -> bool: ...


class BetsWatcher:
    """Each seat's bet from the chips resting in its spot; see the module doc. ``table``: the hands'
    progress (is settlement under way?)."""

    def __init__(self, settings: ExtractorSettings, rest: RestWatcher, out: Outbox,
                 table: Settlement) -> None:
        self.s, self.rest, self.out, self.table = settings, rest, out, table
        self.now = 0.0
        self.frame_no = 0
        # With the cameras' pictures of the betting spots (the view's ``spots``): each spot's picture
        # now, since when it has shown its version, and the chips read in each of its pictures.
        self.spots: Mapping[str, SpotView] = {}
        self.spot_since: dict[str, tuple[int, float, int]] = {}  # zone -> (version, settled since, frame)
        # zone -> picture version -> the chips read in it at full resolution (where the view has them)
        self.spot_chips: dict[str, dict[int, SpotChips]] = {}
        self.rereads = 0  # bet readings that changed with nothing touching the spot (not reported)
        self.reset()

    def reset(self) -> None:
        """A new round: no bets, the betting open."""
        self.bets_closed = False
        self.closed_at: float | None = None  # media time the bets closed (console or dice)
        self.bets: dict[int, Held] = {}
        self.bets_reported: dict[int, int] = {}
        # seat -> when its reported bet was first read; when something last touched its betting spot;
        # since when no chips have been seen there
        self.bet_since: dict[int, float] = {}
        self.spot_touched: dict[int, float] = {}
        self.spot_missing: dict[int, float] = {}
        self.bet_version: dict[int, int] = {}  # seat -> its spot's picture version as the bets closed
        # seat -> its spot's picture version as the bets closed, and when it was last seen so before
        self.close_view: dict[int, tuple[int, float, int]] = {}
        self.added_in: dict[int, int] = {}  # seat -> the picture version chips added were reported in
        # chip track -> (seat, cents, last seen, cents exact: not a lower bound)
        self.stacks: dict[str, tuple[int, int, float, bool]] = {}
        # chip track or "seatN" -> recent readings (t, frame, cents, confidence)
        self.chip_reads: dict[str, deque[tuple[float, int, int, float]]] = {}
        self.misdeal()

    def misdeal(self) -> None:
        """A misdeal voids the hands (a showdown seen begun) but not the bets."""
        # a player's set cards seen face up (rule 56: hands are opened after the banker's is exposed):
        # the showdown has begun though the banker's row was not seen (an arm over it, its cards stacked)
        self.hands_face_up = False

    def close(self, at: float) -> None:
        """No more bets (the console, or the dice exposed: seed 000 rule 36), at media time ``at``."""
        self.bets_closed = True
        self.closed_at = at if self.closed_at is None else min(self.closed_at, at)

    def look(self, view: FrameView) -> None:
        """Every frame, in a round or not: remember the spots' pictures and the chips read in them."""
        self.now, self.frame_no, self.spots = view.media_time, view.index, view.spots
        for zone, spot in self.spots.items():
            if spot.settled and self.spot_since.get(zone, (None, 0.0, 0))[0] != spot.version:
                self.spot_since[zone] = (spot.version, self.now, self.frame_no)
        for zone, read in view.spot_chips.items():
            versions = self.spot_chips.setdefault(zone, {})
            versions[read.version] = read
            if len(versions) > KEEP:  # as many as the spot's watcher remembers pictures
                del versions[min(versions)]

    def frame(self, view: FrameView) -> list[EventBase]:
        """A frame of an open round (after :meth:`look`)."""
        self._showdown(view.present)
        self._spot_touches(view.visible, list(view.hands))
        self._chips(view.visible)  # chips have their own memory of hidden stacks (``hold_s``)
        return self.out.take()

    def _showdown(self, visible: Mapping[str, Seen]) -> None:
        """A player's set cards face up after the piles went out: the hands are being opened."""
        if self.bets_closed and self.table.piles_delivered and not self.hands_face_up:
            opened = Counter(zone_number(o.zone) for o in visible.values()
                             if o.kind == "card" and o.face_up and zone_kind(o.zone) in ("front", "back")
                             and self.rest.at_rest(o))
            self.hands_face_up = any(n >= HAND_SHOWN for n in opened.values())

    def _chips(self, visible: Mapping[str, Seen]) -> None:
        settling = self.table.banker_face_up or self.hands_face_up
        if self.table.banker_exposed or (self.bets_closed and settling):
            return  # settlement moves chips on purpose (rules 13, 23): not a bet change
        for zone, spot_view in self.spots.items():
            # the picture a bet is judged against: the spot's as the bets closed (settled)
            seat = zone_number(zone)
            if (zone_kind(zone) == "bet" and seat is not None and spot_view.settled
                    and (self.closed_at is None or seat not in self.bet_version)):
                self.bet_version[seat] = spot_view.version
                if self.closed_at is None:
                    self.close_view[seat] = (spot_view.version, self.now, self.frame_no)
        totals: dict[int, int] = {}
        conf: dict[int, float] = {}
        fresh: set[int] = set()
        bound: set[int] = set()  # spots whose total is a lower bound (a stack's height not seen)
        for o in visible.values():
            if o.kind != "chips" or zone_kind(o.zone) != "bet" or not self.rest.at_rest(o):
                continue
            seat = zone_number(o.zone)
            assert seat is not None
            value = self._chip_vote(o)
            totals[seat] = totals.get(seat, 0) + value
            conf[seat] = min(conf.get(seat, 1.0), o.confidence)
            if o.track not in self.stacks:
                fresh.add(seat)
            if not o.exact:
                bound.add(seat)
            self.stacks[o.track] = (seat, value, self.now, o.exact)
        # A stack that vanished where it rested is hidden (an arm over the spot) until new chips come
        # to that spot (the old ones were swapped) or it stays away ``hold_s``.
        for track, (seat, value, seen_at, exact) in list(self.stacks.items()):
            shown = visible.get(track)
            if shown is not None and self.rest.at_rest(shown) and shown.zone == f"seat{seat}.bet":
                continue
            if track in visible or seat in fresh or self.now - seen_at > self.s.hold_s:
                del self.stacks[track]
                self.chip_reads.pop(track, None)
            else:
                totals[seat] = totals.get(seat, 0) + value
                if not exact:
                    bound.add(seat)
        for seat in sorted(set(totals) | set(self.bets)):
            c = self.bets.setdefault(seat, Held())
            # the spot's total is voted too: a stack missed or boxed twice for a few frames (or
            # re-tracked under a new id) changes the sum, not the bet
            total, since, since_frame = self._vote(f"seat{seat}", totals.get(seat, 0), conf.get(seat, 1.0))
            c.update(total, since, since_frame)
            before = self.bets_reported.get(seat, 0)
            added = self._chips_added(seat, before)
            if added is not None:
                self._report_added(seat, before, *added, conf.get(seat, 1.0))
                continue
            picture = self.spots.get(f"seat{seat}.bet")
            if picture is not None and self.added_in.get(seat) == picture.version:
                continue  # the tracks' readings catching up with chips already reported from the picture
            if not c.held(self.now, self.s.stable_s):
                continue
            if c.value == before:
                continue
            # a watched spot is judged even when its chips were read as none: from overhead a
            # stack can drop out of the detector's sight for seconds while it lies untouched
            late = self.closed_at is not None and c.since >= self.closed_at
            after_close = late and (before != 0 or (picture is not None and seat in self.bets_reported))
            # (a first reading after the close waits for a still spot too: a box on an empty spot's
            # printed circle while a hand passes by is dated by the spot's picture, as it was at the close)
            if picture is not None and late and (not picture.settled or (
                    picture.version != self.bet_version.get(seat, picture.version)
                    and self.now - self.spot_since[f"seat{seat}.bet"][1] < self.s.spot_hold_s - 1e-9)):
                # something is moving over the spot, or has just stopped there (a hand resting a
                # moment, cards slid past): judge when it is still, as it was or changed for good
                continue
            # Chips change only where something touches them: a reading that changed after the close
            # while the spot looks as it did when the bet was read (its picture: the same version)
            # is the same chips read another way (two stacks boxed as one, then as two; a colour
            # read off the neighbouring stack), taken silently. Where the spot's picture is not
            # watched, "touched" is judged from the detections: a hand on it, its chips jumping or
            # all out of sight for a moment.
            if picture is not None:
                untouched = after_close and picture.version == self.bet_version.get(seat, picture.version)
            else:
                untouched = after_close and (
                    self.spot_touched.get(seat, -math.inf) <= self.bet_since.get(seat, -math.inf))
            self.bets_reported[seat] = c.value
            self.bet_since[seat] = c.since
            if picture is not None:
                self.bet_version[seat] = picture.version
            if untouched:
                self.rereads += 1
                continue
            # dated when the chips came to rest: the procedure monitor compares that with the close.
            # Where the spot is watched, that is when its picture settled as it is now, if earlier
            # than the reading (a stack the detector missed for a second or two: rule 32 asks when
            # the chips were put down, not when they were first read)
            at = (c.since, c.since_frame)
            still = self.spot_since.get(f"seat{seat}.bet")
            if picture is not None and picture.settled and still is not None and still[0] == picture.version:
                at = min(at, (still[1], still[2]))
            closing = self.close_view.get(seat)
            if picture is not None and picture.settled and late and closing is not None \
                    and picture.version == closing[0]:
                # the spot looks as it did as the bets closed (it left that picture and came back: a
                # pile laid beside it, a hand resting there): what it holds, it held then
                at = min(at, (closing[1], closing[2]))
            if before == 0:
                self.out.emit("bet_placed", conf.get(seat, 1.0), at=at, seat=seat, amount=c.value,
                              at_least=seat in bound)
            else:
                self.out.emit("bet_changed", conf.get(seat, 1.0), at=at, seat=seat, before=before,
                              after=c.value, at_least=seat in bound)

    def _chips_added(self, seat: int, before: int) -> tuple[int, bool] | None:
        """The spot's worth and whether it is exact, where chips were added to a bet after the close
        (``new_chip_mm``), judged on the full-resolution reads of the spot's pictures; else None."""
        zone = f"seat{seat}.bet"
        picture = self.spots.get(zone)
        if (self.closed_at is None or before <= 0 or picture is None or not picture.settled
                or seat not in self.bet_version or picture.version == self.bet_version[seat]):
            return None
        reads = self.spot_chips.get(zone, {})
        now, held = reads.get(picture.version), reads.get(self.bet_version[seat])
        if now is None or not now.chips or held is None or not held.chips:
            return None  # a picture whose chips were not read, or a bet its circles never showed
        worth = sum(o.value for o in now.chips)
        away = now.away.get(held.version)
        if away is None or away > self.s.spot_bare_share:
            return None  # more than chips changed there: an arm or a card resting on the spot
        # new: far from every chip read before, and its place looked otherwise in the bet's picture
        # (a chip the reader missed then, read now beside an arm resting on the spot, lay there)
        if worth <= before or not any(
                held.version not in alike
                and all(math.hypot(o.x - p.x, o.y - p.y) > self.s.new_chip_mm for p in held.chips)
                for o, alike in zip(now.chips, now.alike, strict=True)):
            return None
        return worth, all(o.exact for o in now.chips)

    def _report_added(self, seat: int, before: int, worth: int, exact: bool, confidence: float) -> None:
        """A bet raised after the close (:meth:`_chips_added`), dated when its spot settled as it is now;
        the spot's reading that follows is the same chips (its picture's version is the reported one)."""
        zone = f"seat{seat}.bet"
        version, since, frame = self.spot_since[zone]
        self.bets_reported[seat] = worth
        self.bet_since[seat] = since
        self.bet_version[seat] = version
        self.added_in[seat] = version
        self.out.emit("bet_changed", confidence, at=(since, frame), seat=seat, before=before, after=worth,
                   at_least=not exact)

    def _spot_touches(self, visible: Mapping[str, Seen], hands: list[Seen]) -> None:
        """When each betting spot was last touched: a hand on it, chips jumping in it, or all its
        chips out of sight ``touch_gap_s`` or longer (an arm over them, or taken away)."""
        seen: set[int] = set()
        for o in visible.values():
            if o.kind != "chips" or zone_kind(o.zone) != "bet" or (seat := zone_number(o.zone)) is None:
                continue
            seen.add(seat)
            if self.rest.tracks[o.track].moved_at == self.now:
                self.spot_touched[seat] = self.now
        for h in hands:
            if zone_kind(h.zone) == "bet" and (seat := zone_number(h.zone)) is not None:
                self.spot_touched[seat] = self.now
        # measured over the frames looked at: a review skips still spans, a live chain lagging frames
        for seat in seen | set(self.bets_reported):
            since = self.spot_missing.setdefault(seat, self.now)
            if self.now - since >= self.s.touch_gap_s - 1e-9:
                self.spot_touched[seat] = self.now  # covered or emptied: touched until seen again
            if seat in seen:
                del self.spot_missing[seat]

    def _chip_vote(self, o: Seen) -> int:
        """The stack's worth most believed over the last ``chip_vote_s`` (confidence-weighted votes)."""
        return self._vote(o.track, o.value, o.confidence)[0]

    def _vote(self, key: str, value: int, confidence: float) -> tuple[int, float, int]:
        """The value most believed over the last ``chip_vote_s``, and the time and frame it was first
        read in that window (a change is dated when it happened, not when it won the vote)."""
        reads = self.chip_reads.setdefault(key, deque())
        reads.append((self.now, self.frame_no, value, confidence))
        while reads and self.now - reads[0][0] > self.s.chip_vote_s:
            reads.popleft()
        votes: dict[int, float] = {}
        for _, _, v, c in reads:
            votes[v] = votes.get(v, 0.0) + max(c, 1e-3)
        # ties go to the latest reading (a real change wins as soon as it is half the window)
        best = max(votes, key=lambda v: (votes[v], v == value))
        t, frame = next((t, f) for t, f, v, _ in reads if v == best)
        return best, t, frame

