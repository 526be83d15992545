"""The facts of one round that the deal, exposures, deliveries, seats and banker watchers share.

A misdeal voids them all (:meth:`RoundRecord.renew`), as a new round does. What only one watcher
needs lives in that watcher; what is here is read by more than one (who writes it is noted).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from monitor.pipeline.watchers.held import Held

HAND_CARDS = 7  # a Pai Gow hand: the two-card front and the five-card back (seed 000 rule 1)


@dataclass(frozen=True, slots=True)
class HandAt:
    """One sighting of the dealing hand during a trip: how far from the deck, and the slots under it."""

    t: float
    frame: int
    deck_mm: float
    under: tuple[tuple[int, float], ...]  # (slot, mm from where its cards lie)


@dataclass(slots=True)
class Visit:
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
    path: list[HandAt] = field(default_factory=list)  # with the deck's place known: the hand's samples
    # how far the slot's picture moved from its last still one while no hand was over it, since the
    # trip ended (a card lying there that the detector did not box moves it too)
    slot_moved: float = 0.0


@dataclass(slots=True)
class Dealt:
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


@dataclass(frozen=True, slots=True)
class LaidHand:
    """A hand laid open away from its areas, as read in one frame: each part padded with unread cards
    (None) to its size, the ranks of cards not named alike, and how many of the seven were read."""

    front: list[str | None]
    back: list[str | None]
    front_ranks: list[str | None]
    back_ranks: list[str | None]
    read: int
    confidence: float


@dataclass(slots=True)
class Seat:
    """A seat's delivered hand: the pile it got, its cards' tracks, and how far it is set."""

    pile: int
    tracks: set[str]
    absent_since: float | None = None
    collected: bool = False
    set_counts: Held = field(default_factory=Held)
    set_rest: Held = field(default_factory=Held)  # cards resting in both hands, uncounted
    reported_set: tuple[tuple[str | None, ...], tuple[str | None, ...]] | None = None
    opened: bool = False
    # the hand opened away from its front and back areas (on its betting circle): since when it has
    # lain so, and its fullest reading meanwhile (an arm passing hides a card of it for a frame or two)
    laid_open: Held = field(default_factory=Held)
    laid_best: LaidHand | None = None
    laid_lost: int = 0  # frames in a row since it last lay so (an arm passing: one or two)
    # which part each card's track lay in when the hand was set (its arrangement opened may not say)
    set_parts: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class RoundRecord:
    """What a misdeal voids, shared by the watchers of the round."""

    # the deal (the deal watcher; deliveries add the cards of a pile carried to a seat)
    pile_of: dict[str, int] = field(default_factory=dict)  # card track -> pile it was dealt to
    counts: list[int] = field(default_factory=lambda: [0] * 8)
    last_card: float | None = None
    done: bool = False
    visits: list[Visit] = field(default_factory=list)  # hands over pile slots during the deal
    dealt_out: list[Dealt] = field(default_factory=list)  # counted cards not yet reported, in order
    # exposed cards (the exposures and deal watchers; deliveries take one off its pile)
    exposed: dict[str, int] = field(default_factory=dict)  # face-up card track -> its pile
    exposed_cards: set[str] = field(default_factory=set)  # the exposed cards' names (tracks may switch)
    exposed_as: dict[str, str | None] = field(default_factory=dict)  # track -> its card, rank, or None
    # exposures reported unread, still lying on their pile: pile -> (track, since, confidence); read
    # later, the read follows (an ace read after unread_hold_s is still rule 48a's misdeal)
    unread_out: dict[int, tuple[str, tuple[float, int], float]] = field(default_factory=dict)
    removed: list[int] = field(default_factory=list)  # piles whose exposed card was taken off
    # deliveries (the deliveries watcher, or the console for the action pile)
    delivered: dict[int, int] = field(default_factory=dict)  # pile -> seat
    action_pile: int | None = None
    seats: dict[int, Seat] = field(default_factory=dict)  # the seats' hands (the seats watcher)
    # the banker's hand (the banker watcher): seats stop following collection once it is exposed,
    # and the bets watcher stops following chips once settlement has begun
    banker_exposed: bool = False
    # the banker's cards seen face up, read or not: settlement has begun (no event: the contract's
    # banker_hand_exposed names the cards, and unread ones cannot be named)
    banker_face_up: bool = False

    def renew(self) -> None:
        """Forget the round in place: every watcher holds this one record."""
        fresh = RoundRecord()
        for f in fields(self):
            setattr(self, f.name, getattr(fresh, f.name))
