"""Rest and debounce: which objects lie still in a zone, and what is on the table.

An object counts as *resting* in a zone once it has been seen there, still (``still_mm`` of where it
stopped), for ``settle_frames`` observations in a row; it has left once it looks moved for
``leave_frames`` frames in a row (one odd reading is a corner's jitter). A resting object missed by
the detector for at most ``missing_s`` is still *present* (it has not moved; a moving one may have
left). Every other watcher asks this one whether an object rests.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from monitor.calibration.zones import zone_kind
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.view import FrameView

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings


@dataclass(slots=True)
class Track:
    zone: str
    x: float  # where it came to a stop: the mean of its positions since (stillness is measured from it)
    y: float
    still: int = 0
    moved: int = 0  # frames in a row it looked moved while resting (one is noise: a corner's jitter)
    resting: str | None = None  # the zone it rests in, once settled
    last: Seen | None = None
    seen_at: float = 0.0
    entered: float = 0.0  # when it came into its zone (a card landing under a hand: the hand's visit)
    moved_at: float = -1.0  # when it last jumped from where it rested (not set when first seen)
    named_at: tuple[float, int] | None = None  # (time, frame) its face was first read, this showing
    face_at: tuple[float, int] | None = None  # (time, frame) it began to show surely a face, this showing
    certain_at: tuple[float, int] | None = None  # ... certainly a face (unread_face_back_p), this showing
    # the first frame its last move may have begun in, and where from: the frame after it was last
    # seen lying where it lay (unseen in flight under a hand, it left in any frame since), or the
    # frame it was first seen, if it never lay still. A card brought onto a pile set off elsewhere;
    # one boxed anew where it lies set off there
    set_off: tuple[int, float, float] = (0, 0.0, 0.0)
    lay_frame: int = 0  # the last frame it was seen lying still where it lies (or lay)


class RestWatcher:
    """Each track's rest and debounce; see the module doc. It makes the frame's view whole
    (``visible``, ``hands``, ``settled``; ``present`` once the deal watcher has judged the cards that
    vanished landing, :meth:`with_present`) and reports no events itself."""

    def __init__(self, settings: ExtractorSettings) -> None:
        self.s = settings
        self.tracks: dict[str, Track] = {}
        self.landing: set[str] = set()  # cards stopped on a pile, not yet resting
        self.frames_seen = 0
        self.now = 0.0

    def reset(self) -> None:
        """Tracks outlive rounds (a card on the table is the same card); only a new table forgets them."""
        self.tracks, self.landing, self.frames_seen = {}, set(), 0

    def frame(self, view: FrameView) -> FrameView:
        """The view with the objects seen (``visible``), the hands and what settled in this frame."""
        media_time, index = view.media_time, view.index
        self.now = media_time
        self.frames_seen += 1
        visible: dict[str, Seen] = {}
        settled: list[tuple[Seen, str | None]] = []
        hands: list[Seen] = []
        for o in view.objects:
            if o.kind == "hand":
                hands.append(o)  # hands never rest: they only say where the dealer is touching
                continue
            visible[o.track] = o
            tr = self.tracks.get(o.track)
            if tr is None:
                tr = self.tracks[o.track] = Track(o.zone, o.x, o.y, entered=media_time,
                                                  set_off=(index, o.x, o.y))
            moved = ((o.x - tr.x) ** 2 + (o.y - tr.y) ** 2) ** 0.5
            if o.zone == tr.zone and moved <= self.s.still_mm:
                tr.still += 1
                tr.moved = 0
                tr.lay_frame = index
                k = min(tr.still, 30)  # the anchor follows the mean, so noise does not walk it away
                tr.x += (o.x - tr.x) / k
                tr.y += (o.y - tr.y) / k
            elif (o.zone == tr.zone and tr.resting == o.zone and tr.still >= self.s.settle_frames
                  and tr.moved + 1 < self.s.leave_frames):
                tr.moved += 1  # one odd reading of a resting object: wait for the next frame
            else:
                if o.zone != tr.zone:
                    tr.entered = media_time
                if tr.still > 1:  # it lay still and moves now: a new move began after it was last seen so
                    tr.set_off = (tr.lay_frame + 1, tr.x, tr.y)  # from where it lay
                if tr.seen_at < media_time:
                    tr.moved_at = media_time
                tr.still, tr.moved, tr.zone, tr.x, tr.y = 1, 0, o.zone, o.x, o.y
            tr.last, tr.seen_at = o, media_time
            if o.kind == "card":
                named = o.face_up and (o.card is not None or o.rank is not None)
                if not named:
                    tr.named_at = None
                elif tr.named_at is None:
                    tr.named_at = (media_time, index)
                if not o.face_sure:
                    tr.face_at = None
                elif tr.face_at is None:
                    tr.face_at = (media_time, index)
                if not self.certain_face(o):
                    tr.certain_at = None
                elif tr.certain_at is None:
                    tr.certain_at = (media_time, index)
            if tr.still >= self.s.settle_frames and tr.resting != o.zone:
                before = tr.resting
                tr.resting = o.zone
                settled.append((o, before))
                self.landing.discard(o.track)
            elif o.kind == "card" and tr.resting != o.zone and zone_kind(o.zone) == "pile":
                self.landing.add(o.track)
            else:
                self.landing.discard(o.track)
        return replace(view, visible=visible, hands=tuple(hands), settled=tuple(settled))

    def gone_landing(self, visible: FrameView) -> list[str]:
        """Cards that came onto a pile and vanished there before they settled, out of sight for
        ``missing_s`` (a shorter gap may be a detector's dropout): no longer followed as landing, left
        to the deal watcher to judge (did they land?)."""
        out = []
        for track in [t for t in self.landing if t not in visible.visible]:
            if self.now - self.tracks[track].seen_at < self.s.missing_s - 1e-9:
                continue
            self.landing.discard(track)
            out.append(track)
        return out

    def with_present(self, view: FrameView, carry: bool) -> FrameView:
        """The view with what is on the table (``present``): the objects seen and, where ``carry``,
        resting ones missed for at most ``missing_s``. A detector misses an object in a frame now and
        then; a resting card or stack that vanishes for a frame or two has not moved (moving objects
        are not carried: they may have left). Tracks unseen for 30 s are forgotten every 300 frames
        (a live run goes on for days)."""
        if self.frames_seen % 300 == 0:
            self._forget(self.now)
        present = dict(view.visible)
        if carry:
            for track, tr in self.tracks.items():
                if (track not in view.visible and tr.last is not None and tr.resting == tr.zone
                        and tr.still >= self.s.settle_frames and self.now - tr.seen_at <= self.s.missing_s):
                    present[track] = tr.last
        return replace(view, present=present)

    def _forget(self, now: float, after_s: float = 30.0) -> None:
        for t in [t for t, tr in self.tracks.items() if now - tr.seen_at > after_s]:
            del self.tracks[t]

    def certain_face(self, o: Seen) -> bool:
        """Face up and certainly a face: named, its rank read, or all but no chance of a back."""
        return o.face_up and (o.card is not None or o.rank is not None or (
            o.back_p is not None and o.back_p <= self.s.unread_face_back_p))

    def at_rest(self, o: Seen) -> bool:
        """Resting now: still, in its zone, for ``settle_frames`` observations."""
        tr = self.tracks[o.track]
        return tr.resting == o.zone and tr.still >= self.s.settle_frames
