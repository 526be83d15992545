"""From tracked objects on the table to events of the contract: a state machine, no pixels, no I/O.

Feed one frame at a time (:meth:`EventExtractor.frame`) with the tracked objects seen in it, and the
events that did not come from vision (the dice reader, the dealer's console) as they arrive
(:meth:`EventExtractor.note`). Out come vision events, stamped with the frame and media time where
they were confirmed and the lowest confidence of the detections behind them.

Debounce: an object counts as *resting* in a zone once it has been seen there, still, for
``settle_frames`` observations in a row; counts (chips in a spot, cards in the stub, dice) must
hold for ``stable_s`` before they are reported. What each resting object means depends on the
round's phase (seed 000):

- a card coming to rest on a pile slot during the deal: ``card_dealt`` (face up with its identity:
  an exposed card, rules 48, 51); after the deal, a new card on a pile is the first stub card
  replacing an exposed one (``exposed_card_replaced``, rule 51);
- the stub spread after the deal: ``piles_complete`` and ``stub_counted`` (rule 55);
- a pile's cards resting at a seat: ``pile_delivered`` (rules 8, 9, 21), the first one also
  naming the action pile (rule 8: the action pile is delivered first) unless the console did;
- a delivered hand gone from its seat before it was set: ``dead_hand_collected`` (rule 9);
- a seat's cards resting in its front and back areas: ``hand_set``, and ``hand_opened`` with the
  identities once they are all face up (rules 50, 56);
- the banker's cards face up at the banker's place: ``banker_hand_exposed``, then, split into
  two groups, ``banker_hand_set`` (the smaller group is the two-card hand; rules 11, 54);
- chips in a betting spot: ``bet_placed`` / ``bet_changed`` (rule 32 judges changes after the
  dice), not followed once the banker's hand is exposed (settlement moves chips by design); after
  the close, a change is reported only if something touched the spot since the bet was read (a
  hand, chips moving, the spot covered), since from overhead a stack reads differently under
  changing light and cover while no one has touched it;
- dice resting in the dice area: ``dice_rolled`` from video, a cross-check of the reader;
- with no console, the table filling and going clear: ``round_started`` / ``round_ended``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from monitor.calibration.zones import zone_kind, zone_number
from monitor.events.schema import PILES, EventBase, Source
from monitor.geometry.shapes import convex_hull, hull_distance
from monitor.perception.spot_watch import SpotView
from monitor.perception.stub_spread import Spread
from monitor.pipeline.observe import Seen, SpotChips
from monitor.pipeline.watchers.bets import BetsWatcher
from monitor.pipeline.watchers.dice import DiceWatcher
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.held import Held
from monitor.pipeline.watchers.rest import RestWatcher, Track
from monitor.pipeline.watchers.round import RoundWatcher
from monitor.pipeline.watchers.view import FrameView, TableLayout
from monitor.rules.paigow.partial import MAX_UNREAD
from monitor.tablestate.index_cards import IndexCard

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
GONE_ZONES = frozenset({"tray", "off_table"})
HAND_CARDS = 7  # a Pai Gow hand: the two-card front and the five-card back (seed 000 rule 1)
WAIT = -1  # a judgement that waits for more frames
AMBIGUOUS = -2  # two slots emptied before a pile showed at a seat: the next pile to show says which
HAND_SHOWN = 3  # a player's set cards face up, read or not: that hand is opened (rule 56)
BANKER_SHOWN = 4  # face-up cards resting in the banker's place: its hand is exposed (rule 11), read or not
# events that may pass a counted card still waiting for its read (none of them closes the deal)
_PASS_DEALT = frozenset({"card_dealt", "card_exposed", "bet_placed", "bet_changed", "dice_rolled"})


@dataclass(frozen=True, slots=True)
class ExtractorSettings:
    settle_frames: int = 3  # observations still, in one zone, before an object counts as resting
    # Within this of where it stopped (the mean of its positions since): still. A detector's corners
    # jitter by a pixel or two, 2-3 mm of table at 1080p; a card being dealt moves 20 mm or more a frame.
    still_mm: float = 10.0
    leave_frames: int = 2  # a resting object must look moved this many frames in a row to have left
    stable_s: float = 0.3  # a count must hold this long before it is reported
    row_stable_s: float = 0.1  # face-up cards read in a row: the dealer may move them again soon
    deal_idle_s: float = 0.4  # no card for this long after the last one: the deal may be over
    # A delivered hand not seen at its seat this long: collected. The detector can lose a resting
    # pile for most of a second while an arm passes near it.
    gone_s: float = 1.2
    # from vision alone: a seat whose hand left this long before cards came to rest at the banker's
    # place may be the banker's, taken there to be set
    banker_move_s: float = 4.0
    rebox_mm: float = 25.0  # a card resting this near where a seat's hand rests is that hand
    hold_s: float = 1.5  # chips that vanish at rest are taken as hidden (an arm) this long
    # A resting stack's worth is the reading most believed over this long: a colour read one frame
    # in four as the next denomination must not look like a changed bet.
    chip_vote_s: float = 1.0
    missing_s: float = 0.2  # a resting object not detected for this long is not there any more
    # A betting spot whose chips were all out of sight this long was covered (an arm): touched.
    touch_gap_s: float = 0.2
    # A betting spot's picture changed after the close must stay changed this long to be a change of
    # its chips: a hand resting on the spot, or cards passing, leave within 0.7 s (rendered rounds).
    spot_hold_s: float = 1.0
    # ... except chips added: a spot settled into a new picture whose chips, read in it at full
    # resolution, are worth more than the bet and one of them lies this far from every chip it held
    # (a chip is 39 mm across) where the bet's picture looked otherwise: a chip put down where there
    # was none, not the same chips read anew (a colour misread, a stack boxed as two, a chip missed
    # at the close and read beside an arm resting on the spot: clean_1056), nor a hand resting there.
    # Judged as the picture settles, not a second later (bet_changed_after_close live: 1.43 s).
    new_chip_mm: float = 25.0
    # ... and the spot's picture changed only where chips are or were (at most this share elsewhere):
    # a player's arm resting over the spot makes a settled picture whose sleeve or skin can read as a
    # chip (clean_1119: a "$1" on an arm, 47 mm from the bet)
    spot_bare_share: float = 0.05
    move_s: float = 2.0  # a pile slot emptied this recently is the pile a new stack at a seat came from
    # A pile is carried from its slot to a seat in 0.3 s or more (300-600 mm): a slot whose cards went
    # out of sight less than this before the pile showed at a seat is the next one (the arm over it).
    carry_s: float = 0.33
    slot_wait_s: float = 2.5  # a pile at a seat waits this long for a slot's picture to say it is empty
    land_mm: float = 60.0  # a card that vanishes this close to a card resting on a pile landed on it
    visit_gap_s: float = 0.12  # a hand away from a pile slot this long has left it (dropouts are shorter)
    # With the deck's place known: a trip ends where the hand's distance from the deck turns from
    # falling to rising by this much on both sides (the deck is 245 mm from the nearest slot; the
    # box centre of a hand resting over a card jitters by 20-30 mm).
    trip_turn_mm: float = 70.0
    # ... or by this much where the hand at the turn was over no slot: between two sightings over slots
    # it went back toward the deck (at 10 fps the one sighting of a short trip's return, pile 7 to
    # pile 6, may be only 62 mm nearer the deck than the card before it)
    trip_turn_off_mm: float = 40.0
    # a trip's slot whose picture moved this much (share of the slot) with no hand over it got a card,
    # though none was boxed there (a card is 0.4-0.5 of a slot's picture)
    slot_card_share: float = 0.2
    deck_reach_mm: float = 400.0  # a hand over no slot this near the deck is the dealing hand
    visit_read_s: float = 0.15  # after a hand left a pile slot, read the card it put there this much later
    hand_reach_mm: float = 78.0  # a hand this close to a pile slot's centre is over it (it holds an edge)
    clear_s: float = 1.0  # table empty this long: the round is over (no console)
    split_gap_mm: float = 80.0  # a gap this wide in the banker's row: the hand is set in two
    round_from_vision: bool = False  # open and close rounds on the table filling / going clear
    # Count the deal card by card (card_dealt, piles_complete). A perception that cannot see the
    # dealer's hand cannot: cards put on a pile cover each other where they land, so each pile would
    # count one card and every pile would look short. Without it the stub count and every card seen
    # face up on a pile (card_exposed) are still reported; the piles are not counted.
    count_deal: bool = True
    # Take a hand set face down as split the way its boxes are. A detector cannot promise one box per
    # face-down card (a fan of backs is boxed as fewer, a squared pair as more), so without it a face-down
    # split other than 2/5 waits for the cards to be turned up, where each card is read (seed 000 rule
    # 49: the count foul is then judged on the cards themselves).
    count_face_down: bool = True
    uncounted_s: float = 1.0  # without it: cards resting in both hands this long are a hand set, uncounted
    # A face on a pile that could not be read, not even its rank, is reported as exposed once it has
    # shown as certainly a face this long (None: never): the classifier gives it at most
    # ``unread_face_back_p`` of being a back. The held-out deck's pale back, lying on a pile, reads as
    # an ace at 0.51 with a back's chance of 0.009-0.3 (2 false exposures in 17 clean rounds at 0.05);
    # the faces it cannot name (the jester joker, a ten of clubs) read 0.0005 or less.
    unread_face_s: float | None = 0.2
    unread_face_back_p: float = 0.002
    unread_hold_s: float = 0.3  # ... and reported after this long unread, or when it goes out of sight
    rank_face_s: float = 0.2  # the same for a face whose rank alone was read
    # The banker's cards certainly faces this long, not all named: exposed with the unread ones counted
    # (None: only once every card is named)
    banker_unread_s: float | None = 0.15
    # A hand partly seen set when the banker's is turned up: the exposure waits this long for it to be
    # reported set (a card of it the detector lost), lest it look exposed early (rules 35, 37)
    set_wait_s: float = 4.0
    # The banker's setting read by index before its exposure is reported: held this long to count. 0:
    # the chain reads only a still picture of the banker's place (three still looks), and live the
    # foul setting of data/e2e/paigow_banker_foul lay still 0.33 s with its read a frame late, so the
    # 0.4 s hold lost it whenever the exposure waited (the fault set played live; the gate passes at 0)
    early_set_s: float = 0.0
    banker_seat: int | None = None  # for rounds opened by vision


@dataclass(slots=True)
class _Visit:
    """The dealer's hand over the pile slots during the deal, from the moment it reaches one until it
    is over none (it went back to the deck for the next card): one card put down, on the slot the
    hand came closest to (it may cross a neighbouring slot on its way)."""

    start: float
    frame: int
    last: float  # last time the hand was seen over a slot
    closest: dict[int, float] = field(default_factory=dict)  # slot -> nearest the hand came (mm)
    pile: int = 0  # once ended: where the card went
    ended: float | None = None
    read: bool = False
    read_at: float | None = None  # a card coming onto the slot after this is another card
    path: list[_HandAt] = field(default_factory=list)  # with the deck's place known: the hand's samples
    # how far the slot's picture moved from its last still one while no hand was over it, since the
    # trip ended (a card lying there that the detector did not box moves it too)
    slot_moved: float = 0.0


@dataclass(frozen=True, slots=True)
class _HandAt:
    """One sighting of the dealing hand during a trip: how far from the deck, and the slots under it."""

    t: float
    frame: int
    deck_mm: float
    under: tuple[tuple[int, float], ...]  # (slot, mm from where its cards lie)


@dataclass(slots=True)
class _Seat:
    pile: int
    tracks: set[str]
    absent_since: float | None = None
    collected: bool = False
    set_counts: Held = field(default_factory=Held)
    set_rest: Held = field(default_factory=Held)  # cards resting in both hands, uncounted
    reported_set: tuple[tuple[str | None, ...], tuple[str | None, ...]] | None = None
    opened: bool = False


@dataclass(slots=True)
class _Dealt:
    """A ``card_dealt`` waiting to go out. They go out in the deal's order (the rules count the n-th
    card by arrival); a face seen landing unread waits for its read (its rank or name) until it has
    been unread ``unread_hold_s`` or goes out of sight: an ace read a moment later is a misdeal (rule
    48a), not a card to replace (rule 51), and the exposure is reported once."""

    at: tuple[float, int]
    pile: int
    face_up: bool
    confidence: float = 1.0
    card: str | None = None
    rank: str | None = None
    track: str | None = None  # the unread face's track, while its read is awaited
    since: float = 0.0  # when it showed certainly a face
    last_certain: float = 0.0  # when it last showed certainly a face


@dataclass(slots=True)
class _Deal:
    """What a misdeal voids."""

    pile_of: dict[str, int] = field(default_factory=dict)  # card track -> pile it was dealt to
    counts: list[int] = field(default_factory=lambda: [0] * 8)
    last_card: float | None = None
    done: bool = False
    stub: Held = field(default_factory=Held)
    delivered: dict[int, int] = field(default_factory=dict)  # pile -> seat
    exposed: dict[str, int] = field(default_factory=dict)  # face-up card track -> its pile
    exposed_cards: set[str] = field(default_factory=set)  # the exposed cards' names (tracks may switch)
    unread_exposed: dict[int, str | None] = field(default_factory=dict)  # pile -> rank, of unnamed ones
    # faces on piles certainly faces but not read: track -> (pile, since, confidence), to be reported
    unread_pending: dict[str, tuple[int, tuple[float, int], float]] = field(default_factory=dict)
    exposed_as: dict[str, str | None] = field(default_factory=dict)  # track -> its card, rank, or None
    # exposures reported unread, still lying on their pile: pile -> (track, since, confidence); read
    # later, the read follows (an ace read after unread_hold_s is still rule 48a's misdeal)
    unread_out: dict[int, tuple[str, tuple[float, int], float]] = field(default_factory=dict)
    visits: list[_Visit] = field(default_factory=list)  # hands over pile slots during the deal
    dealt_out: list[_Dealt] = field(default_factory=list)  # counted cards not yet reported, in order
    removed: list[int] = field(default_factory=list)  # piles whose exposed card was taken off
    emptied: dict[int, float] = field(default_factory=dict)  # pile slot -> when its cards left it
    # Watched slots (their pictures): pile slot -> when its cards went out of sight, until its picture
    # shows it still and not as it was with the pile (an arm over it hides a pile that stays); the
    # version it showed holding its pile; seat cards waiting for the slot their pile left to be known.
    vanished: dict[int, float] = field(default_factory=dict)
    slot_version: dict[int, int] = field(default_factory=dict)
    waiting: dict[str, float] = field(default_factory=dict)  # card track -> when it came to rest
    carried: dict[int, float] = field(default_factory=dict)  # delivered pile -> when its slot emptied
    occupied: set[int] = field(default_factory=set)  # pile slots holding cards (after the deal)
    stub_n: int | None = None
    stub_seen: dict[str, float] = field(default_factory=dict)  # stub card track -> last seen resting
    action_pile: int | None = None
    seats: dict[int, _Seat] = field(default_factory=dict)
    banker_row: Held = field(default_factory=Held)
    banker_exposed: bool = False
    banker_seen: bool = False  # the banker's seat looked for from vision (no console said it)
    banker_cards_at: float | None = None  # ... since cards came to rest at the banker's place
    banker_unread: bool = False  # banker_exposed with cards not named: the named event is still due
    banker_faces_since: tuple[float, int] | None = None  # BANKER_SHOWN cards there certainly faces since
    banker_faces_lost: float | None = None  # ... and fewer of them since
    banker_up_at: tuple[float, int] | None = None  # BANKER_SHOWN certain faces there, moving or not
    banker_up_last: float = 0.0  # a certain face there last seen
    # the banker's cards seen face up, read or not: settlement has begun (no event: the contract's
    # banker_hand_exposed names the cards, and unread ones cannot be named)
    banker_face_up: bool = False
    banker_count: int = 0
    banker_set: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    banker_index_set: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # as read by its indices
    # settings read by index while the exposure's report waits (on the players' sets): each held a
    # while, kept with when it was first read, and sent once the exposure is (a foul setting may be
    # changed before that: banker_foul's lay 1.4 s)
    banker_index_row: Held = field(default_factory=Held)
    banker_index_early: list[tuple[tuple[float, int], dict[str, Any]]] = field(default_factory=list)


class EventExtractor:
    """One table's vision events from tracked objects; see the module doc."""

    def __init__(
        self,
        table_id: str,
        settings: ExtractorSettings | None = None,
        next_seq: Callable[[], int] | None = None,
        wall_time: Callable[[float], datetime] | None = None,
        layout: TableLayout | None = None,
    ) -> None:
        """``layout``: the table's pile slots and deck (:meth:`TableLayout.of` a calibration's zones),
        where known: the deal is then counted by the dealer's trips from the deck."""
        self.table_id = table_id
        self.s = settings or ExtractorSettings()
        self.out = Outbox(table_id, next_seq, wall_time)
        self.out.before = self._cards_first
        self.rest = RestWatcher(self.s)
        self.tracks = self.rest.tracks
        self.layout = layout or TableLayout()
        self.slot_centers = self.layout.slot_centers
        self.deck_at = self.layout.deck_at
        self._deal_hull: list[tuple[float, float]] | None = None  # deck and slots: where the hand deals
        self.banker_seat = self.s.banker_seat
        self.deal = _Deal()
        self.spots: Mapping[str, SpotView] = {}  # zone name -> its picture (betting spots, pile slots)
        self.stub_spread: Spread | None = None  # the stub spread counted from its picture, if watched
        self.stub_still: tuple[float, int] | None = None  # since when (time, frame) it has lain still
        self.bets = BetsWatcher(self.s, self.rest, self.out, self)
        self.dice = DiceWatcher(self.s, self.rest, self.out)
        self.round = RoundWatcher(self.s, self.rest, self.out, self._opened_by_vision)
        self._frame = 0
        self._now = 0.0

    # ---- input -----------------------------------------------------------------------------------

    def note(self, event: EventBase) -> None:
        """An event from elsewhere (console, dice reader): it moves the phase the way the rules do."""
        t = getattr(event, "type", "")
        if t == "round_started":
            self._new_round()
            self.round.opened()
            self.banker_seat = getattr(event, "banker_seat", None) or self.s.banker_seat
        elif t == "round_ended":
            self.round.closed()
        elif t == "misdeal_declared":
            self.deal = _Deal()
            self.bets.misdeal()
            self.dice.reset()
        elif t in ("bets_closed", "dice_rolled"):
            # the dice exposed close the bets too (seed 000 rule 36)
            at = getattr(event, "media_time", None)
            self.bets.close(self._now if at is None else float(at))
        elif t == "action_pile_chosen":
            self.deal.action_pile = getattr(event, "pile", None)

    def frame(self, index: int, media_time: float, objects: Iterable[Seen],
              spots: Mapping[str, SpotView] | None = None, stub: Spread | None = None,
              stub_still: tuple[float, int] | None = None,
              hand_cards: Mapping[str, list[IndexCard]] | None = None,
              spot_chips: Mapping[str, SpotChips] | None = None) -> list[EventBase]:
        """One frame's tracked objects and picture readings (see :class:`FrameView`); returns the
        vision events it confirmed, in order."""
        return self.see(FrameView(index, media_time, tuple(objects), spots or {}, stub, stub_still,
                                  hand_cards or {}, spot_chips or {}))

    def see(self, view: FrameView) -> list[EventBase]:
        """One frame (:class:`FrameView`); returns the vision events it confirmed, in order."""
        index, media_time = view.index, view.media_time
        self._frame, self._now = index, media_time
        self.hand_cards = view.hand_cards
        self.spots = view.spots
        self.stub_spread = view.stub
        self.stub_still = view.stub_still
        self.bets.look(view)
        self.out.at(index, media_time)
        view = self.rest.frame(view)
        hands = list(view.hands)
        settled = list(view.settled) + self._covered_landings(view)
        # carrying missed objects only matters where something reads the table
        view = self.rest.with_present(view, carry=self.round_open or self.s.round_from_vision)
        present = dict(view.present)
        out = self.round.frame(view)
        if self.round_open:
            self._hand_visits(hands, present)
            if self.deal.dealt_out:
                self._send_dealt(present, force=self.deal.done or bool(self.deal.delivered))
            for o, before in settled:
                if o.kind == "card":
                    self._card_rests(o, before)
            self._deal_end(present)
            self._pile_faces(present)
            self._pile_slots(present)
            self._seats(present)
            self._banker_seat_seen(present)
            self._banker(present)
            out += self.out.take()
            out += self.bets.frame(view)
            out += self.dice.frame(view)
        return out

    def _covered_landings(self, view: FrameView) -> list[tuple[Seen, str | None]]:
        """Cards that came onto a pile and vanished there before they settled: they landed.

        A card covered before the debounce ended (the next card came quickly, or a lagging chain
        skipped frames) is one case. A tracker's id switch is the other: the card landing on a pile
        covers the one below, and the tracker may give the landing card's box to the covered card's
        track, so the landing card's own track ends on the pile. Either way a card that vanishes on a
        pile, on top of (``land_mm``) a card resting there, landed; one that vanishes for less than
        ``missing_s`` may be a detector's dropout, so the decision waits that long.
        """
        out: list[tuple[Seen, str | None]] = []
        for track in self.rest.gone_landing(view):
            tr = self.tracks[track]
            o = tr.last
            if o is None or self.deal.done:
                continue
            if self._visit_covers(pile := zone_number(tr.zone), tr.entered):
                if pile is not None and tr.still >= 2:
                    self.deal.pile_of.setdefault(track, pile)  # it stopped there: its hand's visit counted it
                continue
            # a card stopped there; or, where no hand is seen, one whose track ended on top of a
            # pile (the tracker gave its box to the covered card): with hands in view, a card that
            # vanishes over a slot without stopping and without a hand there was flying over it
            if tr.still >= 2 or (not self.deal.visits and self._on_a_pile(o)):
                before, tr.resting = tr.resting, tr.zone
                out.append((o, before))
        return out

    def _on_a_pile(self, o: Seen) -> bool:
        """``o`` was over a card resting on its pile slot (not merely flying across the slot)."""
        for t, tr in self.tracks.items():
            r = tr.last
            if (t != o.track and r is not None and r.kind == "card" and tr.resting == o.zone
                    and tr.zone == o.zone and self._now - tr.seen_at <= self.s.missing_s + 0.2
                    and (r.x - o.x) ** 2 + (r.y - o.y) ** 2 <= self.s.land_mm ** 2):
                return True
        return False

    def _certain_face(self, o: Seen) -> bool:
        return self.rest.certain_face(o)

    def _at_rest(self, o: Seen) -> bool:
        return self.rest.at_rest(o)

    # ---- output ----------------------------------------------------------------------------------

    def _emit(self, etype: str, confidence: float = 1.0, source: Source = Source.VISION,
              at: tuple[float, int] | None = None, **fields: Any) -> None:
        self.out.emit(etype, confidence, source, at, **fields)

    def _cards_first(self, etype: str) -> None:
        if etype not in _PASS_DEALT and self.deal.dealt_out:
            self._send_dealt({}, force=True)  # what closes or follows the deal comes after its cards

    # ---- rounds ----------------------------------------------------------------------------------

    def _new_round(self) -> None:
        if getattr(self, "deal", None) is not None and self.deal.dealt_out:
            self._send_dealt({}, force=True)  # the last round's cards are not lost with it
        self.deal = _Deal()
        self.bets.reset()
        self.dice.reset()

    def _opened_by_vision(self) -> None:
        self._new_round()
        self.banker_seat = self.s.banker_seat  # the bank moves (rule 3): told, or seen anew

    @property
    def round_open(self) -> bool:
        return self.round.open

    # ---- the deal --------------------------------------------------------------------------------

    def _card_rests(self, o: Seen, before: str | None) -> None:
        d = self.deal
        kind = zone_kind(o.zone)
        if kind == "pile":
            pile = zone_number(o.zone)
            assert pile is not None
            if o.track in d.pile_of and not d.done and not d.delivered:
                d.pile_of[o.track] = pile  # it lies here: an earlier guess (seen flying past) was wrong
                return
            if o.track in d.pile_of or d.delivered:
                return  # already counted, or a pile squared after delivery began
            if not d.done and self._visit_covers(pile, self.tracks[o.track].entered):
                d.pile_of[o.track] = pile  # put there by a hand whose visit counts it
                return
            if not d.done and self.s.count_deal and self.deck_at is not None and d.visits:
                # the deal is counted by the hand's trips from the deck, and no trip put this card
                # here: a card already lying there boxed anew (a new track), not a card dealt
                d.pile_of[o.track] = pile
                return
            d.pile_of[o.track] = pile
            d.counts[pile] += 1
            d.last_card = self._now
            if not d.done and not self.s.count_deal:
                return  # not reported: a named face-up card is (by _pile_faces), uncounted
            if not d.done:
                if o.face_up:
                    self._mark_exposed(o.track, pile, o.card, o.rank)
                self._emit("card_dealt", o.confidence, pile=pile, face_up=o.face_up, card=o.card, rank=o.rank)
            elif d.removed:
                d.removed.remove(pile) if pile in d.removed else d.removed.pop(0)
                d.stub_n = None if d.stub_n is None else d.stub_n - 1
                self._emit("exposed_card_replaced", o.confidence, pile=pile, card=o.card)
            return
        seat = zone_number(o.zone) if kind in ("seat", "front", "back") else None
        if seat is not None and kind in ("front", "back"):
            self._delivery_unseen(seat, o)
        if seat in d.seats and kind in ("front", "back") and not any(o.track in st.tracks
                                                                       for st in d.seats.values()):
            d.seats[seat].tracks.add(o.track)  # a card never seen on its pile (always covered there)
        if (seat in d.seats and kind == "seat" and o.track not in d.pile_of
                and not any(o.track in st.tracks for st in d.seats.values())
                and self._where_hand_lies(d.seats[seat], o)):
            d.seats[seat].tracks.add(o.track)  # the seat's hand boxed anew after a dropout: no delivery
            return
        pile = d.pile_of.get(o.track)
        if pile is None and seat is not None and kind == "seat":
            # judged as of when it came there: the next pile's slot may go out of sight (the arm
            # reaching for it) while this one settles
            rested = d.waiting.pop(o.track, min(self._now, self.tracks[o.track].entered))
            pile = self._arrived_from(o, seat, rested)
            if pile in (WAIT, AMBIGUOUS):
                if self._now - rested < self.s.slot_wait_s:
                    d.waiting[o.track] = rested
                    return
                pile = self._pile_just_moved(rested, judged=False)
            if pile is not None:
                d.pile_of[o.track] = pile
        if seat is None and o.zone != "banker" and not d.delivered:
            gone = o.track if o.track in d.exposed else self._exposed_card(o)
            if gone is not None:
                # the exposed card taken off its pile (rule 51): it is no longer part of that hand
                d.removed.append(d.exposed.pop(gone))
                d.pile_of.pop(gone, None)
                return
        if seat is not None and pile is not None and pile not in d.delivered:
            self._complete_deal(stub=None)
            if d.action_pile is None and not d.delivered:
                d.action_pile = self._moved_first(pile, self.tracks[o.track].entered)
                self._emit("action_pile_chosen", o.confidence, pile=d.action_pile)
            self._deliver(pile, seat, {t for t, p in d.pile_of.items() if p == pile}, o.confidence)

    def _deliver(self, pile: int, seat: int, tracks: set[str], confidence: float) -> None:
        d = self.deal
        d.delivered[pile] = seat
        d.carried[pile] = d.emptied.get(pile, d.vanished.get(pile, self._now))
        d.seats[seat] = _Seat(pile, tracks)
        self._emit("pile_delivered", confidence, pile=pile, seat=seat)

    def _delivery_unseen(self, seat: int, o: Seen) -> None:
        """A hand being set at a seat no pile was seen to reach: the detector missed the pile at that
        seat (seat 7, at the layout's edge, in two of a hundred random rounds). When every other pile
        was delivered and the one left is gone from its slot, it is the pile that went there: delivered
        (reported now, when vision knows it), so the seat's setting is followed and not taken for a
        hand never set (rules 35, 37)."""
        d = self.deal
        if seat in d.seats or not d.delivered or seat in d.delivered.values():
            return
        left = [p for p in range(1, PILES + 1) if p not in d.delivered]
        if len(left) != 1 or left[0] in d.occupied:
            return
        self._deliver(left[0], seat, {o.track}, o.confidence)

    def _exposed_card(self, o: Seen) -> str | None:
        """The exposure (its track) a face-up card come to rest off the piles is, by what was read of
        both: the dealer's hand hides the card on its way, and the tracker gives it a new id."""
        if o.kind != "card" or not o.face_up:
            return None
        d = self.deal
        for track, read in d.exposed_as.items():
            if track not in d.exposed:
                continue
            if read is None:  # an unread face: any sure face is the best witness there is
                if o.face_sure:
                    return track
            elif read == o.card or (len(read) == 1 and read == (o.card or o.rank or "?")[0]):
                return track
        return None

    def _pile_faces(self, present: dict[str, Seen]) -> None:
        """A face lying up on a pile before the piles are delivered is exposed (rules 48, 51), however it
        came there: the deal's count may not have seen it land (the dealer's hand not found, or a
        tracker that gave the landing card the covered card's id), but its face is in view.

        Named, or its rank read, at once. A face read not even to its rank once it has shown as
        certainly a face for ``unread_face_s`` (a pale back the detector took for a face is not
        certainly one, and one frame of glare is not an exposure), and then only when it goes out of
        sight or ``unread_hold_s`` passed unread: a rank read meanwhile says more (an ace is a
        misdeal, rule 48a), and the exposure is reported once.
        """
        d = self.deal
        if d.delivered:
            self._unread_faces(present)  # the piles are going out: what waited is reported now
            d.unread_out.clear()  # past the deal an exposure is no deal fault (rules 48, 51)
            return
        self._read_late(present)
        for o in present.values():
            if (o.kind != "card" or not o.face_up or zone_kind(o.zone) != "pile" or o.track in d.exposed
                    or (o.card is not None and o.card in d.exposed_cards) or not self._at_rest(o)
                    or o.track in d.unread_pending):
                continue
            tr = self.tracks[o.track]
            at = tr.named_at if o.card is not None else None
            if at is None:
                # unnamed: a face for a while (its rank read: a little while; one frame of a pile
                # being lifted can read as "an ace" at rank level)
                wait, at = ((self.s.rank_face_s, tr.face_at) if o.rank is not None
                            else (self.s.unread_face_s, tr.certain_at))
                if wait is None or at is None or self._now - at[0] < wait - 1e-9:
                    continue
            pile = zone_number(o.zone)
            assert pile is not None
            if any(not v.read and (v.pile == pile or pile in v.closest) for v in d.visits):
                continue  # a hand's visit to this slot is still to be read: it reports the card
            if o.card is None and pile in d.exposed.values():
                continue  # this pile's exposed card, its track renewed: reported once
            if pile in d.unread_exposed and d.unread_exposed[pile] in (None, (o.card or "?")[0]):
                continue  # the unnamed exposed card of this pile, read better now: reported once
            if o.card is None and o.rank is None:
                d.unread_pending[o.track] = (pile, at, o.confidence)
                continue
            self._expose(o.track, pile, o.card, o.rank, at, o.confidence)
        self._unread_faces(present)

    def zones_to_read(self) -> set[str]:
        """Where cards are wanted read by their indices (the chain reads only these): pile slots where
        a face lies unread, the hand areas of seats whose hand is set and not yet seen opened, the
        banker's place once the banker's hand is exposed. Reading every still hand area cost the
        review a tenth of its speed (`bench review`)."""
        d = self.deal
        zones = ({f"pile{pile}" for pile, _, _ in d.unread_pending.values()}
                 | {f"pile{e.pile}" for e in d.dealt_out if e.track is not None}
                 | {f"pile{pile}" for pile in d.unread_out})
        for seat, st in d.seats.items():
            if st.reported_set is not None and not st.opened:
                zones |= {f"seat{seat}.front", f"seat{seat}.back"}
        if d.banker_exposed or d.banker_up_at is not None:
            zones.add("banker")  # turned up: its setting may change before the exposure is reported
        return zones

    def _unread_faces(self, present: dict[str, Seen]) -> None:
        """Report the unread faces waiting to be read, once out of sight or waited for long enough;
        a face its index names (or ranks) is reported so."""
        d = self.deal
        for track, (pile, at, conf) in list(d.unread_pending.items()):
            o = present.get(track)
            if o is not None and (o.card is not None or o.rank is not None):
                del d.unread_pending[track]  # read now: reported as read, once it has held
                continue
            best = self._index_read(pile)
            if best is not None and pile not in d.exposed.values() and pile not in d.unread_exposed:
                del d.unread_pending[track]
                self._expose(track, pile, best.card, best.rank, at, min(conf, best.confidence))
                continue
            if (o is not None and self._certain_face(o) and zone_number(o.zone) == pile
                    and self._now - at[0] < self.s.unread_hold_s - 1e-9):
                continue
            del d.unread_pending[track]
            if pile not in d.exposed.values() and pile not in d.unread_exposed:
                self._expose(track, pile, None, None, at, conf)
                d.unread_out[pile] = (track, at, conf)

    def _read_late(self, present: dict[str, Seen]) -> None:
        """An exposure reported unread (after ``unread_hold_s``, to alert at once) and read while it
        still lies on its pile: reported again, read (the procedure monitor takes it for the same card,
        now known: an ace is a misdeal, rule 48a, not a card to replace, rule 51)."""
        d = self.deal
        for pile, (track, at, conf) in list(d.unread_out.items()):
            o = present.get(track)
            if o is None or zone_number(o.zone) != pile or zone_kind(o.zone) != "pile" or not o.face_up:
                if o is None and track not in self.tracks:
                    del d.unread_out[pile]  # its track is gone for good: nothing more to learn
                continue
            card, rank, confidence = o.card, o.rank, o.confidence
            if card is None and rank is None and (best := self._index_read(pile)) is not None:
                card, rank, confidence = best.card, best.rank, best.confidence
            if card is None and rank is None:
                continue
            del d.unread_out[pile]
            d.unread_exposed[pile] = rank if card is None else card[0]
            d.exposed_as[track] = card or rank
            if card is not None:
                d.exposed_cards.add(card)
            self._emit("card_exposed", min(conf, confidence), at=at, card=card, rank=rank,
                       zone=f"pile:{pile}")

    def _index_read(self, pile: int) -> IndexCard | None:
        """The best read by its index (named, else ranked) of the cards lying on ``pile``, if any."""
        read = [c for c in self.hand_cards.get(f"pile{pile}", []) if c.card or c.rank]
        return max(read, key=lambda c: (c.card is not None, c.confidence), default=None)

    def _expose(self, track: str, pile: int, card: str | None, rank: str | None, at: tuple[float, int],
                confidence: float) -> None:
        self._mark_exposed(track, pile, card, rank)
        if card is None:
            self.deal.unread_exposed[pile] = rank
        # dated when the face was first seen (the track may be the covered card's, older)
        self._emit("card_exposed", confidence, at=at, card=card, rank=rank, zone=f"pile:{pile}")

    def _mark_exposed(self, track: str, pile: int, card: str | None, rank: str | None) -> None:
        d = self.deal
        d.exposed[track] = pile
        d.exposed_as[track] = card or rank
        if card is not None:
            d.exposed_cards.add(card)

    # ---- the deal: hands over pile slots -------------------------------------------------------

    def _hand_visits(self, hands: list[Seen], present: dict[str, Seen]) -> None:
        """Each trip of the dealer's hand to the pile slots during the deal puts one card down.

        A card put on a pile covers the one below at nearly the same place, under the hand: a
        tracker keeps the covered card's id (or the detector sees one pile), so no new card is seen.
        The hand shows it: in a 7x7 deal it goes back to the deck between two cards, so one trip over
        the slots is one card, put on the slot the hand came closest to (it may cross a neighbour on
        its way). A trip is read ``visit_read_s`` after the hand left (is the card face up?). Not
        after the deal: delivery and replacements have their own events.
        """
        d = self.deal
        if d.done or d.delivered or not self.s.count_deal:
            return
        if self.deck_at is not None:
            self._hand_trips(hands, present)
            return
        over = [(n, h) for h in hands for n in self._slots_under(h)]
        run = d.visits[-1] if d.visits and d.visits[-1].ended is None else None
        if over:
            if run is None:
                for old in d.visits:  # the hand is back: read what is in view before it covers it
                    if not old.read:
                        self._visit_read(old, present, final=False)
                run = _Visit(self._now, self._frame, self._now)
                d.visits.append(run)
            run.last = self._now
            for pile, h in over:
                run.closest[pile] = min(run.closest.get(pile, 1e9), self._to_slot(pile, h, present))
        elif run is not None and self._now - run.last >= self.s.visit_gap_s - 1e-9:
            run.ended = run.last
            run.pile = min(run.closest, key=lambda p: (run.closest[p], p))
        for v in d.visits:
            if v.ended is not None and not v.read and self._now - v.ended >= self.s.visit_read_s - 1e-9:
                self._visit_read(v, present, final=self._now - v.ended >= self.s.visit_read_s + 0.3)

    def _hand_trips(self, hands: list[Seen], present: dict[str, Seen]) -> None:
        """:meth:`_hand_visits` with the deck's place known: a trip goes out from the deck and back.

        At 15 fps a card takes 4-5 frames and the hand is seen near the deck for one of them or none,
        so waiting for it to be over no slot for ``visit_gap_s`` merges trips (two cards counted as
        one, every later card a pile early). A trip ends instead where the hand's distance from the
        deck turns from falling to rising by ``trip_turn_mm`` (the hand went back for the next card),
        or, as before, when it has been over no slot for ``visit_gap_s``; its card went to the slot
        under the hand where it came farthest from the deck (the end of its way out).
        """
        d = self.deal
        run = d.visits[-1] if d.visits and d.visits[-1].ended is None else None
        hand = self._dealing_hand(hands)
        if hand is not None:
            dist, under = hand
            if run is None and under and not self._deal_counted():
                run = self._new_trip(present)
            if run is not None:
                run.path.append(_HandAt(self._now, self._frame, dist, under))
                if under:
                    run.last = self._now
                    for pile, mm in under:
                        run.closest[pile] = min(run.closest.get(pile, 1e9), mm)
                run = self._trip_turn(run, present)
        if run is not None and (hand is None or not hand[1]) \
                and self._now - run.last >= self.s.visit_gap_s - 1e-9:
            self._end_trip(run, run.path)
        unread = [v for v in d.visits if v.ended is not None and not v.read]
        if unread and self.spots:
            covered = {n for h in hands for n in self._slots_under(h)}
            for v in unread:
                if v.pile not in covered and (view := self.spots.get(f"pile{v.pile}")) is not None:
                    v.slot_moved = max(v.slot_moved, view.difference)
        for v in d.visits:
            if v.ended is not None and not v.read and self._now - v.ended >= self.s.visit_read_s - 1e-9:
                self._visit_read(v, present, final=self._now - v.ended >= self.s.visit_read_s + 0.3)

    def _deal_counted(self) -> bool:
        """All 49 cards of the 7x7 deal counted and the hand paused since (rule 6): a trip now is not
        the deal's (it takes an exposed card off a pile before the stub is counted, rule 51). A 50th
        card dealt in the deal's rhythm is still counted (a pile of eight is a foul deal)."""
        d = self.deal
        return (sum(d.counts) >= PILES * 7 and d.last_card is not None
                and self._now - d.last_card >= self.s.deal_idle_s)

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

    def _new_trip(self, present: dict[str, Seen]) -> _Visit:
        for old in self.deal.visits:  # the hand is back: read what is in view before it covers it
            if not old.read:
                self._visit_read(old, present, final=False)
        run = _Visit(self._now, self._frame, self._now)
        self.deal.visits.append(run)
        return run

    def _trip_turn(self, run: _Visit, present: dict[str, Seen]) -> _Visit | None:
        """Split the trip where the hand turned back at the deck: a valley in its distance from the
        deck ``trip_turn_mm`` below the farthest point before it and below the sighting now."""
        path = run.path

        def turn(a: _HandAt) -> float:
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
        nxt = _Visit(out[0].t, out[0].frame, out[-1].t, path=rest)
        for a in out:
            for pile, mm in a.under:
                nxt.closest[pile] = min(nxt.closest.get(pile, 1e9), mm)
        for old in self.deal.visits:
            if not old.read:
                self._visit_read(old, present, final=False)
        self.deal.visits.append(nxt)
        return nxt

    @staticmethod
    def _end_trip(run: _Visit, path: list[_HandAt]) -> None:
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
        return [n for n, (x, y) in self.slot_centers.items() if (x - hand.x) ** 2 + (y - hand.y) ** 2 <= r2]

    def _to_slot(self, pile: int, hand: Seen, present: dict[str, Seen]) -> float:
        """How far the hand is from where cards lie on ``pile``: the slot's centre, or without a
        calibration the cards lying there (not a card in flight: the hand carries that one)."""
        c = self.slot_centers.get(pile)
        if c is not None:
            return math.hypot(c[0] - hand.x, c[1] - hand.y)
        return min((math.hypot(o.x - hand.x, o.y - hand.y) for o in present.values()
                    if o.kind == "card" and o.zone == hand.zone and self.tracks[o.track].still >= 2),
                   default=1e9)

    def _visit_read(self, v: _Visit, present: dict[str, Seen], final: bool = True) -> bool:
        """Count the visit's card once it is seen lying on the slot (its face says if it is exposed).

        Not in view yet (a detector's dropout): wait, unless ``final``; then the cards seen lying there
        a moment ago, or come there since the visit, say it. Nothing lying on the slot: the hand only
        touched it, or swept its cards away (a misdeal): no card. True once read.
        """
        d = self.deal
        on_slot = [tr for tr in self.tracks.values() if self._card_on_slot(tr)]

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
        now = [tr.last for tr in on_slot
               if tr.last is not None and lying(tr) and tr.seen_at >= self._now - 1e-9]
        if not now and not final:
            return False
        v.read, v.read_at = True, self._now
        # (the final read comes on the first frame past this: a card first seen in it came in time)
        end = max((v.ended or v.last) + self.s.visit_read_s + 0.3, self._now)
        # else what lay there a moment ago, or came onto the slot since the hand did (seen once is
        # enough: a new card on the slot, not one flying past, since it is still in the slot's zone)
        cards = now or [tr.last for tr in on_slot
                        if tr.last is not None and ((lying(tr) and self._now - tr.seen_at <= self.s.missing_s)
                                                    or (zone_number(tr.zone) == v.pile
                                                        and v.start - 0.2 <= tr.entered <= end))]
        if not cards:
            if v.slot_moved < self.s.slot_card_share or d.counts[v.pile]:
                return True
            # no card boxed on the empty slot, but its picture changed by a card once the hand had left
            # (at 10 fps a card may lie in view one frame before the next trip covers it): the trip's
            # card, its face unseen (face down: a face up one is judged when seen, _pile_faces). Not
            # on a slot with cards: those witness a card put there, and a hand gathering them after a
            # misdeal changes the picture too.
            d.counts[v.pile] += 1
            d.last_card = max(d.last_card or 0.0, v.last)
            self._queue_dealt(v, _Dealt((v.start, v.frame), v.pile, False), present)
            return True
        for o in cards:  # the ones lying there belong to this pile (not one seen once, flying past)
            if lying(self.tracks[o.track]):
                d.pile_of.setdefault(o.track, v.pile)
        d.counts[v.pile] += 1
        d.last_card = max(d.last_card or 0.0, v.last)
        # an unread "face" not certainly one (a pale back, a frame of glare) is left to _pile_faces,
        # which waits for it to show as a face long enough
        up = [o for o in cards if self._certain_face(o) and o.track not in d.exposed
              and (o.card is None or o.card not in d.exposed_cards)]
        if up:
            o = up[0]
            d.exposed[o.track] = v.pile
            d.exposed_as[o.track] = o.card or o.rank
            if o.card is not None:
                d.exposed_cards.add(o.card)
            tr = self.tracks[o.track]
            unread = o.card is None and o.rank is None
            dealt = _Dealt((v.start, v.frame), v.pile, True, o.confidence, o.card, o.rank,
                           o.track if unread else None,
                           tr.certain_at[0] if tr.certain_at is not None else tr.seen_at, tr.seen_at)
        else:
            dealt = _Dealt((v.start, v.frame), v.pile, False)
        self._queue_dealt(v, dealt, present)
        return True

    def _queue_dealt(self, v: _Visit, dealt: _Dealt, present: dict[str, Seen]) -> None:
        """Queue a trip's card for reporting, in the order of the trips (a trip split from the one
        before it late is read after the next), and report what is ready."""
        d = self.deal
        at = len(d.dealt_out)
        while at and d.dealt_out[at - 1].at[0] > v.start:
            at -= 1
        d.dealt_out.insert(at, dealt)
        self._send_dealt(present)

    def _send_dealt(self, present: dict[str, Seen], force: bool = False) -> None:
        """Report the counted cards in order, an unread face once read or held long enough (``force``:
        all of them now, read or not: the deal is closing)."""
        d = self.deal
        while d.dealt_out:
            e = d.dealt_out[0]
            if not force and any(v.ended is not None and not v.read and v.start < e.at[0] for v in d.visits):
                return  # an earlier trip's card is not read yet: the deal's order is kept
            if e.track is not None:
                o = present.get(e.track)
                tr = self.tracks.get(e.track)
                seen = o if o is not None else (tr.last if tr is not None else None)
                if seen is not None and (seen.card is not None or seen.rank is not None):
                    e.card, e.rank = seen.card, seen.rank
                elif (best := self._index_read(e.pile)) is not None:  # the chain reads the slot
                    e.card, e.rank, e.confidence = best.card, best.rank, min(e.confidence, best.confidence)
                else:
                    if o is not None and self._certain_face(o) and zone_number(o.zone) == e.pile:
                        e.last_certain = self._now
                        if not force and self._now - e.since < self.s.unread_hold_s - 1e-9:
                            return  # still unread, still in view: the cards after it wait with it
                    wait = self.s.unread_face_s
                    if wait is None or e.last_certain - e.since < wait - 1e-9:
                        # a face unread and not certainly one for unread_face_s (a card in flight
                        # boxed once as a face, glare): dealt face down, as _pile_faces would judge it
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
            self._emit("card_dealt", e.confidence, at=e.at, pile=e.pile, face_up=e.face_up, card=e.card,
                       rank=e.rank)

    @staticmethod
    def _card_on_slot(tr: Track) -> bool:
        """A card track whose last sighting is on a pile slot (the zone it is counted in)."""
        return (tr.last is not None and tr.last.kind == "card" and tr.zone == tr.last.zone
                and zone_kind(tr.zone) == "pile")

    def _visit_covers(self, pile: int | None, entered: float) -> bool:
        """A card that came onto ``pile`` at ``entered`` was put there during a hand's visit."""
        # (a card that came in the frame the visit was read, or later, was not among those read)
        return any((v.pile == pile or (v.ended is None and pile in v.closest)) and v.start - 0.2 <= entered
                   and entered <= (v.ended if v.ended is not None else self._now) + self.s.visit_read_s + 0.3
                   and (v.read_at is None or entered < v.read_at - 1e-9)
                   for v in self.deal.visits)

    def _moved_first(self, pile: int, at: float) -> int:
        """The action pile, the one delivered first (rule 8): ``pile``, seen first at a seat at ``at``,
        unless another slot emptied before its own (within ``move_s``): that pile's arrival went unseen
        (a stack the detector never boxed), and taking ``pile`` for the action pile would judge every
        delivery after it against the wrong seat."""
        d = self.deal
        own = d.emptied.get(pile, d.vanished.get(pile, at))
        earlier = [(t, p) for p, t in d.emptied.items() if p != pile and at - self.s.move_s <= t < own]
        return min(earlier)[1] if earlier else pile

    def _arrived_from(self, o: Seen, seat: int, rested: float) -> int | None:
        """The pile slot a pile come to rest at ``seat`` at ``rested`` left, ``WAIT`` or ``AMBIGUOUS``.

        Piles are carried one at a time, so they show at the seats in the order their slots emptied.
        An arrival seen late (its track started after the next slot emptied) finds two slots emptied
        before it: the next arrival, at another seat, takes the later one, and this one the earlier.
        """
        d = self.deal
        if any(r < rested for t, r in d.waiting.items() if t != o.track):
            return WAIT  # an earlier arrival is still undecided: judged in the order they came
        pile = self._pile_just_moved(rested)
        if pile != AMBIGUOUS:
            return pile
        later = sorted((r, t) for t, r in d.waiting.items()
                       if r > rested and (tr := self.tracks.get(t)) is not None
                       and zone_number(tr.zone) != seat)
        if not later:
            return AMBIGUOUS
        nxt = self._pile_just_moved(later[0][0], before=math.inf)
        if nxt is None or nxt < 0:
            return AMBIGUOUS
        return self._pile_just_moved(rested, before=d.emptied[nxt])

    def _pile_just_moved(self, at: float, judged: bool = True, before: float | None = None) -> int | None:
        """The pile slot emptied last (within ``move_s`` before ``at``) and not yet delivered, or
        ``WAIT``: a slot whose cards went out of sight later is not yet known to be empty;
        ``AMBIGUOUS``: two slots emptied (given ``before``: the last one emptied before that time;
        ``math.inf``: the later one).

        A pile crosses the table in a few frames; a tracker matching boxes frame to frame loses it on
        the way and starts a new track at the seat. The slot it left says which pile it was. Where
        the slots' pictures are watched, a slot is empty once its picture says so: the dealer's arm
        over the next slot hides that pile for a moment, and taking it for the slot emptied last
        delivered the wrong pile. ``judged=False``: every slot out of sight counts (waited too long).
        A slot emptied before the slot of a pile already delivered is not this pile's: piles are
        carried one at a time, and its own arrival was missed.
        """
        d = self.deal
        after = max(d.carried.values(), default=-math.inf)
        lo, hi, end = at - self.s.move_s, at - self.s.carry_s, at
        if before is not None:
            hi, end = min(hi, before - 1e-6), min(end, before - 1e-6)

        def fresh(slots: dict[int, float]) -> list[tuple[float, int]]:
            return [(t, p) for p, t in slots.items() if p not in d.delivered and after < t and lo <= t <= end]

        left, hidden = fresh(d.emptied), fresh(d.vanished)
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

    def _pile_slots(self, present: dict[str, Seen]) -> None:
        """Which pile slots hold cards, and when each was emptied (the deal never empties one)."""
        d = self.deal
        if d.last_card is None:
            return
        # (a pile carried across other slots on its way to a seat does not fill them)
        now_occupied = {n for o in present.values() if o.kind == "card" and zone_kind(o.zone) == "pile"
                        and self.tracks[o.track].resting == o.zone and (n := zone_number(o.zone)) is not None}
        for p in d.occupied - now_occupied:
            d.vanished[p] = self._now
        for p in now_occupied:
            d.emptied.pop(p, None)
            d.vanished.pop(p, None)
            view = self.spots.get(f"pile{p}")
            if view is not None and view.settled:
                d.slot_version[p] = view.version
        d.occupied = now_occupied
        for p, t in list(d.vanished.items()):
            view = self.spots.get(f"pile{p}")
            if view is None or (view.settled and view.version != d.slot_version.get(p, -1)):
                d.emptied[p] = t  # dated when its cards were last known there
                del d.vanished[p]
            elif view.settled:
                d.vanished[p] = self._now  # still as it was with its pile: there, though not detected
        for track in sorted(d.waiting, key=d.waiting.__getitem__):  # in the order they came to rest
            tr = self.tracks.get(track)
            if tr is None or tr.last is None or not self._at_rest(tr.last) or track in d.pile_of:
                del d.waiting[track]
            else:
                self._card_rests(tr.last, None)

    def _complete_deal(self, stub: int | None, at: tuple[float, int] | None = None) -> None:
        d = self.deal
        if d.done or d.last_card is None:
            return
        d.done = True
        if self.s.count_deal:
            self._emit("piles_complete", at=at, counts=d.counts[1:8])
        if stub is not None:
            self._emit("stub_counted", at=at, n=stub)

    def _deal_end(self, visible: dict[str, Seen]) -> None:
        d = self.deal
        watched = "stub" in self.spots
        # Tracks count the stub only once no card has landed for a moment. A watched stub's picture
        # must lie still for a second (the chain), which it never does while the dealer's hand goes
        # between the deck and the piles; there the idle wait is not asked for, as a detector's
        # re-boxing of the piles keeps making "new" card tracks after the deal, for seconds.
        if d.last_card is None or (not watched and self._now - d.last_card < self.s.deal_idle_s):
            return
        n: int | None
        at: tuple[float, int] | None = None
        if watched:
            # its cards are counted edge by edge there, not by tracks, which cannot separate cards
            # fanned under one box; not countable (an arm over it, the cards squared) is no count
            n = None if self.stub_spread is None else self.stub_spread.n
            at = self.stub_still if n is not None else None  # dated when it came to lie still
        else:
            for o in visible.values():
                if o.kind == "card" and o.zone == "stub" and self._at_rest(o):
                    d.stub_seen[o.track] = self._now
            # a card missing from a frame or two (a detector's dropout) is still in the stub
            n = sum(1 for t in d.stub_seen.values() if self._now - t <= self.s.missing_s)
        d.stub.update(n, self._now)
        if n is None:
            return
        if d.done:
            # After the count, the first stub card going into a pile whose exposed card was taken off
            # is the replacement of rule 51, even where it slides in under other cards unseen.
            if (d.removed and d.stub_n is not None and not d.delivered and n < d.stub_n
                    and d.stub.held(self._now, self.s.stable_s)):
                pile = d.removed.pop(0)
                d.stub_n -= 1
                self._emit("exposed_card_replaced", pile=pile)
            return
        # the stub spread for counting: several cards resting side by side, for a while
        if n >= 2 and (at is not None or d.stub.held(self._now, self.s.stable_s)):
            d.stub_n = n
            self._complete_deal(stub=n, at=at)

    # ---- seats: collection, setting, opening -----------------------------------------------------

    def _seats(self, visible: dict[str, Seen]) -> None:
        d = self.deal
        for seat, st in sorted(d.seats.items()):
            if st.reported_set is None and not st.collected and not d.banker_exposed:
                if self._hand_here(seat, st, visible):
                    st.absent_since = None
                elif st.absent_since is None:
                    st.absent_since = self._now
                elif self._now - st.absent_since >= self.s.gone_s:
                    st.collected = True
                    self._emit("dead_hand_collected", seat=seat)
                    continue
            if st.collected or self._opened_by_index(seat, st):
                continue
            front: list[Seen] = []
            back: list[Seen] = []
            loose = hidden = 0
            for t in sorted(st.tracks):
                tr = self.tracks.get(t)
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
            st.set_rest.update(bool(front and back) and not loose, self._now)
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
            st.set_counts.update((key, loose), self._now)
            if not st.set_counts.held(self._now, self.s.stable_s) or loose:
                continue
            conf = min((o.confidence for o in (*front, *back)), default=1.0)
            all_up = all(c is not None for c in (*key[0], *key[1]))
            if not all_up and not self.s.count_face_down and (len(key[0]), len(key[1])) != (2, 5):
                self._uncounted_set(seat, st, front, back)
                continue
            if all_up and st.reported_set is not None and not st.opened:
                st.opened = True
                self._emit("hand_opened", conf, seat=seat, front=list(key[0]), back=list(key[1]))
            elif not st.opened and (st.reported_set is None
                                    or (len(key[0]), len(key[1])) != tuple(map(len, st.reported_set))):
                st.reported_set = key
                # Once the banker's hand is exposed the dealer sets the hands left, house way (rule 37);
                # vision cannot tell whose hand moved the cards, so it says what the rule says.
                self._emit("hand_set", conf, seat=seat, front=list(key[0]), back=list(key[1]),
                           house_way=d.banker_exposed)

    def _opened_by_index(self, seat: int, st: _Seat) -> bool:
        """A set hand lying turned up, fanned, read by its indices: both its areas still, no more cards
        than a hand holds, at most ``MAX_UNREAD`` of the seven not read at least to their rank (the
        rules judge the rest every way it could be, rule 50a). Cards not seen count as unread."""
        if st.opened or st.reported_set is None:
            return False
        front = self.hand_cards.get(f"seat{seat}.front")
        back = self.hand_cards.get(f"seat{seat}.back")
        if front is None or back is None or len(front) > 2 or len(back) > HAND_CARDS - 2:
            return False
        read = [c for c in (*front, *back) if c.card is not None or c.rank is not None]
        if len(read) < HAND_CARDS - MAX_UNREAD or not front or not back:
            return False
        pad_f, pad_b = [None] * (2 - len(front)), [None] * (HAND_CARDS - 2 - len(back))
        st.opened = True
        conf = min(c.confidence for c in (*front, *back))
        self._emit("hand_opened", conf, seat=seat,
                   front=[c.card for c in front] + pad_f, back=[c.card for c in back] + pad_b,
                   front_ranks=[c.rank for c in front] + pad_f, back_ranks=[c.rank for c in back] + pad_b,
                   front_colours=_inks(front, pad_f), back_colours=_inks(back, pad_b),
                   front_sure=_sure(front, pad_f), back_sure=_sure(back, pad_b))
        return True

    def _uncounted_set(self, seat: int, st: _Seat, front: list[Seen], back: list[Seen]) -> None:
        """A detector's face-down boxes that cannot be counted (a fan of backs is fewer boxes than
        cards): cards resting in both hands, none loose at the seat, for ``uncounted_s``, is a hand
        set all the same (the banker may not open before it, rules 35, 37); its count waits for the
        cards to be turned up."""
        if self.s.count_face_down or st.reported_set is not None or st.opened:
            return
        if not st.set_rest.value or not st.set_rest.held(self._now, self.s.uncounted_s):
            return
        st.reported_set = ((), ())
        conf = min(o.confidence for o in (*front, *back))
        self._emit("hand_set", conf, seat=seat, front=[], back=[], counted=False,
                   house_way=self.deal.banker_exposed)

    def _where_hand_lies(self, st: _Seat, o: Seen) -> bool:
        """``o`` rests where one of the seat's cards came to rest: the same hand, under a new track id
        (a detector that lost the pile for a second), not a second pile delivered there."""
        r2 = self.s.rebox_mm ** 2
        return any((tr := self.tracks.get(t)) is not None and tr.resting is not None
                   and (tr.x - o.x) ** 2 + (tr.y - o.y) ** 2 <= r2 for t in st.tracks)

    def _hand_here(self, seat: int, st: _Seat, visible: dict[str, Seen]) -> bool:
        """The seat's delivered hand is still at the table (on its way to the banker's place or being
        set counts; swept to the tray does not). Cards resting at the seat count too: a tracker may
        give a hand a new id after an arm hid it."""
        if any(t in visible and visible[t].zone not in GONE_ZONES for t in st.tracks):
            return True
        return any(o.kind == "card" and zone_number(o.zone) == seat and zone_kind(o.zone) in
                   ("seat", "front", "back") and self._at_rest(o) for o in visible.values())

    # ---- the banker's hand -----------------------------------------------------------------------

    def _banker(self, visible: dict[str, Seen]) -> None:
        d = self.deal
        shown = sum(1 for o in visible.values()
                    if o.kind == "card" and o.zone == "banker" and o.face_up and self._at_rest(o))
        if shown >= BANKER_SHOWN:
            d.banker_face_up = True
        self._banker_unread(visible)
        self._banker_set_by_index()
        up = [o for o in visible.values()
              if o.kind == "card" and o.zone == "banker" and o.face_up and o.card is not None
              and self._at_rest(o)]
        if not up:
            return
        if len(up) < max(shown, BANKER_SHOWN):
            # a face-up card there is not read (yet): the row's count and cards would both be short
            # (one card of seven read is no "hand of one card"); wait until every card is named. Fewer
            # than BANKER_SHOWN face up is no exposure at all (one back read as the joker is not a hand)
            return
        row = sorted(up, key=lambda o: o.x)
        cards = tuple(o.card for o in row if o.card is not None)
        d.banker_row.update(cards, self._now)
        if not d.banker_row.held(self._now, self.s.row_stable_s):
            return
        conf = min(o.confidence for o in row)
        if not d.banker_exposed or d.banker_unread:
            # all the banker's cards in view, or (a short hand) the row settled for longer
            pile = next((p for p, s in d.delivered.items() if s == self.banker_seat), None)
            full = d.counts[pile] if pile is not None else None
            if len(cards) != full and not d.banker_row.held(self._now, 1.0):
                return
            d.banker_exposed, d.banker_unread = True, False
            d.banker_count = len(cards)
            self._emit("banker_hand_exposed", conf, cards=sorted(cards))
            return
        if len(cards) != d.banker_count:
            return  # a card hidden (an arm) or still on its way: the setting is not all in view
        cut = self._row_cut([o.x for o in row])
        if cut is None:
            return
        left, right = cards[:cut], cards[cut:]
        front, back = (left, right) if len(left) < len(right) else (right, left)
        if (front, back) != d.banker_set:
            d.banker_set = (front, back)
            self._emit("banker_hand_set", conf, front=list(front), back=list(back))

    def _banker_seat_seen(self, visible: dict[str, Seen]) -> None:
        """Who banks, from vision alone (no console said it): the Player-Dealer's pile is delivered to
        their seat like any other (seed 000 rules 8, 9, 21), then the dealer takes it to the banker's
        place to set it (rules 11, 35). The one seat whose delivered hand, never set, left as cards
        came to rest there is the banker's: ``banker_changed`` (the procedure then judges what waited
        for it: the deliveries, whose turn the bank was)."""
        d = self.deal
        if self.banker_seat is not None or d.banker_seen or not d.delivered:
            return
        there = {o.track for o in visible.values()
                 if o.kind == "card" and o.zone == "banker" and self._at_rest(o)}
        if len(there) < BANKER_SHOWN:
            return
        if d.banker_cards_at is None:
            d.banker_cards_at = self._now
        # the cards there followed from a seat (the tracker kept them on the way), else the seat whose
        # hand went out of sight just before (a hand lost from view is missed for a moment first)
        recent = d.banker_cards_at - self.s.banker_move_s
        left = [seat for seat, st in d.seats.items() if st.reported_set is None and st.tracks & there] or [
            seat for seat, st in d.seats.items()
            if st.reported_set is None and st.absent_since is not None and st.absent_since >= recent]
        if not left and self._now - d.banker_cards_at < self.s.banker_move_s:
            return
        d.banker_seen = True  # once a round, right or not: a guess among several is no evidence
        if len(left) != 1:
            return
        self.banker_seat = left[0]
        self._emit("banker_changed", seat=left[0])

    def _row_cut(self, xs: list[float]) -> int | None:
        """Where the banker's row (positions in order) is split in two: after its widest gap, if that
        gap is at least ``split_gap_mm`` (else the hand is not set yet)."""
        gaps = [b - a for a, b in itertools.pairwise(xs)]
        if not gaps or max(gaps) < self.s.split_gap_mm:
            return None
        return gaps.index(max(gaps)) + 1

    def _banker_set_by_index(self) -> None:
        """The banker's hand set in two fans, read by its indices (both fans overlap their cards: no
        outline for the whole-card reader): the row of cards split at its widest gap, two and five,
        at most ``MAX_UNREAD`` of them not read at least to their rank (a group one card short of
        its count is padded with an unread card). Once per setting read. Before the exposure is
        reported (it waits for the players' sets, ``set_wait_s``) a setting read is kept once it held
        ``early_set_s``, dated when first read, and sent after the exposure's event."""
        d = self.deal
        if d.banker_exposed and d.banker_index_early:
            for at, fields in d.banker_index_early:
                self._emit("banker_hand_set", at=at, **fields)
            d.banker_index_early.clear()
        cards = self.hand_cards.get("banker")
        # a card's index cut twice may make one read too many: the groups are counted once it is dropped
        if not (d.banker_exposed or d.banker_up_at is not None) or not cards or len(cards) > HAND_CARDS + 1:
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
            d.banker_index_row.update(key, self._now, self._frame)
            if not d.banker_index_row.held(self._now, self.s.early_set_s):
                return
        if key == d.banker_index_set:
            return
        d.banker_index_set = key
        fields = {"confidence": min(c.confidence for c in (*front, *back)),
                  "front": [c.card for c in front] + pad_f, "back": [c.card for c in back] + pad_b,
                  "front_ranks": [c.rank for c in front] + pad_f,
                  "back_ranks": [c.rank for c in back] + pad_b, "front_colours": _inks(front, pad_f),
                  "back_colours": _inks(back, pad_b), "front_sure": _sure(front, pad_f),
                  "back_sure": _sure(back, pad_b)}
        if d.banker_exposed:
            self._emit("banker_hand_set", **fields)
        else:
            d.banker_index_early.append(((d.banker_index_row.since, d.banker_index_row.since_frame), fields))

    def _banker_unread(self, visible: dict[str, Seen]) -> None:
        """The banker's hand face up though not every card is named: exposed all the same (rule 11),
        and when that happened is what rules 35 and 37 judge. Once ``BANKER_SHOWN`` cards there have
        certainly been faces for ``banker_unread_s`` (an unseen deck's pale back can pass for a face,
        but not certainly), reported with the cards read so far, dated when they were first all
        faces; the event naming every card follows if they are read."""
        d = self.deal
        if d.banker_exposed or self.s.banker_unread_s is None:
            return
        up = [o for o in visible.values()
              if o.kind == "card" and o.zone == "banker" and self._certain_face(o)]
        if up:
            d.banker_up_last = self._now
        elif d.banker_up_at is not None and self._now - d.banker_up_last > self.s.gone_s:
            d.banker_up_at = None  # no face there for a while: it was not the hand turned up
        if len(up) >= BANKER_SHOWN and d.banker_up_at is None:
            # turned up, still being spread: when it was exposed, once its faces settle to say so
            # (a fan's boxes merge and part while it is spread: fewer for a while is the same hand)
            d.banker_up_at = (self._now, self._frame)
        faces = [o for o in up if self._at_rest(o) and self.tracks[o.track].certain_at is not None]
        if self._banker_read_exposed(visible):
            return
        if len(faces) < BANKER_SHOWN:
            # boxes of a fanned row come and go: the hand is face down again only after a while
            if d.banker_faces_lost is None:
                d.banker_faces_lost = self._now
            if self._now - d.banker_faces_lost > self.s.gone_s:
                d.banker_faces_since = None
            return
        d.banker_faces_lost = None
        if d.banker_faces_since is None:
            # the fourth of them to show: the hand was turned up by then
            d.banker_faces_since = sorted(self.tracks[o.track].certain_at or (self._now, self._frame)
                                          for o in faces)[BANKER_SHOWN - 1]
        if self._now - d.banker_faces_since[0] < self.s.banker_unread_s - 1e-9:
            return
        if (self._sets_under_way(visible)
                and self._now - d.banker_faces_since[0] < self.s.set_wait_s - 1e-9):
            return
        if all(o.card is not None for o in faces):
            return  # all named: the row's own event follows (it waits for the row to hold)
        d.banker_exposed = d.banker_unread = True
        named = sorted(o.card for o in faces if o.card is not None)
        at = min(d.banker_faces_since, d.banker_up_at or d.banker_faces_since)
        self._emit("banker_hand_exposed", min(o.confidence for o in faces), at=at,
                   cards=named, unread=len(faces) - len(named))

    def _banker_read_exposed(self, visible: dict[str, Seen]) -> bool:
        """The banker's place, once seen turned up, read by its indices with ``BANKER_SHOWN`` cards or
        more read (an index is on a face): exposed, dated when it was seen turned up. A fanned row's
        boxes come and go while it is spread, so four of them certain faces at rest at once can take
        seconds (live, data/e2e/paigow_banker_foul: the exposure 1.5 s late one run in three, and the
        foul setting laid meanwhile alerted only then); the still picture's read says it at once."""
        d = self.deal
        if d.banker_up_at is None:
            return False
        cards = self.hand_cards.get("banker") or []
        read = [c for c in cards if c.card is not None or c.rank is not None]
        if len(read) < BANKER_SHOWN:
            return False
        if self._sets_under_way(visible) and self._now - d.banker_up_at[0] < self.s.set_wait_s - 1e-9:
            return True  # a player's hand is being set: the exposure waits for it (rules 35, 37)
        named = sorted(c.card for c in read if c.card is not None)
        d.banker_exposed = d.banker_unread = True
        self._emit("banker_hand_exposed", min(c.confidence for c in read), at=d.banker_up_at,
                   cards=named, unread=len(cards) - len(named))
        return True

    def _sets_under_way(self, visible: dict[str, Seen]) -> bool:
        """A player's hand not yet reported set has cards resting in its front or back area: it is
        being set, or set and not yet seen whole (a card of it not found for a while). The banker's
        hand turned up now would be judged early against it, so its report waits (``set_wait_s``)."""
        waiting = {seat for seat, st in self.deal.seats.items()
                   if seat != self.banker_seat and st.reported_set is None and not st.collected}
        if not waiting:
            return False
        # cards lost from sight for a moment (an arm, a detector's dropout) still lie there
        recent = self._now - self.s.gone_s
        return any(tr.resting is not None and tr.seen_at >= recent and tr.last is not None
                   and tr.last.kind == "card" and zone_number(tr.resting) in waiting
                   and zone_kind(tr.resting) in ("front", "back") for tr in self.tracks.values())

    # ---- what the bets watcher reads of the hands -------------------------------------------------

    @property
    def banker_exposed(self) -> bool:
        return self.deal.banker_exposed

    @property
    def banker_face_up(self) -> bool:
        return self.deal.banker_face_up

    @property
    def piles_delivered(self) -> bool:
        return bool(self.deal.delivered)

    @property
    def rereads(self) -> int:
        """Bet readings that changed with nothing touching the spot (not reported)."""
        return self.bets.rereads


def _along(cards: list[Seen]) -> list[Seen]:
    """Cards of a hand in a fixed order (left to right, then top to bottom), so a re-read compares equal."""
    return sorted(cards, key=lambda o: (round(o.x / 10), o.y))


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


def _sure(part: list[IndexCard], pad: list[None]) -> list[bool] | None:
    """Which of a hand part's ranks (of cards not named) were read surely enough to count for rule 60
    (padded like the part), or None if none was."""
    sure = [c.card is None and c.rank is not None and c.sure for c in part] + [False] * len(pad)
    return sure if any(sure) else None


def _inks(part: list[IndexCard], pad: list[None]) -> list[str | None] | None:
    """A hand part's inks read of cards not named (padded like the part), or None if none was."""
    inks: list[str | None] = [c.colour if c.card is None else None for c in part]
    inks += pad
    return inks if any(inks) else None
