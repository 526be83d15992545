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

Each concern is a watcher of its own (:mod:`monitor.pipeline.watchers`); :class:`EventExtractor` builds
them and runs them each frame in a fixed order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from monitor.events.schema import EventBase
from monitor.perception.spot_watch import SpotView
from monitor.perception.stub_spread import Spread
from monitor.pipeline.observe import Seen, SpotChips
from monitor.pipeline.watchers.banker import BankerWatcher
from monitor.pipeline.watchers.bets import BetsWatcher
from monitor.pipeline.watchers.deal import DealWatcher
from monitor.pipeline.watchers.deliveries import DeliveriesWatcher
from monitor.pipeline.watchers.dice import DiceWatcher
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.exposures import ExposuresWatcher
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.round import RoundWatcher
from monitor.pipeline.watchers.round_record import RoundRecord
from monitor.pipeline.watchers.seats import SeatsWatcher
from monitor.pipeline.watchers.view import FrameView, TableLayout
from monitor.tablestate.index_cards import IndexCard


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
    # ... or this close to the slot's outline, where the layout gives it: the hand's box centre lies
    # off the card it holds by its near edge, the more so the farther the slot is to the dealer's side
    # (30-73 mm from the centre on the default table; 34-82 mm on the 6-ft table, whose far slots'
    # hands lie 12 mm off the slot, past hand_reach_mm from its centre: those cards went uncounted)
    slot_reach_mm: float = 25.0
    clear_s: float = 1.0  # table empty this long: the round is over (no console)
    # No card dealt this long and the stub lying squared: it is said not countable (stub_not_countable)
    # before any pile is delivered. The renderer's dealer spreads it 1.6 s after the last card.
    stub_wait_s: float = 4.0
    split_gap_mm: float = 80.0  # a gap this wide in the banker's row: the hand is set in two
    # A player's hand opened where it is not set (laid face up on its betting circle, or elsewhere in the
    # seat's area): its two groups lie at least this far apart along the cards' line. The rendered
    # habit fans each group at 16 mm a card with 45 mm between them; cards of one fan overlap closer.
    circle_gap_mm: float = 30.0
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


class EventExtractor:
    """One table's vision events from tracked objects; see the module doc. A thin composer: it builds
    the watchers (``monitor/pipeline/watchers/``) and runs them each frame in the order the rules need."""

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
        self.s = s = settings or ExtractorSettings()
        self.layout = layout or TableLayout()
        self.out = out = Outbox(table_id, next_seq, wall_time)
        self.rest = rest = RestWatcher(s)
        self.deal = RoundRecord()  # the round's facts the watchers below share
        self.exposures = ExposuresWatcher(s, rest, out, self.deal)
        self.dealing = DealWatcher(s, rest, out, self.deal, self.layout, self.exposures)
        self.seats = SeatsWatcher(s, rest, out, self.deal)
        self.deliveries = DeliveriesWatcher(s, rest, out, self.deal, self.layout, self.dealing,
                                            self.exposures, self.seats)
        self.banker = BankerWatcher(s, rest, out, self.deal)
        self.bets = BetsWatcher(s, rest, out, self)
        self.dice = DiceWatcher(s, rest, out)
        self.round = RoundWatcher(s, rest, out, self._opened_by_vision)
        out.before = self.dealing.before  # what closes or follows the deal comes after its cards

    # ---- input -----------------------------------------------------------------------------------

    def note(self, event: EventBase) -> list[EventBase]:
        """An event from elsewhere (console, dice reader): it moves the phase the way the rules do.
        Returns what it confirms that goes before it: a roll from the dice reader with no round open and
        no console opens the round (its ``round_started``, dated at the roll). Call it before the event
        takes its sequence number, so the returned events' numbers come first."""
        t = getattr(event, "type", "")
        first: list[EventBase] = []
        if t == "dice_rolled" and not self.round_open:
            rolled = float(getattr(event, "media_time", self.out.now))
            frame = getattr(event, "frame", None)
            first = self.round.open_for("dice", at=(rolled, self.out.frame if frame is None else int(frame)))
        if t == "round_started":
            self._new_round()
            self.round.opened()
            self.banker.banks(getattr(event, "banker_seat", None) or self.s.banker_seat)
        elif t == "round_ended":
            self.round.closed()
        elif t == "misdeal_declared":
            self._void()
            self.bets.misdeal()
            self.dice.reset()
        elif t in ("bets_closed", "dice_rolled"):
            # the dice exposed close the bets too (seed 000 rule 36)
            at = getattr(event, "media_time", None)
            self.bets.close(self.out.now if at is None else float(at))
        elif t == "action_pile_chosen":
            self.deal.action_pile = getattr(event, "pile", None)
        return first

    def told(self, event: EventBase, next_seq: Callable[[], int]) -> list[EventBase]:
        """An outside event taken in (:meth:`note`), ready to send: what it confirms first, then the
        event itself numbered ``next_seq()`` after them (the monitor orders by sequence number)."""
        first = self.note(event)
        return [*first, event.model_copy(update={"seq": next_seq()})]

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
        self.bets.look(view)
        self.exposures.look(view)
        self.out.at(view.index, view.media_time)
        view = self.dealing.landed(self.rest.frame(view))
        # carrying missed objects only matters where something reads the table
        view = self.rest.with_present(view, carry=self.round_open or self.s.round_from_vision)
        out = self.round.frame(view)
        if self.round_open:
            out += self.dealing.frame(view)  # the dealer's trips: cards counted, sent in order
            out += self.deliveries.frame(view)  # cards come to rest: on a pile (dealt), at a seat
            out += self.dealing.stub_spread(view)  # the deal's end
            out += self.exposures.frame(view)
            out += self.deliveries.slots(view)  # slots emptied: arrivals waiting for theirs judged
            out += self.seats.frame(view)
            out += self.banker.frame(view)
            out += self.bets.frame(view)
            out += self.dice.frame(view)
        return out

    def zones_to_read(self) -> set[str]:
        """Where cards are wanted read by their indices (the chain reads only these): pile slots where
        a face lies unread, the hand areas of seats whose hand is set and not yet seen opened, the
        banker's place once the banker's hand is exposed. Reading every still hand area cost the
        review a tenth of its speed (`bench review`)."""
        return (self.exposures.zones_to_read() | self.dealing.zones_to_read() | self.seats.zones_to_read()
                | self.banker.zones_to_read())

    # ---- rounds ----------------------------------------------------------------------------------

    def _void(self) -> None:
        """Forget the round's hands (a misdeal, or a new round)."""
        self.deal.renew()
        for w in (self.exposures, self.dealing, self.seats, self.deliveries, self.banker):
            w.reset()

    def _new_round(self) -> None:
        self.dealing.flush()  # the last round's cards are not lost with it
        self._void()
        self.bets.reset()
        self.dice.reset()

    def _opened_by_vision(self) -> None:
        self._new_round()
        self.banker.banks(self.s.banker_seat)  # the bank moves (rule 3): told, or seen anew

    @property
    def round_open(self) -> bool:
        return self.round.open

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
