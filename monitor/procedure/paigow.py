"""The Pai Gow round as a state machine over events (Livermore; Napa's variations in Napa).

One :class:`PaiGowRound` follows one hand from ``round_started`` to ``round_ended``:
bets and no more bets, the 7x7 deal card by card, the stub, exposed cards and their
replacement, the action pile and the dice, the deliveries, the settings, the banker's hand,
the openings and the payouts. Each handler checks the rules that event can break and raises
the alert at once; nothing here does I/O, and the same events always give the same alerts.

Alert keys (what makes two alerts distinct) include the deal number, so a redeal after a
misdeal is judged afresh without merging with the first deal's alerts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, cast

from monitor.events.schema import (
    ActionPileChosen,
    BankerHandExposed,
    BankerHandSet,
    BetChanged,
    BetPlaced,
    CardDealt,
    CardExposed,
    DeadHandCollected,
    DiceRolled,
    Event,
    EventBase,
    ExposedCardReplaced,
    Game,
    HandOpened,
    HandSet,
    HouseWayRequested,
    MisdealDeclared,
    Payout,
    PileDelivered,
    PilesComplete,
    Source,
    StubCounted,
    StubNotCountable,
)
from monitor.procedure.alerting import AlertSink, money
from monitor.procedure.history import PaiGowHistory
from monitor.procedure.paigow_history import build_history
from monitor.procedure.paigow_rules import PaiGowRules, card, cards, count_foul, outcome
from monitor.rules.paigow.over_count import Key, ReadCard, hand_tally, merged, over_counts
from monitor.rules.paigow.setting import Foul, Setting
from monitor.rules.paigow.settlement import BankerWager, Bet, Settlement, settle
from monitor.rules.paigow.showdown import Outcome, SpotResult, decide_spot

PILE_SIZE = 7
STUB_SIZE = 4
# stub_not_countable's reasons as the hand history and the dashboard say them
STUB_WHY = {"squared": "squared", "unreadable": "unreadable", "not_seen": "not seen"}
# Homes that are not a hand: a card seen there and later in a hand is not a duplicate.
LOOSE_ZONES = frozenset({"deck", "stub", "muck", "tray", "board"})
BankerKey = tuple[int, str | None]


def serpentine_pile(n: int, piles: int = PILE_SIZE) -> int:
    """The pile card ``n`` (1-based) of the deal goes to: left to right, then right to left (rule 6).

    >>> [serpentine_pile(n) for n in (1, 7, 8, 14, 15)]
    [1, 7, 7, 1, 1]
    """
    row, pos = divmod(n - 1, piles)
    return pos + 1 if row % 2 == 0 else piles - pos


DEAL_SIZE = PILE_SIZE * PILE_SIZE
SERPENTINE = (0, *(serpentine_pile(n) for n in range(1, DEAL_SIZE + 1)))
PILE_HOMES = ("", *(f"pile {p}" for p in range(1, PILE_SIZE + 1)))  # where a dealt card lives, by pile


def bf_all(setting: tuple[list[str], list[str]]) -> list[str]:
    return [*setting[0], *setting[1]]


@cache
def _legal_spot(seat: int, result: Outcome) -> SpotResult:
    """The result of a legal setting (immutable, so one per seat and outcome is shared by every round)."""
    return SpotResult(seat, result, result)


def _wager_order(item: tuple[BankerKey, int]) -> tuple[int, str]:
    return item[0][0], item[0][1] or ""


def _who(bettor: str | None) -> str:
    return "" if bettor is None else f" (backline {bettor})"


def _party(seat: int, bettor: str | None) -> str:
    return f"seat{seat}" if bettor is None else bettor


# An exposed face vision could not read may be the ace or the joker (a misdeal): the floor is told to look.
UNREAD_FACE = "an unread card (look at it: an ace or the joker is a misdeal, rule 48a)"


@dataclass(slots=True)
class SeatState:
    seat: int
    pile: int | None = None
    collected: bool = False
    front: list[str | None] | None = None
    back: list[str | None] | None = None
    house_way: bool = False
    house_way_requested: bool = False
    set_event: HandSet | None = None
    opened: bool = False
    foul: Foul | None = None
    judged: bool = False
    scores: tuple[int, int] | None = None  # (front, back) of a legal setting
    # as opened, read in part: each card's text, else its rank alone, else None (rule 50a judged on it)
    partial: tuple[list[str | None], list[str | None]] | None = None
    back_colours: Sequence[str | None] | None = None  # the inks of its five-card hand's unnamed cards, read

    def known(self) -> tuple[list[str], list[str]] | None:
        front, back = self.front, self.back
        if front is None or back is None or None in front or None in back:
            return None
        return front, back  # type: ignore[return-value]  # no None left; callers only read them


@dataclass(slots=True)
class Exposure:
    card: str | None
    zone: str
    event: EventBase
    replaced: bool = False
    shown: str | None = None  # how alerts name it: the card, its rank alone, or None (unread)


@dataclass(slots=True)
class DealState:
    """Everything that a misdeal voids."""

    number: int
    counts: list[int] = field(default_factory=lambda: [0] * (PILE_SIZE + 1))
    pile_cards: dict[int, list[str | None]] = field(default_factory=dict)
    dealt: int = 0
    order_alerted: bool = False
    judged: bool = False
    # a misdeal found (Livermore rule 48: an ace or the joker, or two cards, exposed): the deal is dealt
    # again, so its order and pile counts are no longer judged (a dealer gathering the piles after
    # the exposure is no card dealt out of order)
    void: bool = False
    exposures: list[Exposure] = field(default_factory=list)
    stub: int | None = None
    piles_seen: bool = False  # piles_complete came: the deal was seen over
    stub_noted: bool = False  # the deal closed with its stub uncounted, and the round's note says so
    deliveries_noted: bool = False  # its piles delivered unjudged, and the round's note says so
    stub_why: str | None = None  # why vision could not count the stub ("squared", "not seen", ...)
    # Where each card was last seen ('pile 3', 'seat 5', 'stub', 'out of pile 2') and the event that saw it
    # there: two dicts rather than one of (where, event) pairs, which would be a new object per card.
    homes: dict[str, str] = field(default_factory=dict)
    home_events: dict[str, EventBase] = field(default_factory=dict)
    action_pile: int | None = None
    action_event: EventBase | None = None
    dice: list[int] | None = None
    dice_event: DiceRolled | None = None
    deliveries: dict[int, tuple[int, PileDelivered]] = field(default_factory=dict)
    delivery_judged: set[int] = field(default_factory=set)
    seats: dict[int, SeatState] = field(default_factory=dict)
    banker_cards: list[str] | None = None
    banker_exposed: BankerHandExposed | None = None
    early_unset: set[int] = field(default_factory=set)
    banker_setting: tuple[list[str], list[str]] | None = None
    # the banker's setting last seen with cards not all named (its named cards are where they lie)
    banker_partial: tuple[list[str | None], list[str | None]] | None = None
    banker_set_event: BankerHandSet | None = None
    banker_foul: Foul | None = None
    first_opened: HandOpened | None = None
    settings_frozen: tuple[list[str], list[str]] | None = None
    dead_checked: bool = False
    delivery_key: tuple[int, tuple[int, ...], int] | None = None
    expected_seats: dict[int, int] = field(default_factory=dict)
    # An event of the deal was lost or unreadable: card-by-card counts are not judged (piles_complete is).
    gap: bool = False
    # each hand's cards turned up, counted by rank and ink (home -> tally), the event that last showed
    # each, and the ranks and inks already alerted as duplicates by name and by count: rule 60
    # without the suits, one alert for one duplicate
    tallies: dict[str, Counter[Key]] = field(default_factory=dict)
    tally_events: dict[str, EventBase] = field(default_factory=dict)
    duplicated_by_name: set[Key] = field(default_factory=set)
    duplicated_by_count: set[Key] = field(default_factory=set)


class PaiGowRound:
    """One Pai Gow round; feed events in sequence order with :meth:`on_event`, then :meth:`close`."""

    def __init__(
        self,
        table_id: str,
        round_id: str,
        start: EventBase,
        banker_seat: int | None,
        rules: PaiGowRules,
        sink: AlertSink,
    ) -> None:
        self.table_id = table_id
        self.round_id = round_id
        self.rules = rules
        self.profile = rules.profile
        self.sink = sink
        self.banker_seat = banker_seat
        # opened by vision, which names the banker only when its hand goes to the banker's place: the
        # bets' limits wait for it (the bank is no capped wager, rule 20)
        self.banker_unknown = banker_seat is None and start.source is Source.VISION
        self._limits_pending: list[tuple[BetPlaced | BetChanged, int]] = []
        self.start = start
        self.last_media = start.media_time
        self.alert_ids: list[str] = []
        self.alert_codes: list[str] = []
        self.misdeals: list[str] = []
        self.wagers: dict[BankerKey, int] = {}
        self.closed_event: EventBase | None = None
        self.payouts: dict[BankerKey, tuple[int, Payout]] = {}
        self.payout_judged: set[BankerKey] = set()
        self.settled: Settlement | None = None
        self.settlement_note: str | None = None
        self.results: dict[int, SpotResult] = {}
        self.expected: dict[tuple[int | None, str], int] = {}
        self.deal_note: str | None = None
        self.stub_not_counted: str | None = None  # why the last deal noted so gave no stub count
        self.bets_unseen_noted = False
        self._wager_seats: set[int] | None = None  # cache of seats with a wager; reset when a bet moves
        self._action: tuple[tuple[tuple[int, ...], int], int] | None = None  # (dice, banker) -> action seat
        self.deal = DealState(1)

    # ---- plumbing ------------------------------------------------------------------------------

    # event type -> handler, filled in below the class: one table for every round (bound methods made
    # per round would be ~20 more objects for the garbage collector to follow, each hand).
    handlers: ClassVar[dict[str, Callable[[Any, Any], None]]] = {}

    def handles(self, etype: str) -> bool:
        return etype in self.handlers

    def on_event(self, event: Event) -> None:
        self.last_media = event.media_time
        self.handlers[event.type](self, event)

    def _alert(
        self, code: str, key: str, evidence: Sequence[EventBase], details: dict[str, Any] | None = None,
        **facts: Any,
    ) -> None:
        a = self.sink.raise_alert(code, key, evidence, game=Game.PAIGOW, round_id=self.round_id, facts=facts,
                                  details=details)
        if a is not None:
            self.alert_ids.append(a.id)
            self.alert_codes.append(a.code)

    def _dk(self, key: object = "") -> str:
        """Alert key within the current deal."""
        return f"d{self.deal.number}:{key}"

    def _ignore(self, event: Event) -> None:
        return None

    def _stub_unjudged(self) -> None:
        """The deal closes (its piles delivered, a misdeal, the round's end) with cards dealt and no
        stub count: rule 55 was not judged, and the hand history says so instead of nothing (a squared
        stub cannot be counted from above, an arm may cover it). Not for a deal voided by rule 48:
        its stub is dealt again."""
        d = self.deal
        if d.stub is None and (d.dealt or d.piles_seen or d.stub_why) and not d.void and not d.stub_noted:
            d.stub_noted = True
            why = d.stub_why or "squared, covered or out of view"
            self.stub_not_counted = d.stub_why or "no count reported"
            note = f"deal {d.number}: stub not counted: {why}: rule 55 not judged"
            self._add_note(note)

    def _add_note(self, note: str) -> None:
        """A judgement the hand history must name as not made (joined to the notes before it)."""
        self.deal_note = note if self.deal_note is None else f"{self.deal_note}; {note}"

    def _deliveries_unjudged(self) -> None:
        """The deal ends with piles delivered that were never judged (rules 8, 9): the banker's seat, the
        dice or the action pile was never known. The hand history says which instead of nothing."""
        d = self.deal
        if not d.deliveries or d.delivery_judged or d.void or d.deliveries_noted:
            return
        d.deliveries_noted = True
        known = (("the banker's seat", self.banker_seat), ("the dice", d.dice),
                 ("the action pile", d.action_pile))
        unknown = " and ".join(what for what, v in known if v is None)
        why = f": {unknown} not known" if unknown else ""
        self._add_note(f"deal {d.number}: deliveries not judged{why}")

    def _bets_unseen(self) -> bool:
        """No wager seen in a round that was dealt: a round is dealt only to wagers, so the camera did not
        find the chips (a felt it cannot tell them on). Which hands are dead cannot be told then: the
        hand history says so (rule 9 not judged) instead of calling every hand dead."""
        if self.wager_seats():
            return False
        if not self.bets_unseen_noted:
            self.bets_unseen_noted = True
            note = "no bet seen: dead hands not judged (rule 9)"
            self._add_note(note)
        return True

    def data_gap(self) -> None:
        if not self.deal.deliveries and not self.deal.judged:
            self.deal.gap = True
            self.deal_note = "an event of the deal was missing or unreadable: cards not counted one by one"

    def _seat(self, seat: int) -> SeatState:
        s = self.deal.seats.get(seat)
        if s is None:
            s = self.deal.seats[seat] = SeatState(seat)
        return s

    def wager_seats(self) -> set[int]:
        """Seats with a wager in action (cached; reset when a bet moves). Read only."""
        seats = self._wager_seats
        if seats is None:
            seats = self._wager_seats = {s for (s, _), amount in self.wagers.items() if amount > 0}
        return seats

    def has_wager(self, seat: int) -> bool:
        return seat in self.wager_seats()

    # ---- money before the dice -----------------------------------------------------------------

    def _bets_closed(self, event: Event) -> None:
        if self.closed_event is None:
            self.closed_event = event

    def _check_limits(self, event: BetPlaced | BetChanged, amount: int) -> None:
        if event.seat == self.banker_seat or amount == 0:
            return  # the Player-Dealer's wager is not capped (rule 20)
        if self.banker_unknown:
            self._limits_pending.append((event, amount))
            return
        who = _who(event.bettor)
        if amount > self.profile.table_max:
            self._alert("bet_over_max", f"{event.seat}:{event.bettor}:{amount}", [event],
                        seat=event.seat, who=who, amount=money(amount), limit=money(self.profile.table_max),
                        excess=money(amount - self.profile.table_max))
        elif amount < self.profile.table_min and not event.at_least:
            # a lower bound under the minimum says nothing: the stack may be taller than it looks
            self._alert("bet_under_min", f"{event.seat}:{event.bettor}:{amount}", [event],
                        seat=event.seat, who=who, amount=money(amount), limit=money(self.profile.table_min))

    def _changed_after_close(self, event: BetPlaced | BetChanged, before: int, after: int) -> None:
        assert self.closed_event is not None
        self._alert("bet_changed_after_close", f"{event.seat}:{event.bettor}:{before}->{after}",
                    [self.closed_event, event], details={"before": before, "after": after},
                    seat=event.seat, who=_who(event.bettor), before=money(before), after=money(after))

    def _open_for(self, event: BetPlaced | BetChanged) -> bool:
        """Bets were still open when this bet was seen. A camera confirms a bet only after its chips
        have rested a moment, so a bet laid just before "no more bets" can arrive after it; its media
        time (when the chips came to rest) says which came first (rule 32 judges changes after it)."""
        return self.closed_event is None or event.media_time < self.closed_event.media_time

    def _bet_placed(self, event: BetPlaced) -> None:
        key = (event.seat, event.bettor)
        if self._open_for(event):
            self.wagers[key] = event.amount
            self._wager_seats = None
            self._check_limits(event, event.amount)
            return
        before = self.wagers.get(key, 0)
        if event.amount != before:
            self._changed_after_close(event, before, event.amount)

    def _bet_changed(self, event: BetChanged) -> None:
        key = (event.seat, event.bettor)
        if self._open_for(event):
            self.wagers[key] = event.after
            self._wager_seats = None
            self._check_limits(event, event.after)
            return
        if event.after != event.before:
            self._changed_after_close(event, event.before, event.after)

    # ---- the deal ------------------------------------------------------------------------------

    def _misdeal(self, event: MisdealDeclared) -> None:
        self._stub_unjudged()
        self._deliveries_unjudged()
        self.misdeals.append(event.reason or f"misdeal declared at seq {event.seq}")
        self.deal = DealState(self.deal.number + 1)
        self.settled = None
        self.settlement_note = None
        self.payouts.clear()
        self.payout_judged.clear()

    def _home_of_seat(self, seat: int) -> str:
        s = self.deal.seats.get(seat)
        if s is not None and s.pile is not None:
            return f"pile {s.pile}"
        return f"seat {seat}"

    def _see(self, text: str | None, home: str, event: EventBase) -> None:
        """Record where a card is; the same card in two hands is a duplicate (rule 60)."""
        if text is None:
            return
        d = self.deal
        homes = d.homes
        where = homes.get(text)
        if where is None or where in LOOSE_ZONES or home in LOOSE_ZONES:
            homes[text] = home
            d.home_events[text] = event
            return
        if where == home:
            return
        first = d.home_events[text]
        if where == f"out of {home}":
            self._alert("exposed_card_not_replaced", self._dk(text), [first, event], card=text,
                        when="hand was played (it is still in the hand)")
            return
        if where.startswith("out of "):
            homes[text] = home
            d.home_events[text] = event
            return
        key = ReadCard(card=text).key()
        if key is not None and key in d.duplicated_by_count:
            return  # already alerted by count (a third card of its rank and ink)
        if key is not None:
            d.duplicated_by_name.add(key)
        self._alert("duplicate_card", self._dk(text), [first, event], card=text, first=where, second=home)

    def _tally(self, home: str, event: EventBase, front: Sequence[str | None] | None,
               back: Sequence[str | None] | None, read: HandOpened | BankerHandSet | None = None) -> None:
        """Rule 60 by count: a hand's cards turned up (``front``/``back``: names or None; ``read``: the
        event giving the unnamed cards' ranks and inks), counted by rank and ink; more of one rank and
        ink over the deal's hands than a deck holds (a third red king) is a duplicate, whatever the
        suits (rules/paigow/over_count.py). Called after the names are placed: two cards named alike
        are alerted by name."""
        d = self.deal
        parts = []
        for i_part, cards_ in enumerate((front or [], back or [])):
            ranks = None if read is None else (read.front_ranks, read.back_ranks)[i_part]
            inks = None if read is None else (read.front_colours, read.back_colours)[i_part]
            sure = None if read is None else (read.front_sure, read.back_sure)[i_part]
            # an unnamed card counts only where its rank was read surely (and its ink read)
            parts.append([ReadCard(c, ranks[i] if ranks and sure and sure[i] and c is None else None,
                                   inks[i] if inks and c is None else None) for i, c in enumerate(cards_)])
        d.tallies[home] = merged(d.tallies.get(home), hand_tally(parts))
        for over in over_counts(d.tallies):
            key = (over.rank, over.ink)
            if key in d.duplicated_by_name or key in d.duplicated_by_count:
                continue
            d.duplicated_by_count.add(key)
            evidence = [e for h in over.homes if (e := d.tally_events.get(h)) is not None and e is not event]
            others = [h for h in over.homes if h != home] or [home]
            self._alert("duplicate_card", self._dk(f"{over.rank}{over.ink}"), [*evidence, event],
                        card=over.text, first=", ".join(others), second=home,
                        details={"by": "count", "rank": over.rank, "ink": over.ink, "count": over.count,
                                 "hands": list(over.homes)})
        d.tally_events[home] = event

    def _card_dealt(self, event: CardDealt) -> None:
        # 49 of a round's ~90 events: kept to plain dict and list operations, no per-card text built.
        d = self.deal
        pile = event.pile
        n = d.dealt = d.dealt + 1
        d.counts[pile] += 1
        text = event.card
        held = d.pile_cards.get(pile)
        if held is None:
            d.pile_cards[pile] = [text]
        else:
            held.append(text)
        if n <= DEAL_SIZE and pile != SERPENTINE[n] and not d.order_alerted and not d.gap and not d.void:
            d.order_alerted = True
            self._alert("deal_order", self._dk(), [event], n=n, pile=pile, expected=SERPENTINE[n])
        if event.face_up:
            self._exposed(text, f"pile:{pile}", event, event.rank)
        if text is not None:
            homes = d.homes
            if text in homes:
                self._see(text, PILE_HOMES[pile], event)
            else:  # first sight of this card: what _see does for it, inlined
                homes[text] = PILE_HOMES[pile]
                d.home_events[text] = event

    def _card_exposed(self, event: CardExposed) -> None:
        self._exposed(event.card, event.zone, event, event.rank)
        zone = event.zone
        home = f"pile {zone[5:]}" if zone.startswith("pile:") else zone.replace(":", " ")
        if zone.startswith("seat:"):
            home = self._home_of_seat(int(zone[5:]))
        self._see(event.card, home, event)

    def _exposed(self, text: str | None, zone: str, event: EventBase, rank: str | None = None) -> None:
        """``rank``: an unread card's rank when vision read that much (the ace of rule 48a is a rank)."""
        d = self.deal
        if d.deliveries:
            return  # after the deal, an exposed card is no longer a deal fault (rules 48, 51 are the deal)
        shown = text if text is not None else (f"a card of rank {rank} (suit unread)" if rank else None)
        where = zone.replace(":", " ")
        ace_or_joker = (card(text).is_ace or card(text).is_joker) if text is not None else rank == "A"
        unread = next((e for e in d.exposures if e.zone == zone and e.shown is None and not e.replaced), None)
        if unread is not None and shown is not None:
            # the card reported unread on this pile, read now (vision reports an unread face at once
            # and its read when it comes): the same exposure, known; its rank may make it a misdeal
            unread.card, unread.shown = text, shown
            if ace_or_joker:
                d.void = True
                self._alert("ace_or_joker_exposed", self._dk(text or zone), [unread.event, event],
                            card=text or "an ace (suit unread)", zone=where)
            return
        d.exposures.append(Exposure(text, zone, event, shown=shown))
        if ace_or_joker:
            d.void = True
            self._alert("ace_or_joker_exposed", self._dk(text or zone), [event],
                        card=text or "an ace (suit unread)", zone=where)
        if len(d.exposures) >= 2:
            d.void = True
            cards = ", ".join(e.shown or "unread card" for e in d.exposures)
            self._alert("two_or_more_exposed", self._dk(), [e.event for e in d.exposures],
                        count=len(d.exposures), cards=cards)
        elif not ace_or_joker:
            self._alert("one_card_exposed", self._dk(text or zone), [event], card=shown or UNREAD_FACE,
                        zone=where)

    def _replaced(self, event: ExposedCardReplaced) -> None:
        """Rule 51: the first stub card takes the exposed card's place in its pile."""
        d = self.deal
        open_ = [e for e in d.exposures if not e.replaced]
        target = next((e for e in open_ if e.zone == f"pile:{event.pile}"), None)
        if target is None:
            target = next((e for e in open_ if not e.zone.startswith("pile:")), None)
        pile_cards = d.pile_cards.setdefault(event.pile, [])
        if target is not None:
            target.replaced = True
            if target.card is not None:
                d.homes[target.card] = f"out of pile {event.pile}"
                d.home_events[target.card] = event
                if target.card in pile_cards:
                    pile_cards[pile_cards.index(target.card)] = event.card
        self._see(event.card, f"pile {event.pile}", event)

    def _judge_deal(self, trigger: EventBase) -> None:
        """Pile counts from the card-by-card deal (rule 55, 6): once, when the deal is over."""
        d = self.deal
        if d.judged or d.dealt == 0 or d.gap or d.void:
            return
        d.judged = True
        for pile in range(1, PILE_SIZE + 1):
            if d.counts[pile] != PILE_SIZE:
                self._alert("pile_not_seven", self._dk(pile), [trigger], pile=pile, count=d.counts[pile],
                            details={"counted": "card by card"})

    def _piles_complete(self, event: PilesComplete) -> None:
        self.deal.piles_seen = True
        for pile, count in enumerate(event.counts, start=1):
            if count != PILE_SIZE:
                self._alert("pile_not_seven", self._dk(pile), [event], pile=pile, count=count)
        if len(event.counts) < PILE_SIZE:
            for pile in range(len(event.counts) + 1, PILE_SIZE + 1):
                self._alert("pile_not_seven", self._dk(pile), [event], pile=pile, count=0)
        self._judge_deal(event)

    def _stub_not_countable(self, event: StubNotCountable) -> None:
        """The camera says why it gave no stub count: the deal's note says so when it closes, and no
        alert is raised (the deal's own count of 49 cards says nothing of a deck a card short or over,
        so rule 55 is not judged from it). A count that follows supersedes it."""
        if self.deal.stub is not None:
            return  # counted already (an operator's count): that count is the judgement
        why = STUB_WHY[event.reason]
        if event.reason == "unreadable" and event.detail:
            why = f"{why} ({event.detail})"
        self.deal.stub_why = why

    def _stub_counted(self, event: StubCounted) -> None:
        self.deal.stub = event.n
        self.deal.stub_why = None  # squared a while, then spread and counted
        if event.n != STUB_SIZE:
            self._alert("stub_not_four", self._dk(), [event], n=event.n)
        self._judge_deal(event)

    # ---- action --------------------------------------------------------------------------------

    def _action_pile(self, event: ActionPileChosen) -> None:
        self._judge_deal(event)
        self.deal.action_pile = event.pile
        self.deal.action_event = event
        self._judge_deliveries()

    def _dice(self, event: DiceRolled) -> None:
        d = self.deal
        self._judge_deal(event)
        if self.closed_event is None:
            self.closed_event = event  # the dice are exposed: bets are closed (rule 36)
        problem = self.rules.dice_problem(event.values)
        if problem is not None:
            self._alert("dice_out_of_range", self._dk(event.values), [event], values=event.values,
                        why=problem)
            return
        if d.dice is None or d.dice_event is None:
            d.dice = list(event.values)
            d.dice_event = event
            self._judge_deliveries()
        elif sorted(event.values) != sorted(d.dice):
            self._alert("dice_disagree", self._dk(), [d.dice_event, event],
                        first=f"{d.dice} ({d.dice_event.source.value})", second_source=event.source.value,
                        second=event.values)

    def _delivered(self, event: PileDelivered) -> None:
        d = self.deal
        if not d.deliveries:
            self._judge_deal(event)
            self._stub_unjudged()
            for e in d.exposures:
                ace = e.card is not None and (card(e.card).is_ace or card(e.card).is_joker)
                if not e.replaced and len(d.exposures) == 1 and not ace:
                    # a replacement slid in under the pile is seen by the stub's count going down; with
                    # the stub not counted it would not show, and the alert says it was judged without
                    details = None if d.stub_why is None else {
                        "judged_from": f"no replacement seen on the pile; stub not counted: {d.stub_why}"}
                    self._alert("exposed_card_not_replaced", self._dk(e.card or e.zone), [e.event, event],
                                details=details, card=e.card or "card", when="piles were delivered")
        d.deliveries[event.pile] = (event.seat, event)
        self._seat(event.seat).pile = event.pile
        self._judge_deliveries()

    def banker_identified(self, seat: int) -> None:
        """The banker, unknown when the round opened, is ``seat``: judge what waited for it."""
        self.banker_seat = seat
        self.banker_unknown = False
        pending, self._limits_pending = self._limits_pending, []
        for bet, amount in pending:
            self._check_limits(bet, amount)
        self._judge_deliveries()

    def _judge_deliveries(self) -> None:
        d = self.deal
        if d.action_pile is None or d.dice is None or self.banker_seat is None or not d.deliveries:
            return
        # The dice of a deal are set once and the banker once a round: only the action pile can move.
        key = d.delivery_key
        if key is None or key[0] != d.action_pile:
            d.delivery_key = (d.action_pile, tuple(d.dice), self.banker_seat)
            d.expected_seats = self.rules.delivery_map(d.action_pile, d.dice, self.banker_seat)
        expected = d.expected_seats
        judged = d.delivery_judged
        for pile, (seat, event) in d.deliveries.items():
            if pile in judged:
                continue
            judged.add(pile)
            if expected.get(pile) != seat:
                evidence = [e for e in (d.action_event, d.dice_event) if e is not None]
                self._alert("pile_to_wrong_seat", self._dk(pile), [*evidence, event],
                            details={"expected_seat": expected.get(pile), "dice": d.dice,
                                     "action_pile": d.action_pile, "banker_seat": self.banker_seat},
                            pile=pile, seat=seat, total=sum(d.dice), expected=expected.get(pile),
                            count_rule=self.rules.count_rule(self.banker_seat))

    def _collected(self, event: DeadHandCollected) -> None:
        self._seat(event.seat).collected = True

    def _check_dead_hands(self, trigger: EventBase, when: str) -> None:
        d = self.deal
        if d.dead_checked:
            return
        d.dead_checked = True
        if self._bets_unseen():
            return
        for _pile, (seat, delivered) in sorted(d.deliveries.items()):
            if seat == self.banker_seat or self.has_wager(seat) or self._seat(seat).collected:
                continue
            self._alert("dead_hand_not_collected", self._dk(seat), [delivered, trigger], seat=seat, when=when)

    # ---- settings ------------------------------------------------------------------------------

    def _house_way_requested(self, event: HouseWayRequested) -> None:
        self._seat(event.seat).house_way_requested = True

    def _hand_set(self, event: HandSet) -> None:
        if event.seat == self.banker_seat:
            if event.counted:
                self._banker_setting(list(event.front), list(event.back), event)
            return
        d = self.deal
        s = self._seat(event.seat)
        dead = not self.has_wager(event.seat) and not s.collected and s.pile is not None
        if dead and not self._bets_unseen():
            self._alert("dead_hand_not_collected", self._dk(event.seat), [event], seat=event.seat,
                        when="a hand was set there")
        if event.seat in d.early_unset and not event.house_way and d.banker_exposed is not None:
            self._alert("house_way_unset", self._dk(event.seat), [d.banker_exposed, event], seat=event.seat)
        s.house_way = event.house_way
        s.set_event = event
        s.judged = False
        s.foul = None
        s.scores = None
        s.partial = s.back_colours = None
        if not event.counted:
            s.front = s.back = None  # set, not counted: judged when the hand is opened (rule 49)
            return
        s.front, s.back = list(event.front), list(event.back)
        self._judge_seat(s, event)

    def _judge_seat(self, s: SeatState, event: EventBase) -> None:
        front, back = s.front, s.back
        if s.judged or front is None or back is None:
            return
        foul = None if len(front) == 2 and len(back) == 5 else count_foul(len(front), len(back))
        # as s.known(), inlined: no None left once checked
        known = None if None in front or None in back else cast(tuple[list[str], list[str]], (front, back))
        if foul is None and known is None:
            if s.partial is None:
                return  # cards still face down: judged when the hand is opened
            # opened but read in part: the cards named are where they are (rule 60 on duplicates),
            # and the setting fouls if every way of reading the rest fouls (rule 50a)
            home = PILE_HOMES[s.pile] if s.pile is not None else f"seat {s.seat}"
            for c in (*front, *back):
                if c is not None and self.deal.homes.get(c) != home:
                    self._see(c, home, event)
            foul = self.rules.judge_partial(*s.partial, s.back_colours)
            if foul is None:
                return  # a later reading may name more
        s.judged = True
        home = PILE_HOMES[s.pile] if s.pile is not None else f"seat {s.seat}"  # as _home_of_seat
        if known is not None:
            homes = self.deal.homes
            for c in (*known[0], *known[1]):
                if homes.get(c) != home:  # a card still where it was dealt needs nothing
                    self._see(c, home, event)
            if foul is None:
                dealt = self._dealt_cards(s.pile)
                foul, s.scores = self.rules.judge_scored(known[0], known[1], dealt)
        if foul is None:
            return
        s.foul = foul
        details: dict[str, Any] = {"foul_rule": foul.rule, "kind": foul.kind.value}
        seven = [*known[0], *known[1]] if known is not None else None
        if seven is not None and len(seven) == 7 and len(set(seven)) == 7:
            details["house_way_for_backline"] = self.rules.house_way_text(seven)
        details["backline_bettors"] = sorted(b for (w, b) in self.wagers if w == s.seat and b is not None)
        self._alert("player_foul", self._dk(s.seat), [event], details=details, seat=s.seat, why=foul.message)

    def _dealt_cards(self, pile: int | None) -> list[str] | None:
        if pile is None:
            return None
        dealt = self.deal.pile_cards.get(pile)
        if dealt is None or len(dealt) != PILE_SIZE or None in dealt:
            return None
        return dealt  # type: ignore[return-value]  # no None left; callers only read it

    def _banker_exposed(self, event: BankerHandExposed) -> None:
        """Rule 11: the hand shown; rules 35, 37: shown before every hand was set. A first event with
        unread cards dates the exposure; a later one naming every card completes the hand."""
        d = self.deal
        first = d.banker_exposed is None
        if first:
            d.banker_exposed = event
        if event.unread == 0:
            d.banker_cards = list(event.cards)
            if len(event.cards) != PILE_SIZE:
                self._alert("banker_hand_miscounted", self._dk(), [event], count=len(event.cards))
        home = self._home_of_seat(self.banker_seat) if self.banker_seat is not None else "banker"
        for c in event.cards:
            self._see(c, home, event)
        self._tally(home, event, [], event.cards)
        if not first:
            return
        unset = sorted(
            seat for (seat, _), amount in self.wagers.items()
            if amount > 0 and seat != self.banker_seat
            and self._seat(seat).set_event is None
            and not self._seat(seat).house_way_requested
            and not self._seat(seat).collected
        )
        unset = sorted(set(unset))
        if unset:
            d.early_unset = set(unset)
            self._alert("banker_opened_early", self._dk(), [event], details={"unset_seats": unset},
                        seats=", ".join(map(str, unset)))
        self._check_dead_hands(event, "when the Player-Dealer's hand was exposed")

    def _banker_set(self, event: BankerHandSet) -> None:
        self._banker_setting([c for c in event.front], [c for c in event.back], event,
                             (event.partial("front") or [], event.partial("back") or []), event.back_colours)
        home = self._home_of_seat(self.banker_seat) if self.banker_seat is not None else "banker"
        self._tally(home, event, event.front, event.back, event)

    def _banker_setting(self, front: list[str | None], back: list[str | None], event: EventBase,
                        partial: tuple[list[str | None], list[str | None]] | None = None,
                        back_colours: Sequence[str | None] | None = None) -> None:
        d = self.deal
        if any(c is None for c in (*front, *back)):
            # set face up but not every card named: the setting is not known (no settlement on it),
            # but the cards named are placed (rule 60) and rule 54 holds if every completion fouls
            d.banker_partial = (list(front), list(back))
            if partial is None or d.banker_foul is not None:
                return
            home = self._home_of_seat(self.banker_seat) if self.banker_seat is not None else "banker"
            for c in (*front, *back):
                self._see(c, home, event)
            foul = self.rules.judge_partial(*partial, back_colours)
            if foul is not None:
                d.banker_foul = foul
                key = "/".join(" ".join(map(str, p)) for p in partial)
                self._alert("banker_foul", self._dk(key), [event],
                            details={"foul_rule": foul.rule, "house_way": "cards not all read"},
                            why=foul.message, house="cards not all read")
            return
        f = [c for c in front if c is not None]
        b = [c for c in back if c is not None]
        before = d.banker_setting or d.banker_partial
        # rule 58 forbids a *reset*: a setting seen whole for the first time after the opening, that
        # agrees with what was read of it before (or nothing was), is the same setting
        if d.first_opened is not None and before is not None and not _same_setting(before, (f, b)):
            prev_foul = d.banker_foul is not None
            seven = d.banker_cards or (bf_all(d.banker_setting) if d.banker_setting else None)
            is_house_way = (
                seven is not None and len(seven) == 7 and len(set(seven)) == 7
                and self.rules.house_way(cards(seven)) == Setting.of(cards(f), cards(b))
                if len(f) == 2 and len(b) == 5 and len(set(f + b)) == 7 else False
            )
            if not (prev_foul and is_house_way):
                self._alert("banker_reset_after_opening", self._dk(), [d.first_opened, event],
                            seat=d.first_opened.seat)
                return
        d.banker_setting = (f, b)
        d.banker_set_event = event if isinstance(event, BankerHandSet) else None
        if d.banker_cards is None:
            d.banker_cards = f + b
        dealt = d.banker_cards if len(d.banker_cards) == 7 and len(set(d.banker_cards)) == 7 else None
        home = self._home_of_seat(self.banker_seat) if self.banker_seat is not None else "banker"
        for c in (*f, *b):
            self._see(c, home, event)
        foul = count_foul(len(f), len(b)) or self.rules.judge(f, b, dealt)
        d.banker_foul = foul
        if foul is not None:
            house = self.rules.house_way_text(dealt) if dealt is not None else "cards not all read"
            self._alert("banker_foul", self._dk(f"{' '.join(f)}/{' '.join(b)}"), [event],
                        details={"foul_rule": foul.rule, "house_way": house}, why=foul.message, house=house)

    def _opened(self, event: HandOpened) -> None:
        d = self.deal
        s = self._seat(event.seat)
        if event.front is not None and event.back is not None:
            if s.front is None or s.known() is None:
                s.front, s.back = list(event.front), list(event.back)
                s.partial = (event.partial("front") or [], event.partial("back") or [])
                s.back_colours = event.back_colours
                s.judged = False
                s.scores = None
            self._judge_seat(s, event)
            self._tally(self._home_of_seat(event.seat), event, event.front, event.back, event)
        elif s.front is not None and s.back is not None:
            self._tally(self._home_of_seat(event.seat), event, s.front, s.back)  # as set, named
        s.opened = True
        if d.first_opened is None:
            d.first_opened = event
            d.settings_frozen = d.banker_setting
            self._check_dead_hands(event, "when the first hand was opened")

    # ---- settlement ----------------------------------------------------------------------------

    def settlement(self) -> Settlement | None:
        """The settlement in action order, once everything it needs is known (else None and a note)."""
        if self.settled is not None:
            return self.settled
        d = self.deal
        note = None
        banker_setting = d.settings_frozen or d.banker_setting
        if self.banker_seat is None:
            note = "banker seat unknown"
        elif d.dice is None:
            note = "no valid dice reading"
        elif banker_setting is None:
            note = "the Player-Dealer's setting was not seen"
        if note is not None:
            self.settlement_note = note
            return None
        assert self.banker_seat is not None and d.dice is not None and banker_setting is not None
        seven = d.banker_cards if d.banker_cards and len(d.banker_cards) == 7 else [*bf_all(banker_setting)]
        if len(seven) != 7 or len(set(seven)) != 7:
            self.settlement_note = "the Player-Dealer's hand is not seven distinct cards"
            return None
        bf, bb = banker_setting
        banker: Setting | None = None  # built only if a seat must go through decide_spot
        if d.banker_foul is not None or len(bf) != 2 or len(bb) != 5:
            banker = self.rules.house_way(cards(seven))
            banker_scores = tuple(v.score for v in banker.values(self.profile))
        else:
            banker_scores = self.rules.scores(bf, bb)
        results: dict[int, SpotResult] = {}
        banker_pair = (banker_scores[0], banker_scores[1])
        bets: list[Bet] = []
        banker_amount = 0
        for (seat, bettor), amount in sorted(self.wagers.items(), key=_wager_order):
            if seat == self.banker_seat:
                banker_amount += amount
                continue
            if amount <= 0:
                continue
            if seat not in results:
                s = self._seat(seat)
                if s.scores is not None and s.foul is None:
                    # Legal setting, scored when it was judged: rules 2 and 62 on the scores.
                    results[seat] = _legal_spot(seat, outcome(s.scores, banker_pair))
                else:
                    known = s.known()
                    if known is None:
                        self.settlement_note = f"seat {seat}'s cards were not all read"
                        return None
                    dealt = self._dealt_cards(s.pile) or known[0] + known[1]
                    if len(dealt) != 7 or len(set(dealt)) != 7:
                        self.settlement_note = f"seat {seat}'s hand is not seven distinct cards"
                        return None
                    if banker is None:
                        fc, bc = cards(bf), cards(bb)
                        banker = Setting((fc[0], fc[1]), (bc[0], bc[1], bc[2], bc[3], bc[4]))  # judged legal
                    results[seat] = decide_spot(seat, cards(known[0]), cards(known[1]), cards(dealt), banker,
                                                self.rules.house_way, self.profile)
            bets.append(Bet(_party(seat, bettor), seat, amount, seated=bettor is None))
        if banker_amount == 0:
            # No banker wager seen: judge outcomes only, as if the bank covered every bet.
            banker_amount = sum(b.amount for b in bets)
            self.settlement_note = "no Player-Dealer wager seen: bank assumed to cover every bet"
        action = self.action_seat()
        assert action is not None
        wager = BankerWager("banker", self.banker_seat, banker_amount)
        st = settle(self.profile, wager, bets, results, action)
        self.expected = {(line.seat, line.party): line.won - line.lost for line in st.lines}
        self.settled = st
        self.results = results
        return st

    def action_seat(self) -> int | None:
        """The seat that received the action pile by the dice (rule 21), once dice and banker are known."""
        d = self.deal
        if d.dice is None or self.banker_seat is None:
            return None
        key = (tuple(d.dice), self.banker_seat)
        if self._action is None or self._action[0] != key:
            self._action = (key, self.rules.action_seat(d.dice, self.banker_seat))
        return self._action[1]

    def _expected(self, key: BankerKey) -> int | None:
        """What settlement in action order pays this wager (+) or takes (-); None if not yet known."""
        if self.settlement() is None:
            return None
        return self.expected.get((key[0], _party(*key)), 0)

    def _payout(self, event: Payout) -> None:
        key = (event.seat, event.bettor)
        prev = self.payouts.get(key)
        amount = event.amount + (prev[0] if prev else 0)
        self.payouts[key] = (amount, event)
        self._judge_payout(key, event)

    def _judge_payout(self, key: BankerKey, trigger: EventBase) -> None:
        if self.settled is None and self.settlement() is None:
            return  # not yet known (as _expected)
        expected = self.expected.get((key[0], _party(*key)), 0)
        self.payout_judged.add(key)
        paid = self.payouts.get(key)
        paid_amount = paid[0] if paid else 0
        if paid_amount != expected:
            evidence = [paid[1]] if paid else [trigger]
            self._alert("payout_mismatch", self._dk(f"{key[0]}:{key[1]}"), evidence,
                        details={"paid": paid_amount, "expected": expected},
                        seat=key[0], who=_who(key[1]), paid=money(paid_amount) if paid else "nothing",
                        expected=money(expected))

    # ---- the end -------------------------------------------------------------------------------

    def close(self, trigger: EventBase | None, complete: bool) -> PaiGowHistory:
        """Final checks (unpaid wagers, uncollected dead hands) and the hand history."""
        d = self.deal
        if self.banker_unknown:  # never named: a bet under the minimum is no bank; over the maximum may be
            self.banker_unknown = False
            for bet, amount in self._limits_pending:
                if amount <= self.profile.table_max:
                    self._check_limits(bet, amount)
        self._stub_unjudged()
        self._deliveries_unjudged()
        if trigger is not None and complete:
            if d.deliveries:
                self._check_dead_hands(trigger, "by the end of the hand")
            if self.payouts and self.settlement() is not None:
                for key in sorted(set(self.wagers) | set(self.payouts), key=lambda k: (k[0], k[1] or "")):
                    if key[0] != self.banker_seat and key not in self.payout_judged:
                        self._judge_payout(key, trigger)
        return self._history(complete)

    def _history(self, complete: bool) -> PaiGowHistory:
        return build_history(self, complete)


PaiGowRound.handlers.update({
    "shuffle_done": PaiGowRound._ignore,
    "bets_closed": PaiGowRound._bets_closed,
    "misdeal_declared": PaiGowRound._misdeal,
    "card_dealt": PaiGowRound._card_dealt,
    "card_exposed": PaiGowRound._card_exposed,
    "piles_complete": PaiGowRound._piles_complete,
    "stub_counted": PaiGowRound._stub_counted,
    "stub_not_countable": PaiGowRound._stub_not_countable,
    "exposed_card_replaced": PaiGowRound._replaced,
    "action_pile_chosen": PaiGowRound._action_pile,
    "dice_rolled": PaiGowRound._dice,
    "pile_delivered": PaiGowRound._delivered,
    "dead_hand_collected": PaiGowRound._collected,
    "hand_set": PaiGowRound._hand_set,
    "house_way_requested": PaiGowRound._house_way_requested,
    "banker_hand_exposed": PaiGowRound._banker_exposed,
    "banker_hand_set": PaiGowRound._banker_set,
    "hand_opened": PaiGowRound._opened,
    "bet_placed": PaiGowRound._bet_placed,
    "bet_changed": PaiGowRound._bet_changed,
    "payout": PaiGowRound._payout,
})


def _same_setting(before: tuple[Sequence[str | None], Sequence[str | None]],
                  after: tuple[Sequence[str], Sequence[str]]) -> bool:
    """``after`` (every card named) is ``before`` (read in part, or whole): each card named before lies
    in the same hand now (rule 58 judges a change of setting, not a better reading of it)."""
    for was, now in zip(before, after, strict=True):
        left = Counter(now)
        for c in was:
            if c is None:
                continue
            if left[c] == 0:
                return False
            left[c] -= 1
    return True
