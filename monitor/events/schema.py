"""The event contract: what the table did, as seen by a camera, a dice reader or an operator.

Events are the one boundary between seeing and judging (docs/events.md). Every event is a
small frozen pydantic model with a ``type`` tag; :data:`Event` is the discriminated union
of all of them and :func:`parse_event` / :func:`parse_event_json` turn a dict or a JSON
line into the right class. JSON is the wire format; ``docs/schema/events.schema.json`` is
the exported JSON Schema (``table-monitor export-schema``).

Conventions
- ``seq`` is monotonic per table; a repeat of the same ``seq`` is a resend, not a new event.
- ``media_time`` (seconds) and ``frame`` say where in the recording it was seen;
  ``wall_time`` (UTC, ISO 8601) when it was recorded.
- Money is integer cents. Seats are 1..10 (the banker sits at one of them), piles 1..7
  counted left to right from the dealer.
- Cards are two-character text (``As``, ``Td``, ``Jk``), normalised on input.
- The schema accepts what a sensor can physically report (e.g. dice values 0 or 9, a pile
  of 6 cards); whether that breaks a rule is the procedure monitor's call, not the schema's.

>>> e = parse_event_json('{"type":"stub_counted","table_id":"T1","seq":7,"media_time":12.5,'
...                      '"wall_time":"2026-01-01T20:00:00Z","source":"vision","n":4}')
>>> type(e).__name__, e.n, e.wall_time.isoformat()
('StubCounted', 4, '2026-01-01T20:00:00+00:00')
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    field_serializer,
    model_validator,
)

from monitor.rules.cards import parse_card
from monitor.rules.errors import CardParseError

SCHEMA_VERSION: Final = 1
MAX_SEATS: Final = 10
PILES: Final = 7


class Source(StrEnum):
    VISION = "vision"
    DICE_READER = "dice_reader"
    OPERATOR = "operator"
    FILE = "file"


class Game(StrEnum):
    """Games the monitor follows (Pai Gow by Livermore, Napa and Lucky Chances; the others by Poker Games)."""

    PAIGOW = "paigow"
    HOLDEM = "holdem"
    HOLDEM_HILO = "holdem_hilo"
    OMAHA = "omaha"
    OMAHA_HILO = "omaha_hilo"
    PINEAPPLE = "pineapple"
    LOWBALL = "lowball"
    PUSH_NINE = "push_nine"
    PAN = "pan"


class Device(StrEnum):
    CAMERA = "camera"
    DICE_READER = "dice_reader"


class Street(StrEnum):
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"


class PotShare(StrEnum):
    """Which part of a pot an award is for: the whole pot, or the high or low half of a split game."""

    WHOLE = "whole"
    HIGH = "high"
    LOW = "low"


@lru_cache(maxsize=128)
def _canonical_card(text: str) -> str:
    try:
        return parse_card(text).text
    except CardParseError as exc:
        raise ValueError(str(exc)) from None


# A card on the wire: text, normalised ('10d' -> 'Td', 'joker' -> 'Jk'); a bad card names itself.
CardText = Annotated[str, AfterValidator(_canonical_card)]
# A card's rank alone, when vision read the rank but not the suit ('A', 'K', ..., 'T', '9', ..., '2').
RankText = Annotated[str, Field(pattern=r"^[2-9TJQKA]$", description="rank character, suit unread")]
InkColour = Literal["red", "black"]
Seat = Annotated[int, Field(ge=1, le=MAX_SEATS, description="seat number 1..10")]
Pile = Annotated[int, Field(ge=1, le=PILES, description="pile slot 1..7, left to right from the dealer")]
Cents = Annotated[int, Field(ge=0, description="money in integer cents")]
# A zone on the table: 'pile:3', 'stub', 'seat:4', 'banker', 'board', 'muck', 'deck', 'tray'.
Zone = Annotated[str, Field(pattern=r"^(pile:[1-7]|seat:(10|[1-9])|stub|banker|board|muck|deck|tray)$")]


class EventBase(BaseModel):
    """Fields every event carries."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    schema_version: Literal[1] = SCHEMA_VERSION
    table_id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
    seq: Annotated[int, Field(ge=0, description="monotonic per table; same seq = same event resent")]
    media_time: Annotated[float, Field(ge=0, allow_inf_nan=False, description="seconds into the media")]
    frame: Annotated[int, Field(ge=0)] | None = None
    wall_time: AwareDatetime
    source: Source
    confidence: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)] = 1.0

    @field_serializer("wall_time")
    def _utc(self, value: datetime) -> str:
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


# ---- round ---------------------------------------------------------------------------------------


# what opened a round the camera opened (no console): chips at rest on a betting spot, a card or pile
# at rest on a pile slot or elsewhere on the table, or a roll from the dice reader
OpenedBy = Literal["chips", "pile", "cards", "dice"]


class RoundStarted(EventBase):
    """A new hand begins. ``round_id`` if the dealer system numbers hands; else the monitor names it.
    ``opened_by``: what opened it where no console did (None: the console)."""

    type: Literal["round_started"] = "round_started"
    game: Game = Game.PAIGOW
    round_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    # Pai Gow: the Player-Dealer's seat (Livermore rule 3). Poker: the dealer button.
    banker_seat: Seat | None = None
    button_seat: Seat | None = None
    # Poker: the seats dealt in, in deal order is derived from the button.
    players: list[Seat] = Field(default_factory=list, max_length=MAX_SEATS)
    opened_by: OpenedBy | None = None


class ShuffleDone(EventBase):
    type: Literal["shuffle_done"] = "shuffle_done"


class BetsClosed(EventBase):
    """The dealer announced "no more bets" and opened the dice cup (Livermore rule 32)."""

    type: Literal["bets_closed"] = "bets_closed"


class MisdealDeclared(EventBase):
    """The dealer or floor declared a misdeal; the round's cards are void and will be redealt."""

    type: Literal["misdeal_declared"] = "misdeal_declared"
    reason: Annotated[str, Field(max_length=200)] = ""


class RoundEnded(EventBase):
    type: Literal["round_ended"] = "round_ended"


# ---- the Pai Gow deal ----------------------------------------------------------------------------


class CardDealt(EventBase):
    """One card placed on a pile during the 7x7 deal (Livermore rule 6)."""

    type: Literal["card_dealt"] = "card_dealt"
    pile: Pile
    face_up: bool = False
    card: CardText | None = None
    rank: RankText | None = None  # face up, ``card`` unread: its rank when that was read


class CardExposed(EventBase):
    """A card boxed (face up in the deck) or exposed during the deal (Livermore rules 48, 51)."""

    type: Literal["card_exposed"] = "card_exposed"
    card: CardText | None = None  # None: a face nobody could read (not a back)
    rank: RankText | None = None  # ``card`` unread: its rank when that was read (an ace: rule 48a)
    zone: Zone


class PilesComplete(EventBase):
    """The 7x7 deal is over; the card count of each pile, pile 1 first."""

    type: Literal["piles_complete"] = "piles_complete"
    counts: list[Annotated[int, Field(ge=0, le=60)]] = Field(min_length=1, max_length=PILES)


class StubCounted(EventBase):
    """Cards left in the stub after the deal (Livermore rule 55: must be four)."""

    type: Literal["stub_counted"] = "stub_counted"
    n: Annotated[int, Field(ge=0, le=60)]


class StubNotCountable(EventBase):
    """The deal closed and its stub could not be counted (Livermore rule 55 is then not judged, and
    says so, rather than saying nothing). ``reason``: ``squared`` (the stub lies as one stack, its cards
    not separable from above), ``unreadable`` (seen spread but not counted: ``detail`` says why) or
    ``not_seen`` (no cards seen resting in the stub's zone: covered or out of view). ``detail``: the
    counter's own words, where it gave any."""

    type: Literal["stub_not_countable"] = "stub_not_countable"
    reason: Literal["squared", "unreadable", "not_seen"]
    detail: str | None = Field(default=None, max_length=200)


class ExposedCardReplaced(EventBase):
    """The exposed card of ``pile`` was replaced by the first stub card (Livermore rule 51)."""

    type: Literal["exposed_card_replaced"] = "exposed_card_replaced"
    pile: Pile
    card: CardText | None = None


# ---- action --------------------------------------------------------------------------------------


class ActionPileChosen(EventBase):
    """The Player-Dealer chose the pile that goes first; it gets the ACTION button (Livermore rule 7)."""

    type: Literal["action_pile_chosen"] = "action_pile_chosen"
    pile: Pile


class DiceRolled(EventBase):
    """The dice as read (Livermore rule 8). Values are as reported; range is judged by the monitor."""

    type: Literal["dice_rolled"] = "dice_rolled"
    values: list[Annotated[int, Field(ge=-100, le=100)]] = Field(min_length=1, max_length=6)


class PileDelivered(EventBase):
    """A pile pushed to a seat (Livermore rules 8, 9, 21). The banker's seat receives the banker's hand."""

    type: Literal["pile_delivered"] = "pile_delivered"
    pile: Pile
    seat: Seat


class DeadHandCollected(EventBase):
    """The dealer collected the hand delivered to a seat without a wager (Livermore rule 9)."""

    type: Literal["dead_hand_collected"] = "dead_hand_collected"
    seat: Seat


# ---- setting -------------------------------------------------------------------------------------


# A card in a hand that may still be face down: null until it is read (e.g. when the hand is opened).
MaybeCard = CardText | None


class HandSet(EventBase):
    """A player's setting: ``front`` the two-card hand, ``back`` the five-card hand (Livermore rule 50e).

    Cards still face down are null; their identities may follow in ``hand_opened``.
    """

    type: Literal["hand_set"] = "hand_set"
    seat: Seat
    front: list[MaybeCard] = Field(max_length=7)
    back: list[MaybeCard] = Field(max_length=7)
    # Set by the dealer at the player's request (Livermore rule 52; Napa).
    house_way: bool = False
    # False: the cards lie set in both hands, but how many in each was not seen (face down, fanned
    # under one another; ``front`` and ``back`` empty): the seat is set, its count is judged when the
    # hand is opened (rule 49).
    counted: bool = True


class BankerHandExposed(EventBase):
    """The dealer turned the Player-Dealer's seven cards face up (Livermore rule 11).

    ``unread``: cards seen face up there that vision could not name (they are not in ``cards``). The
    exposure is then known but not the hand: its count is not judged, and a later event of the round
    naming every card completes it (rules 35 and 37 need only the moment it was opened).
    """

    type: Literal["banker_hand_exposed"] = "banker_hand_exposed"
    cards: list[CardText] = Field(max_length=10)
    unread: int = Field(default=0, ge=0, le=10)


class _ReadInPart(EventBase):
    """A setting vision may have read only in part (``banker_hand_set``, ``hand_opened``): a card seen
    but not named is null in ``front``/``back``, and ``front_ranks``/``back_ranks`` give its rank where
    that was read; ``front_colours``/``back_colours`` the ink (red or black) of the cards not named,
    where read (two inks in the five-card hand rule out a flush, rule 50a's only use of suits);
    ``front_sure``/``back_sure`` which of those ranks were read surely enough to count (a third card
    of one rank and ink turned up in a deal is a duplicate, rule 60: a wrong rank there is a false
    misdeal). Declares no fields
    itself (each event keeps its own)."""

    if TYPE_CHECKING:
        front: list[str | None] | None
        back: list[str | None] | None
        front_ranks: list[str | None] | None
        back_ranks: list[str | None] | None
        front_colours: list[InkColour | None] | None
        back_colours: list[InkColour | None] | None
        front_sure: list[bool] | None
        back_sure: list[bool] | None

    @model_validator(mode="after")
    def _ranks_of_unnamed_cards(self) -> _ReadInPart:
        _check_ranks(self.front, self.back, self.front_ranks, self.back_ranks)
        _check_unnamed(self.front, self.front_colours, "front_colours", "colour")
        _check_unnamed(self.back, self.back_colours, "back_colours", "colour")
        _check_sure(self.front, self.front_ranks, self.front_sure, "front_sure")
        _check_sure(self.back, self.back_ranks, self.back_sure, "back_sure")
        return self

    def partial(self, part: str) -> list[str | None] | None:
        """The setting as the rules read it in part: each card's text, else its rank, else None."""
        if part == "front":
            return _partial(self.front, self.front_ranks)
        return _partial(self.back, self.back_ranks)


class BankerHandSet(_ReadInPart):
    """The Player-Dealer's setting, by the dealer on the banker's instruction (Livermore rules 11, 54, 58).

    As in ``hand_opened``, a card seen but not named is null and ``front_ranks``/``back_ranks`` give
    its rank where that was read: rule 54 (a foul setting) is then judged on every completion.
    """

    type: Literal["banker_hand_set"] = "banker_hand_set"
    front: list[MaybeCard] = Field(max_length=7)
    back: list[MaybeCard] = Field(max_length=7)
    front_ranks: list[RankText | None] | None = Field(default=None, max_length=7)
    back_ranks: list[RankText | None] | None = Field(default=None, max_length=7)
    front_colours: list[InkColour | None] | None = Field(default=None, max_length=7)
    back_colours: list[InkColour | None] | None = Field(default=None, max_length=7)
    front_sure: list[bool] | None = Field(default=None, max_length=7)
    back_sure: list[bool] | None = Field(default=None, max_length=7)




class HandOpened(_ReadInPart):
    """The dealer turned a player's set hand over to compare it with the banker's (Livermore rule 56).

    ``front``/``back``, when given, are the cards as turned up (they complete a face-down ``hand_set``);
    a card seen but not named is null, and ``front_ranks``/``back_ranks`` (the same lengths) then give
    its rank where that was read (a fanned hand on an unfamiliar deck shows its indices: the rank
    reads far more often than the suit). Rule 50a is judged on what was read: a foul only if every
    way of completing the unread parts is one.
    """

    type: Literal["hand_opened"] = "hand_opened"
    seat: Seat
    front: list[MaybeCard] | None = Field(default=None, max_length=7)
    back: list[MaybeCard] | None = Field(default=None, max_length=7)
    front_ranks: list[RankText | None] | None = Field(default=None, max_length=7)
    back_ranks: list[RankText | None] | None = Field(default=None, max_length=7)
    front_colours: list[InkColour | None] | None = Field(default=None, max_length=7)
    back_colours: list[InkColour | None] | None = Field(default=None, max_length=7)
    front_sure: list[bool] | None = Field(default=None, max_length=7)
    back_sure: list[bool] | None = Field(default=None, max_length=7)




def _check_ranks(front: list[str | None] | None, back: list[str | None] | None,
                 front_ranks: list[str | None] | None, back_ranks: list[str | None] | None) -> None:
    _check_unnamed(front, front_ranks, "front_ranks", "rank")
    _check_unnamed(back, back_ranks, "back_ranks", "rank")


def _check_unnamed(cards: Sequence[str | None] | None, extra: Sequence[str | None] | None, field: str,
                   what: str) -> None:
    """``extra`` (ranks or inks of the cards not named) lines up with ``cards``, given only for the
    cards not named."""
    if extra is None:
        return
    part = field.split("_")[0]
    if cards is None or len(extra) != len(cards):
        raise ValueError(f"{field} must give one entry per card of {part}")
    if any(r is not None and c is not None for c, r in zip(cards, extra, strict=True)):
        raise ValueError(f"{field}: a {what} is given only for a card not named")


def _check_sure(cards: Sequence[str | None] | None, ranks: Sequence[str | None] | None,
                sure: Sequence[bool] | None, field: str) -> None:
    """``sure`` lines up with ``cards`` and marks only ranks given (of cards not named)."""
    if sure is None:
        return
    part = field.split("_")[0]
    if cards is None or len(sure) != len(cards):
        raise ValueError(f"{field} must give one entry per card of {part}")
    if any(s and (c is not None or ranks is None or ranks[i] is None)
           for i, (c, s) in enumerate(zip(cards, sure, strict=True))):
        raise ValueError(f"{field}: only a rank given for a card not named may be sure")


def _partial(cards: list[str | None] | None, ranks: list[str | None] | None) -> list[str | None] | None:
    if cards is None:
        return None
    return [c if c is not None else (ranks[i] if ranks else None) for i, c in enumerate(cards)]


class HouseWayRequested(EventBase):
    """The player asked for the hand to be set house way before touching it (Livermore rules 35, 52;
    Napa): the seven cards stay together and the dealer sets them when the hand is reached."""

    type: Literal["house_way_requested"] = "house_way_requested"
    seat: Seat


# ---- money ---------------------------------------------------------------------------------------

# Who bet: ``None`` is the seat's own (active) player; any other id is a backline bettor (rule 4).
Bettor = Annotated[str, Field(min_length=1, max_length=32)] | None


class BetPlaced(EventBase):
    """Chips placed in a betting spot. At the banker's seat this is the banker's money in action."""

    type: Literal["bet_placed"] = "bet_placed"
    seat: Seat
    amount: Cents
    bettor: Bettor = None
    # the amount is at least this: a camera straight above sees a stack's top chip, not its height.
    # Limits are judged only where the bound decides them (over the maximum, never under the minimum).
    at_least: bool = False


class BetChanged(EventBase):
    """Chips in a spot changed (added, removed)."""

    type: Literal["bet_changed"] = "bet_changed"
    seat: Seat
    before: Cents
    after: Cents
    bettor: Bettor = None
    at_least: bool = False  # ``after`` is a lower bound (see BetPlaced)


class Payout(EventBase):
    """The settlement of one wager: ``amount`` paid to the bettor (>0), taken (<0), or 0 for a push."""

    type: Literal["payout"] = "payout"
    seat: Seat
    amount: int
    bettor: Bettor = None


class BankerChanged(EventBase):
    """The Player-Dealer position moves (Livermore rules 3, 40); ``seat`` None means no banker."""

    type: Literal["banker_changed"] = "banker_changed"
    seat: Seat | None
    previous: Seat | None = None


# ---- devices -------------------------------------------------------------------------------------


class DeviceLost(EventBase):
    type: Literal["device_lost"] = "device_lost"
    device: Device
    name: Annotated[str, Field(max_length=64)] = ""
    detail: Annotated[str, Field(max_length=200)] = ""


class DeviceRecovered(EventBase):
    type: Literal["device_recovered"] = "device_recovered"
    device: Device
    name: Annotated[str, Field(max_length=64)] = ""


# ---- poker (Poker Games) ----------------------------------------------------------------------------


class HoleDealt(EventBase):
    """One hole card dealt to a seat; ``face_up`` if it was exposed on the deal."""

    type: Literal["hole_dealt"] = "hole_dealt"
    seat: Seat
    face_up: bool = False
    card: CardText | None = None


class Burn(EventBase):
    """A burn card before a street (Poker Games Hold'em: "after burning one card")."""

    type: Literal["burn"] = "burn"
    face_up: bool = False
    card: CardText | None = None


class BoardDealt(EventBase):
    """Community cards turned up: three on the flop, one on the turn, one on the river."""

    type: Literal["board_dealt"] = "board_dealt"
    street: Street
    cards: list[CardText] = Field(min_length=1, max_length=5)


class PlayerFolded(EventBase):
    type: Literal["player_folded"] = "player_folded"
    seat: Seat


class HandShown(EventBase):
    """A player's hole cards shown at showdown."""

    type: Literal["hand_shown"] = "hand_shown"
    seat: Seat
    cards: list[CardText] = Field(min_length=1, max_length=10)


class MeldsShown(EventBase):
    """Pan (Poker Games): a player's conditions (melds) face up on the table and the cards he still holds.

    Shown when the player goes out (eleven cards melded, nothing held: Poker Games Pan rule 5) or when
    the dealer checks a hand for a foul (ten cards in all). Each meld is one condition (a set or a run).
    """

    type: Literal["melds_shown"] = "melds_shown"
    seat: Seat
    melds: list[Annotated[list[CardText], Field(min_length=1, max_length=11)]] = Field(max_length=11)
    held: list[CardText] = Field(default_factory=list, max_length=20)


class Award(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: Seat
    amount: Cents
    share: PotShare = PotShare.WHOLE


class PotAwarded(EventBase):
    """The dealer pushed the pot: who received how much of which half.

    Pan counts in chips, not cents: the winner's award is what he collects (Poker Games Pan rule 5).
    """

    type: Literal["pot_awarded"] = "pot_awarded"
    pot: Cents
    awards: list[Award] = Field(min_length=1, max_length=2 * MAX_SEATS)


Event = Annotated[
    RoundStarted
    | ShuffleDone
    | BetsClosed
    | MisdealDeclared
    | RoundEnded
    | CardDealt
    | CardExposed
    | PilesComplete
    | StubCounted
    | StubNotCountable
    | ExposedCardReplaced
    | ActionPileChosen
    | DiceRolled
    | PileDelivered
    | DeadHandCollected
    | HandSet
    | BankerHandExposed
    | BankerHandSet
    | HandOpened
    | HouseWayRequested
    | BetPlaced
    | BetChanged
    | Payout
    | BankerChanged
    | DeviceLost
    | DeviceRecovered
    | HoleDealt
    | Burn
    | BoardDealt
    | PlayerFolded
    | HandShown
    | MeldsShown
    | PotAwarded,
    Field(discriminator="type"),
]

EVENT_ADAPTER: Final[TypeAdapter[Event]] = TypeAdapter(Event)
def _event_classes(base: type[EventBase]) -> list[type[EventBase]]:
    """Every event class under ``base`` (a shared base such as ``_ReadInPart`` has no ``type``)."""
    out: list[type[EventBase]] = []
    for cls in base.__subclasses__():
        if "type" in cls.model_fields:
            out.append(cls)
        out += _event_classes(cls)
    return out


EVENT_TYPES: Final[dict[str, type[EventBase]]] = {
    cls.model_fields["type"].default: cls for cls in _event_classes(EventBase)
}


def parse_event(data: Any) -> Event:
    """Validate a mapping into its event class; raises ``pydantic.ValidationError`` naming the field."""
    return EVENT_ADAPTER.validate_python(data)


def parse_event_json(line: str | bytes) -> Event:
    """Validate one JSON document (one JSONL line) into its event class."""
    return EVENT_ADAPTER.validate_json(line)


def event_to_json(event: EventBase) -> str:
    """One compact JSON line (no defaults dropped: the wire form is explicit)."""
    return event.model_dump_json()


def events_json_schema() -> dict[str, Any]:
    """JSON Schema of the event union (what ``docs/schema/events.schema.json`` holds)."""
    schema = EVENT_ADAPTER.json_schema()
    schema["title"] = "table-monitor event"
    schema["$comment"] = f"schema_version {SCHEMA_VERSION}; generated by `table-monitor export-schema`"
    return schema
