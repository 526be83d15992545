"""One table's chain from one frame's detections to events: place, track, extract.

``TableChain.step`` is what both the live orchestrator and the oracle replays call for every frame.
Tracking is ByteTrack (:class:`monitor.tablestate.tracking.ObjectTracker`) on real detections, or the
truth's own track ids when the detections come from ground truth (``tracks`` given). Where the frame
itself is given, the betting spots' pictures are watched too (:mod:`monitor.perception.spot_watch`):
whether chips were really changed is read from them, not from the detector's readings alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from functools import partial

import cv2
import numpy as np

from monitor.calibration import TableCalibration
from monitor.calibration.zones import zone_kind
from monitor.events.schema import EventBase
from monitor.perception.detections import Detection, Detections
from monitor.perception.fan_reader import FanReader
from monitor.perception.index_reader import IndexReader
from monitor.perception.spot_chips import SpotChipFinder
from monitor.perception.spot_watch import SpotView, SpotWatcher, WatchSettings
from monitor.perception.stub_spread import Spread, StubSpreadCounter
from monitor.pipeline.background_reads import BackgroundReads
from monitor.pipeline.cpu_turns import CpuTurns
from monitor.pipeline.extract import EventExtractor
from monitor.pipeline.hand_zones import ZoneReader, fan_cards
from monitor.pipeline.observe import Seen, SpotChips, seen
from monitor.pipeline.watchers.view import FrameView
from monitor.tablestate.index_cards import IndexCard
from monitor.tablestate.placement import place

RECOUNT_S = 0.5
# The stub's picture must lie still this long (after the spot watcher's three still looks) before
# its count is believed: while dealing, the dealer's hand rests the deck in the stub zone between
# cards for 0.1-0.35 s at a time; a spread lies still 0.8 s or more before the dealer reaches for a
# replacement card (rule 51). A deck left there longer is "squared, not spread". 0.4 s (at 0.5 the
# stub's alert came ~0.5 s after the spread, `bench pipeline`; the gate's 130 clean rounds held at 0.4).
SPREAD_STILL_S = 0.4
# A seat's hand area is read as soon as its picture held for two still looks, and once more at the
# third (what the spots' watcher waits for): a hand turned up may lie still only 0.2 s before it is
# swept (a misdeal called on two identical cards, data/e2e/paigow_duplicate_card: three frames at 15
# fps), and the first still picture is not always the best read (the detector's boxes of the last
# motion: data/e2e/paigow_player_foul's seat 2 read 3 of 7 cards at frame 646, 7 of 7 at 647). The
# banker's place is read at the third look only: its read costs ~10x a seat's and that hand lies still.
HAND_SETTLE_LOOKS = 2
FULL_SETTLE_LOOKS = 3
# A chip's place in a spot's picture, as a share of its radius: its edge and shadow with it.
CHIP_DISC = 1.3
# Zones a live chain reads beside its steps (``background``): the banker's place, read along its rows
# (~10x a seat's read). A seat's read stays in a step: its hand's fouls wait on it, and a read beside
# the chain would take the next frame's perception's turn.
BACKGROUND_ZONES = frozenset({"banker"})
# A live chain reads a seat's first settled look one frame later, in the next frame's step, and not at
# all if that step reads the same picture at its second look (the newer boxes): on two cores the first
# look's read (~80 ms for a seat's two areas) held the next frame's perception back, and where it read
# too little (data/e2e/paigow_player_foul: 3 of 7 cards at frame 647, 7 at 648) the alert came a whole
# read later (played live: player_foul 468-533 ms). A hand swept after one still look is still read,
# a frame late. A review reads in the step (the same events for the same frames).

# a seat area's read put off to the next step: (read key, the frame, its detections)
_Deferred = tuple[tuple[str, int, bool], np.ndarray, Detections | None]


def _centre(d: Detection) -> tuple[float, float]:
    return (float(d.center[0]), float(d.center[1]))


class TableChain:
    def __init__(self, calibration: TableCalibration, extractor: EventExtractor, fps: float = 30.0,
                 index_reader: IndexReader | FanReader | None = None,
                 track_conf: float | None = None, background: bool = False,
                 turns: CpuTurns | None = None) -> None:
        """``track_conf``: the score from which a detection starts a track (the detector's own, from
        its metadata; None: the tracker's default). ``background``: read ``BACKGROUND_ZONES`` on a
        worker, each read joining the first step after it is done (a live camera's chain); else in
        the step (a review: the same events for the same frames, however fast the machine). ``turns``:
        the live chain's CPU turns, which a background read waits for (it asks when it is due)."""
        self.calibration = calibration
        self.track_conf = track_conf
        self.extractor = extractor  # built with the table's layout (TableLayout.of(calibration.zones))
        self.fps = fps
        self._tracker: object | None = None
        self.last_seen: list[Seen] = []
        # the cards read by their indices that the last step gave the extractor, by hand area (each
        # area's newest read of a still picture; empty where no index reader is loaded)
        self.last_hands: dict[str, list[IndexCard]] = {}
        self.watcher = SpotWatcher(
            {name: [(float(x), float(y)) for x, y in calibration.table_to_image(poly.array)]
             for name, poly in calibration.zones.items() if zone_kind(name) in ("bet", "pile", "stub")},
            calibration.image_size)
        self.chip_finder = SpotChipFinder.for_table(calibration)
        # (spot, picture version) -> its chips in the frame, and placed on the table for the extractor
        self._spot_chips: dict[tuple[str, int], tuple[list[Detection], SpotChips]] = {}
        self._spot_now: dict[str, list[Detection]] = {}  # spot -> the chips of its last settled picture
        self._spot_reads: dict[str, SpotChips] = {}  # the spots settled in this frame -> their chips
        stub = calibration.zones.get("stub")
        self.spread_counter = None if stub is None else StubSpreadCounter(calibration, stub)
        self._spreads: dict[int, tuple[Spread, float]] = {}  # the stub's picture version -> its count, when
        self._still_since: tuple[float, int] | None = None  # the stub's picture settled, unbroken, since
        # hands read by their indices: once per settled picture of each hand zone
        self.index_reader = index_reader
        self.zone_reader = None if index_reader is None else ZoneReader(calibration, index_reader)
        hand_zones = {} if self.zone_reader is None else self.zone_reader.hand_zones
        self.hand_watcher = SpotWatcher(
            {name: [(float(x), float(y)) for x, y in calibration.table_to_image(poly.array)]
             for name, poly in hand_zones.items()}, calibration.image_size,
            WatchSettings(settle_frames=HAND_SETTLE_LOOKS)) if hand_zones else None
        self._hand_boxes = {} if self.zone_reader is None else self.zone_reader.boxes
        # (zone, picture version, read at the full settle) -> cards
        self._hand_reads: dict[tuple[str, int, bool], list[IndexCard]] = {}
        self._settled_looks: dict[str, tuple[int, int]] = {}  # zone -> (picture version, still looks)
        self._background: BackgroundReads[list[IndexCard]] | None = (
            BackgroundReads(list) if background and self.zone_reader is not None else None)
        self._turns = turns
        # a live chain's seat areas at their first settled look, read in the next step unless superseded
        self._deferred: dict[str, _Deferred] = {}

    def step(self, index: int, media_time: float, detections: Detections,
             tracks: Sequence[str] | None = None, image: np.ndarray | None = None) -> list[EventBase]:
        """Events confirmed by this frame. ``tracks``: one id per detection (oracle), else ByteTrack;
        ``image``: the frame, for watching the betting spots and counting the stub spread."""
        spots = None if image is None else self.watcher.look(image)
        spread = None if image is None else self.stub_count(image, spots, media_time, index)
        still = self.stub_still_since if spread is not None else None
        spot_chips = None
        if image is not None and spots is not None and tracks is None:
            detections = self.chips_in_spots(image, spots, detections)
            spot_chips = self._spot_reads  # a new dict each frame: handed over, not copied
        placed = place(detections, self.calibration)
        if tracks is not None:
            if len(tracks) != len(placed):
                raise ValueError(f"frame {index}: {len(tracks)} track ids for {len(placed)} detections")
            objects = [seen(t, p) for t, p in zip(tracks, placed, strict=True) if p.detection.kind != "pile"]
        else:
            # Hands skip the tracker: a dealing hand moves more than its own length between frames
            # (no box overlap to follow) and may be in view one frame per card, under ByteTrack's
            # two-frame confirmation; the extractor needs where hands are, not who they are.
            hands = [seen(f"hand:{i}", p) for i, p in enumerate(placed) if p.detection.kind == "hand"]
            objects = [seen(t.track_id, t.placed) for t in self._track(
                [p for p in placed if p.detection.kind != "hand"], media_time)
                if t.placed.detection.kind != "pile"] + hands
        self.last_seen = objects
        hand_cards = None if image is None else self._hands_by_index(image, spots, detections)
        self.last_hands = hand_cards or {}
        return self.extractor.see(FrameView(index, media_time, tuple(objects), spots or {}, spread, still,
                                            self.last_hands, spot_chips or {}))

    @property
    def reads_beside_steps(self) -> bool:
        """Whether ``BACKGROUND_ZONES`` are read on a worker beside the steps (a live camera's chain
        with an index reader), not in them (a review: the same events for the same frames)."""
        return self._background is not None

    def _hands_by_index(self, image: np.ndarray, spots: dict[str, SpotView] | None = None,
                        detections: Detections | None = None) -> dict[str, list[IndexCard]] | None:
        """The cards read by their indices in each area the extractor waits on (a set hand not yet
        seen opened, the banker's place, a pile slot with an unread face) whose picture lies still:
        a seat's area at its second still look and again at its third (``HAND_SETTLE_LOOKS``), the
        others at the third, each picture once (~10-20 ms an area), then remembered. None where no
        index reader is loaded."""
        if self.hand_watcher is None or self.zone_reader is None:
            return None
        out: dict[str, list[IndexCard]] = {}
        wanted = self.extractor.zones_to_read()
        # only the areas waited on are watched (15 areas looked at every frame cost the review ~5%)
        views = self.hand_watcher.look(image, wanted) if wanted else {}
        views |= {name: v for name in wanted
                  if (v := (spots or {}).get(name)) is not None and name in self._hand_boxes}
        for gone in self._settled_looks.keys() - views.keys():
            del self._settled_looks[gone]  # not watched now: it settles afresh when it is again
        due: dict[str, tuple[str, int, bool]] = {}  # zones to read in this frame -> their read's key
        deferred: dict[str, _Deferred] = {}
        for name, view in views.items():
            if not view.settled:
                self._settled_looks.pop(name, None)
                continue
            version, n = self._settled_looks.get(name, (view.version, 0))
            n = n + 1 if version == view.version else 1
            self._settled_looks[name] = (view.version, n)
            # the hand watcher settles at HAND_SETTLE_LOOKS; the spots' watcher (pile slots) at the full
            full = zone_kind(name) == "pile" or n > FULL_SETTLE_LOOKS - HAND_SETTLE_LOOKS
            if name == "banker" and not full:
                continue
            key = (name, view.version, full)
            cards = self._hand_reads.get(key)
            if cards is None:
                if self._background is not None and self._background.pending(key):
                    continue  # being read beside the chain
                if self._background is not None and not full and name not in BACKGROUND_ZONES:
                    deferred[name] = (key, image, detections)  # read in the next step, if still wanted
                    continue
                due[name] = key
            else:
                out[name] = cards
        boxes = fan_cards(detections) if due else []  # the frame's card boxes, gathered once
        reader = self.zone_reader
        for name, (key, then, then_detections) in self._deferred.items():
            now = due.get(name)
            if name not in wanted or (now is not None and now[:2] == key[:2]) or key in self._hand_reads:
                continue  # not waited on now, or this step reads the same picture with newer boxes
            # the picture changed since (a hand swept after one still look): what it showed then
            out.setdefault(name, self._remember(key, reader.read(then, name, fan_cards(then_detections))))
        self._deferred = deferred
        for name, key in due.items():
            if self._background is not None and name in BACKGROUND_ZONES:
                turn = self._turns.ticket() if self._turns is not None else None
                self._background.submit(key, partial(self._read_in_turn, turn, image, name, boxes))
                continue
            out[name] = self._remember(key, reader.read(image, name, boxes))
        if self._background is not None:
            for key, cards in self._background.done():
                name = key[0]
                self._remember(key, cards)
                if name in views and views[name].version == key[1]:
                    out[name] = cards  # its picture still as read: the read stands for this frame
        return out

    def _read_in_turn(self, turn: int | None, image: np.ndarray, name: str,
                      boxes: list[np.ndarray]) -> list[IndexCard]:
        assert self.zone_reader is not None
        with self._turns.turn(turn) if self._turns is not None else nullcontext():
            return self.zone_reader.read(image, name, boxes)

    def _remember(self, key: tuple[str, int, bool], cards: list[IndexCard]) -> list[IndexCard]:
        while len(self._hand_reads) >= 256:  # bounded: a live run goes on for days
            del self._hand_reads[next(iter(self._hand_reads))]
        self._hand_reads[key] = cards
        return cards

    def close(self) -> None:
        """Stop the background reads (a live run's end)."""
        if self._background is not None:
            self._background.close()
        self._deferred.clear()

    @property
    def stub_still_since(self) -> tuple[float, int] | None:
        """(media time, frame index) since when the stub zone's picture has lain settled, unbroken
        (None: not settled now); a stub count is dated there."""
        return self._still_since

    def stub_count(self, image: np.ndarray, spots: dict | None, now: float,  # type: ignore[type-arg]
                   index: int) -> Spread | None:
        """The stub spread's count: once per settled picture of the stub zone (~10 ms each), again
        every ``RECOUNT_S`` while that picture is not countable (codec noise can hide an edge)."""
        view = (spots or {}).get("stub")
        if view is None or not view.settled:
            self._still_since = None
        elif self._still_since is None:
            self._still_since = (now, index)
        if self.spread_counter is None or view is None or not view.settled:
            return None
        if self._still_since is None or now - self._still_since[0] < SPREAD_STILL_S - 1e-9:
            return Spread(None, "the stub zone has not lain still long enough")
        known = self._spreads.get(view.version)
        if known is None or (known[0].n is None and now - known[1] >= RECOUNT_S):
            if known is None and len(self._spreads) >= 32:  # bounded, as the watcher's memory
                del self._spreads[next(iter(self._spreads))]
            known = self._spreads[view.version] = (self.spread_counter.count(image), now)
        return known[0]

    def chips_in_spots(self, image: np.ndarray, spots: dict[str, SpotView],
                       detections: Detections) -> Detections:
        """The betting spots' chips as found in their full-resolution pictures
        (:mod:`monitor.perception.spot_chips`), in place of the detector's chips there: once per settled
        picture of a spot; while an arm is over it, what it held when it last lay still. Chips too
        small in this frame to be read that way, or a spot where none was found: the detector's. Each
        spot settled in this frame is left in ``_spot_reads`` for the extractor."""
        self._spot_reads = {}
        if not self.chip_finder.readable(image):
            return detections
        for name in self.chip_finder.spots:
            view = spots.get(name)
            if view is None or not view.settled:
                continue
            key = (name, view.version)
            known = self._spot_chips.get(key)
            if known is None:
                if len(self._spot_chips) >= 256:  # bounded: a live run goes on for days
                    del self._spot_chips[next(iter(self._spot_chips))]
                chips = self.chip_finder.find(image, name)
                known = self._spot_chips[key] = (chips, self._placed(image, name, view.version, chips))
            self._spot_now[name], self._spot_reads[name] = known
        if not self._spot_now:
            return detections
        k = image.shape[1] / self.chip_finder.size[0]  # the spots' pixels on a frame of another size
        # a spot read with no chip keeps the detector's chips, unless their ring is the felt (a painted
        # seat numeral the detector boxed: a phantom bet in clean_1095)
        empty = {name: self.chip_finder.spots[name].polygon * k for name, chips in self._spot_now.items()
                 if not chips}

        def painted(d: Detection) -> bool:
            c = (float(d.center[0]), float(d.center[1]))
            return any(cv2.pointPolygonTest(p, c, False) >= 0 and self.chip_finder.felt_at(image, name, c)
                       for name, p in empty.items())
        # a spot where no circle passed keeps the detector's chips: a stack in deep shadow, or of a
        # colour the ring reader doubts, is better counted by the detector than not at all
        polygons = {name: self.chip_finder.spots[name].polygon * k for name, chips in self._spot_now.items()
                    if chips}

        def in_read_spot(d: Detection) -> bool:
            c = d.center
            return any(cv2.pointPolygonTest(p, (float(c[0]), float(c[1])), False) >= 0
                       for p in polygons.values())

        kept = tuple(d for d in detections.items if d.kind != "chip" or not (in_read_spot(d) or painted(d)))
        found = tuple(d for chips in self._spot_now.values() for d in chips)
        return Detections(detections.width, detections.height, kept + found, detections.timings_ms)

    def _placed(self, image: np.ndarray, name: str, version: int, chips: list[Detection]) -> SpotChips:
        """A settled picture's chips placed on the table, with what the spot's earlier pictures show
        where they lie and away from them: the extractor compares them with the bet's."""
        h, w = image.shape[:2]
        radius = self.chip_finder.spots[name].radius * w / self.chip_finder.size[0]
        on_table = place(Detections(w, h, tuple(chips)), self.calibration)
        return SpotChips(version, tuple(seen(f"{name}:{i}", p) for i, p in enumerate(on_table)),
                         tuple(self.watcher.alike_at(name, _centre(d), radius, (w, h)) for d in chips),
                         self._changed_away(name, version, chips, radius, (w, h)))

    def _changed_away(self, name: str, version: int, chips: list[Detection], radius: float,
                      size: tuple[int, int]) -> dict[int, float]:
        """For each other remembered picture of spot ``name``: the share away from the chips of both
        pictures (their discs a little wider than a chip: its edge and shadow) that looks otherwise."""
        out = {}
        for other in self.watcher.versions(name):
            if other == version:
                continue
            then = self._spot_chips.get((name, other), ([], None))[0]
            share = self.watcher.changed_away(
                name, other, [(_centre(d), CHIP_DISC * radius) for d in (*chips, *then)], size)
            if share is not None:
                out[other] = share
        return out

    def warm_up(self) -> None:
        """Load the tracker now (importing it takes seconds), not on the first frame of a live run."""
        from monitor.tablestate.tracking import ACTIVATION_CONFIDENCE, ObjectTracker

        if self._tracker is None:
            import supervision  # noqa: F401  (the tracker imports these lazily, on its first frame)
            import trackers  # noqa: F401

            self._tracker = ObjectTracker(frame_rate=self.fps, activation_confidence=(
                ACTIVATION_CONFIDENCE if self.track_conf is None else self.track_conf))

    def _track(self, placed: list, media_time: float) -> list:  # type: ignore[type-arg]
        from monitor.tablestate.tracking import ObjectTracker

        self.warm_up()
        assert isinstance(self._tracker, ObjectTracker)
        return self._tracker.update(placed, media_time)
