"""Exposed cards: a face lying up on a pile before the piles are delivered (seed 000 rules 48, 51).

Named, or its rank read, it is reported at once (``card_exposed``). A face read not even to its rank
is reported once it has shown as certainly a face for ``unread_face_s`` (a pale back the detector
took for a face is not certainly one, and one frame of glare is not an exposure), and then only when
it goes out of sight or ``unread_hold_s`` passed unread: a rank read meanwhile says more (an ace is a
misdeal, rule 48a), and the exposure is reported once. An exposure reported unread and read while it
still lies on its pile is reported again, read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from monitor.calibration.zones import zone_kind, zone_number
from monitor.events.schema import EventBase
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.round_record import RoundRecord
from monitor.pipeline.watchers.view import FrameView
from monitor.tablestate.index_cards import IndexCard

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings


class ExposuresWatcher:
    """Faces on the piles during the deal; see the module doc. The deal watcher marks the faces it
    saw land (:meth:`mark_exposed`) and reads a slot's cards by their indices (:meth:`index_read`)."""

    def __init__(self, settings: ExtractorSettings, rest: RestWatcher, out: Outbox,
                 record: RoundRecord) -> None:
        self.s, self.rest, self.out, self.rec = settings, rest, out, record
        self.hand_cards: Mapping[str, list[IndexCard]] = {}
        self.reset()

    def reset(self) -> None:
        """A new round or a misdeal."""
        self.unread_exposed: dict[int, str | None] = {}  # pile -> rank, of exposures reported unnamed
        # faces on piles certainly faces but not read: track -> (pile, since, confidence), to be reported
        self.unread_pending: dict[str, tuple[int, tuple[float, int], float]] = {}

    def look(self, view: FrameView) -> None:
        """Every frame, first: the cards read by their indices (the deal's cards may go out between
        frames, a round closing, and are read as of the last frame)."""
        self.hand_cards = view.hand_cards

    def zones_to_read(self) -> set[str]:
        """Pile slots where a face lies unread."""
        return ({f"pile{pile}" for pile, _, _ in self.unread_pending.values()}
                | {f"pile{pile}" for pile in self.rec.unread_out})

    def frame(self, view: FrameView) -> list[EventBase]:
        """A face lying up on a pile before the piles are delivered is exposed, however it came there:
        the deal's count may not have seen it land (the dealer's hand not found, or a tracker that gave
        the landing card the covered card's id), but its face is in view."""
        d, present, now = self.rec, view.present, self.out.now
        if d.delivered:
            self._unread_faces(present)  # the piles are going out: what waited is reported now
            d.unread_out.clear()  # past the deal an exposure is no deal fault (rules 48, 51)
            return self.out.take()
        self._read_late(present)
        for o in present.values():
            if (o.kind != "card" or not o.face_up or zone_kind(o.zone) != "pile" or o.track in d.exposed
                    or (o.card is not None and o.card in d.exposed_cards) or not self.rest.at_rest(o)
                    or o.track in self.unread_pending):
                continue
            tr = self.rest.tracks[o.track]
            at = tr.named_at if o.card is not None else None
            if at is None:
                # unnamed: a face for a while (its rank read: a little while; one frame of a pile
                # being lifted can read as "an ace" at rank level)
                wait, at = ((self.s.rank_face_s, tr.face_at) if o.rank is not None
                            else (self.s.unread_face_s, tr.certain_at))
                if wait is None or at is None or now - at[0] < wait - 1e-9:
                    continue
            pile = zone_number(o.zone)
            assert pile is not None
            if any(not v.read and (v.pile == pile or pile in v.closest) for v in d.visits):
                continue  # a hand's visit to this slot is still to be read: it reports the card
            if o.card is None and pile in d.exposed.values():
                continue  # this pile's exposed card, its track renewed: reported once
            if pile in self.unread_exposed and self.unread_exposed[pile] in (None, (o.card or "?")[0]):
                continue  # the unnamed exposed card of this pile, read better now: reported once
            if o.card is None and o.rank is None:
                self.unread_pending[o.track] = (pile, at, o.confidence)
                continue
            self._expose(o.track, pile, o.card, o.rank, at, o.confidence)
        self._unread_faces(present)
        return self.out.take()

    def exposed_card(self, o: Seen) -> str | None:
        """The exposure (its track) a face-up card come to rest off the piles is, by what was read of
        both: the dealer's hand hides the card on its way, and the tracker gives it a new id."""
        if o.kind != "card" or not o.face_up:
            return None
        d = self.rec
        for track, read in d.exposed_as.items():
            if track not in d.exposed:
                continue
            if read is None:  # an unread face: any sure face is the best witness there is
                if o.face_sure:
                    return track
            elif read == o.card or (len(read) == 1 and read == (o.card or o.rank or "?")[0]):
                return track
        return None

    def index_read(self, pile: int) -> IndexCard | None:
        """The best read by its index (named, else ranked) of the cards lying on ``pile``, if any."""
        read = [c for c in self.hand_cards.get(f"pile{pile}", []) if c.card or c.rank]
        return max(read, key=lambda c: (c.card is not None, c.confidence), default=None)

    def mark_exposed(self, track: str, pile: int, card: str | None, rank: str | None) -> None:
        d = self.rec
        d.exposed[track] = pile
        d.exposed_as[track] = card or rank
        if card is not None:
            d.exposed_cards.add(card)

    def _unread_faces(self, present: Mapping[str, Seen]) -> None:
        """Report the unread faces waiting to be read, once out of sight or waited for long enough;
        a face its index names (or ranks) is reported so."""
        d = self.rec
        for track, (pile, at, conf) in list(self.unread_pending.items()):
            o = present.get(track)
            if o is not None and (o.card is not None or o.rank is not None):
                del self.unread_pending[track]  # read now: reported as read, once it has held
                continue
            best = self.index_read(pile)
            if best is not None and pile not in d.exposed.values() and pile not in self.unread_exposed:
                del self.unread_pending[track]
                self._expose(track, pile, best.card, best.rank, at, min(conf, best.confidence))
                continue
            if (o is not None and self.rest.certain_face(o) and zone_number(o.zone) == pile
                    and self.out.now - at[0] < self.s.unread_hold_s - 1e-9):
                continue
            del self.unread_pending[track]
            if pile not in d.exposed.values() and pile not in self.unread_exposed:
                self._expose(track, pile, None, None, at, conf)
                d.unread_out[pile] = (track, at, conf)

    def _read_late(self, present: Mapping[str, Seen]) -> None:
        """An exposure reported unread (after ``unread_hold_s``, to alert at once) and read while it
        still lies on its pile: reported again, read (the procedure monitor takes it for the same card,
        now known: an ace is a misdeal, rule 48a, not a card to replace, rule 51)."""
        d = self.rec
        for pile, (track, at, conf) in list(d.unread_out.items()):
            o = present.get(track)
            if o is None or zone_number(o.zone) != pile or zone_kind(o.zone) != "pile" or not o.face_up:
                if o is None and track not in self.rest.tracks:
                    del d.unread_out[pile]  # its track is gone for good: nothing more to learn
                continue
            card, rank, confidence = o.card, o.rank, o.confidence
            if card is None and rank is None and (best := self.index_read(pile)) is not None:
                card, rank, confidence = best.card, best.rank, best.confidence
            if card is None and rank is None:
                continue
            del d.unread_out[pile]
            self.unread_exposed[pile] = rank if card is None else card[0]
            d.exposed_as[track] = card or rank
            if card is not None:
                d.exposed_cards.add(card)
            self.out.emit("card_exposed", min(conf, confidence), at=at, card=card, rank=rank,
                          zone=f"pile:{pile}")

    def _expose(self, track: str, pile: int, card: str | None, rank: str | None, at: tuple[float, int],
                confidence: float) -> None:
        self.mark_exposed(track, pile, card, rank)
        if card is None:
            self.unread_exposed[pile] = rank
        # dated when the face was first seen (the track may be the covered card's, older)
        self.out.emit("card_exposed", confidence, at=at, card=card, rank=rank, zone=f"pile:{pile}")
