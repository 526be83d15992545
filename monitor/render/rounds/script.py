"""The round script: a YAML file that tells a round as the dealer's actions (docs/rounds.md).

A script has a header (game, table, card design, the alerts the rules must raise) and a list of
actions. Each action is either a bare name (``- no_more_bets``) or a one-key mapping of the name to
its fields (``- bet: {seat: 2, dollars: 25}``). Every action may give ``duration`` (seconds of video
it takes); the defaults are a dealer's usual pace.

Validation is strict (unknown fields are errors) and every error names the file, the action's
index and name, and the field: ``clean.yaml: action 7 (deal): expose.0: Input should be ...``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from monitor.rules.cards import parse_card
from monitor.rules.errors import CardParseError

SEATS = 7
PILES = 7


class ScriptError(ValueError):
    """A script that cannot be read or played; the message names the file, action and field."""


def _card(text: str) -> str:
    try:
        return parse_card(text).text
    except CardParseError as e:
        raise ValueError(str(e)) from None


CardText = Annotated[str, Field(min_length=1, max_length=8)]
SeatNo = Annotated[int, Field(ge=1, le=SEATS)]
PileNo = Annotated[int, Field(ge=1, le=PILES)]
Seconds = Annotated[float, Field(gt=0, le=120)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    duration: Seconds | None = None


# ---- actions common to the games ----------------------------------------------------------------


class Shuffle(_Action):
    """Shuffle and square the deck. ``cards`` gives the whole order (first card dealt first); else
    ``seed`` shuffles the game's deck. ``remove`` takes cards out (a short deck), ``extra`` adds cards
    from another deck, ``place`` puts a card at a deal position (1 = the first card dealt)."""

    do: Literal["shuffle"] = "shuffle"
    seed: int | None = None
    cards: list[CardText] | None = None
    remove: list[CardText] = Field(default_factory=list)
    extra: list[CardText] = Field(default_factory=list)
    place: dict[Annotated[int, Field(ge=1, le=60)], CardText] = Field(default_factory=dict)

    @field_validator("cards", "remove", "extra")
    @classmethod
    def _cards(cls, v: list[str] | None) -> list[str] | None:
        return None if v is None else [_card(c) for c in v]

    @field_validator("place")
    @classmethod
    def _placed(cls, v: dict[int, str]) -> dict[int, str]:
        return {k: _card(c) for k, c in v.items()}


class Wait(_Action):
    do: Literal["wait"] = "wait"
    duration: Seconds | None = 1.0


class RoundEnd(_Action):
    """The dealer clears the table; the round is over."""

    do: Literal["round_end"] = "round_end"


# ---- Pai Gow ------------------------------------------------------------------------------------


class RoundStart(_Action):
    do: Literal["round_start"] = "round_start"
    banker_seat: SeatNo | None = None  # Pai Gow: the Player-Dealer's seat
    button_seat: SeatNo | None = None  # poker: the dealer button
    players: list[SeatNo] = Field(default_factory=list)  # poker: seats dealt in
    round_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class Bet(_Action):
    """Chips placed in a seat's betting spot; at the banker's seat, the banker's money in action."""

    do: Literal["bet"] = "bet"
    seat: SeatNo
    dollars: Annotated[int, Field(ge=1, le=100_000)]
    bettor: Annotated[str, Field(min_length=1, max_length=32)] | None = None


class NoMoreBets(_Action):
    do: Literal["no_more_bets"] = "no_more_bets"


class Deal(_Action):
    """The 7x7 deal, card by card, left-right-left (Livermore rule 6). ``expose``: deal numbers (1..49)
    of cards that land face up. ``cards``: deal only this many (a short deal)."""

    do: Literal["deal"] = "deal"
    expose: list[Annotated[int, Field(ge=1, le=60)]] = Field(default_factory=list)
    cards: Annotated[int, Field(ge=1, le=60)] = 49
    card_time: Annotated[float, Field(gt=0.05, le=5)] = 0.3


class CountStub(_Action):
    """The dealer squares the piles and spreads the stub for counting (Livermore rule 55)."""

    do: Literal["count_stub"] = "count_stub"


class ReplaceExposed(_Action):
    """Rule 51: the exposed card is taken out and replaced by the first stub card."""

    do: Literal["replace_exposed"] = "replace_exposed"


class Misdeal(_Action):
    do: Literal["misdeal"] = "misdeal"
    reason: Annotated[str, Field(max_length=200)] = ""


class ActionPile(_Action):
    do: Literal["action_pile"] = "action_pile"
    pile: PileNo


class RollDice(_Action):
    do: Literal["roll_dice"] = "roll_dice"
    values: Annotated[list[Annotated[int, Field(ge=1, le=6)]], Field(min_length=3, max_length=3)]


class Deliver(_Action):
    """Each pile pushed to the seat the dice give (rules 8, 21); ``wrong`` sends piles elsewhere."""

    do: Literal["deliver"] = "deliver"
    wrong: dict[PileNo, SeatNo] = Field(default_factory=dict)
    pile_time: Annotated[float, Field(gt=0.05, le=5)] = 0.7


class CollectDead(_Action):
    """Hands delivered to seats without a wager go back to the dealer (rule 9)."""

    do: Literal["collect_dead"] = "collect_dead"


class SetHands(_Action):
    """Players set their hands face down, front (2) and back (5). ``seats``: which (default: every
    wagering seat not set yet); ``foul``: seats that set a foul hand; ``house_way``: the dealer sets
    them house way (after the banker's hand was exposed, rule 37)."""

    do: Literal["set_hands"] = "set_hands"
    seats: list[SeatNo] | None = None
    foul: list[SeatNo] = Field(default_factory=list)
    house_way: bool = False
    seat_time: Annotated[float, Field(gt=0.05, le=10)] = 1.0


class ExposeBanker(_Action):
    """The dealer turns the Player-Dealer's seven cards face up at the banker's place (rule 11)."""

    do: Literal["expose_banker"] = "expose_banker"


class SetBanker(_Action):
    """The Player-Dealer's setting: house way, or a foul one (rule 54)."""

    do: Literal["set_banker"] = "set_banker"
    foul: bool = False


class OpenHands(_Action):
    """The dealer turns each player's hand face up, in action order (rule 56)."""

    do: Literal["open_hands"] = "open_hands"
    seat_time: Annotated[float, Field(gt=0.05, le=10)] = 0.8


class ChangeBet(_Action):
    """A bettor changes the chips in a spot (to ``dollars``)."""

    do: Literal["change_bet"] = "change_bet"
    seat: SeatNo
    dollars: Annotated[int, Field(ge=0, le=100_000)]
    bettor: Annotated[str, Field(min_length=1, max_length=32)] | None = None


class Payouts(_Action):
    """Every wager settled in action order (rules 13, 23): paid, taken or pushed."""

    do: Literal["payouts"] = "payouts"


# ---- Hold'em ------------------------------------------------------------------------------------


class DealHoles(_Action):
    """Hole cards, one at a time from the button's left, face down; ``expose``: deal numbers shown."""

    do: Literal["deal_holes"] = "deal_holes"
    expose: list[Annotated[int, Field(ge=1, le=40)]] = Field(default_factory=list)
    card_time: Annotated[float, Field(gt=0.05, le=5)] = 0.3


class BurnCard(_Action):
    do: Literal["burn"] = "burn"


class Board(_Action):
    do: Literal["board"] = "board"
    street: Literal["flop", "turn", "river"]


class Fold(_Action):
    do: Literal["fold"] = "fold"
    seat: SeatNo


class ShowHands(_Action):
    do: Literal["show_hands"] = "show_hands"


class AwardPot(_Action):
    """The pot pushed to the best hand (split on a tie), as the rules give."""

    do: Literal["award_pot"] = "award_pot"
    dollars: Annotated[int, Field(ge=1, le=1_000_000)]


Action = Annotated[
    Shuffle
    | Wait
    | RoundEnd
    | RoundStart
    | Bet
    | NoMoreBets
    | Deal
    | CountStub
    | ReplaceExposed
    | Misdeal
    | ActionPile
    | RollDice
    | Deliver
    | CollectDead
    | SetHands
    | ExposeBanker
    | SetBanker
    | OpenHands
    | ChangeBet
    | Payouts
    | DealHoles
    | BurnCard
    | Board
    | Fold
    | ShowHands
    | AwardPot,
    Field(discriminator="do"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
ACTION_NAMES: tuple[str, ...] = tuple(sorted(m.model_fields["do"].default for m in _Action.__subclasses__()))
PAIGOW_ACTIONS = frozenset(
    {
        "shuffle",
        "wait",
        "round_end",
        "round_start",
        "bet",
        "no_more_bets",
        "deal",
        "count_stub",
        "replace_exposed",
        "misdeal",
        "action_pile",
        "roll_dice",
        "deliver",
        "collect_dead",
        "set_hands",
        "expose_banker",
        "set_banker",
        "open_hands",
        "change_bet",
        "payouts",
    }
)
HOLDEM_ACTIONS = frozenset(
    {
        "shuffle",
        "wait",
        "round_end",
        "round_start",
        "deal_holes",
        "burn",
        "board",
        "fold",
        "show_hands",
        "award_pot",
    }
)


class Habits(BaseModel):
    """How this room's dealer deals, where it differs from the renderer's usual dealer (docs/rounds.md).

    ``stub``: the four stub cards spread for counting, or left squared in one stack. ``hand_unseen``:
    deal numbers ``[first, last]`` dealt with the dealer's hand out of the camera's view (not drawn,
    not in the truth). ``bets_before_start``: the bets placed before no_more_bets are already down at
    the round's first frame (no arm places them). ``opened_on_circle``: each opened hand is laid face
    up across its seat's betting circle."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stub: Literal["spread", "squared"] = "spread"
    hand_unseen: Annotated[tuple[Annotated[int, Field(ge=1, le=60)], Annotated[int, Field(ge=1, le=60)]],
                           Field()] | None = None
    bets_before_start: bool = False
    opened_on_circle: bool = False

    @field_validator("hand_unseen")
    @classmethod
    def _stretch(cls, v: tuple[int, int] | None) -> tuple[int, int] | None:
        if v is not None and v[0] > v[1]:
            raise ValueError(f"first deal number {v[0]} is after the last {v[1]}")
        return v


class Script(BaseModel):
    """A whole round. ``expect_alerts``: the alert codes the procedure monitor must raise (with repeats)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(min_length=1, max_length=80)]
    description: str = ""
    game: Literal["paigow", "holdem"] = "paigow"
    table_id: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")] = "T1"
    profile: str = "livermore"
    design: str = "classic"
    table_style: str = "green"
    seed: int = 0  # jitter of where cards and chips land
    # the table: a layout file and the table file the chain reads (docs/renderer.md, "Other tables");
    # relative paths are read from the script's folder, then from the current one
    layout: Annotated[str, Field(min_length=1)] | None = None
    table: Annotated[str, Field(min_length=1)] | None = None
    habits: Habits = Field(default_factory=Habits)
    expect_alerts: list[str] = Field(default_factory=list)
    actions: list[Action] = Field(min_length=1)


def _loc(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(value)"


def _normalise(raw: Any, where: str, i: int) -> dict[str, Any]:
    fields: Any
    if isinstance(raw, str):
        name, fields = raw, {}
    elif isinstance(raw, dict) and len(raw) == 1:
        name, fields = next(iter(raw.items()))
        if fields is None:
            fields = {}
        if not isinstance(fields, dict):
            raise ScriptError(
                f"{where}: action {i} ({name}): its fields must be a mapping, got {type(fields).__name__}"
            )
    else:
        raise ScriptError(
            f"{where}: action {i}: an action is a name or a one-key mapping "
            f"{{name: {{fields}}}}, got {raw!r:.80}"
        )
    if not isinstance(name, str) or name not in ACTION_NAMES:
        raise ScriptError(f"{where}: action {i}: unknown action {name!r} (known: {', '.join(ACTION_NAMES)})")
    return {"do": name, **fields}


def parse_script(data: Any, source: str = "<script>") -> Script:
    """Validate parsed YAML into a :class:`Script`; errors name ``source``, the action and the field."""
    if not isinstance(data, dict):
        raise ScriptError(f"{source}: a script is a mapping at the top, got {type(data).__name__}")
    raw_actions = data.get("actions")
    if not isinstance(raw_actions, list) or not raw_actions:
        raise ScriptError(f"{source}: 'actions' must be a non-empty list of actions")
    actions = []
    for i, raw in enumerate(raw_actions):
        norm = _normalise(raw, source, i)
        try:
            actions.append(ACTION_ADAPTER.validate_python(norm))
        except ValidationError as e:
            problems = "; ".join(f"{_loc(tuple(err['loc'])[1:])}: {err['msg']}" for err in e.errors())
            raise ScriptError(f"{source}: action {i} ({norm['do']}): {problems}") from None
    header = {k: v for k, v in data.items() if k != "actions"}
    try:
        script = Script.model_validate({**header, "actions": actions})
    except ValidationError as e:
        problems = "; ".join(f"{_loc(tuple(err['loc']))}: {err['msg']}" for err in e.errors())
        raise ScriptError(f"{source}: {problems}") from None
    allowed = PAIGOW_ACTIONS if script.game == "paigow" else HOLDEM_ACTIONS
    for i, a in enumerate(script.actions):
        if a.do not in allowed:
            raise ScriptError(
                f"{source}: action {i} ({a.do}): not an action of a {script.game} round "
                f"(allowed: {', '.join(sorted(allowed))})"
            )
    _check_codes(script, source)
    return script


def _check_codes(script: Script, source: str) -> None:
    from monitor.alerts.catalog import CATALOG

    for j, code in enumerate(script.expect_alerts):
        if code not in CATALOG:
            raise ScriptError(f"{source}: expect_alerts.{j}: {code!r} is not an alert code of the catalog")


def load_script(path: str | Path) -> Script:
    """Read and validate a script file."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except OSError as e:
        raise ScriptError(f"cannot read round script {p}: {e.strerror or e}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ScriptError(f"{p}: not valid YAML: {e}") from None
    return parse_script(data, str(p))


def script_to_yaml(script: Script) -> str:
    """The script as YAML in the same form a person writes (bare names for actions without fields)."""
    doc = script.model_dump(exclude={"actions"}, exclude_defaults=True)
    doc["name"] = script.name
    if "habits" in doc:  # its stretch is a tuple, which safe YAML cannot write
        doc["habits"] = script.habits.model_dump(mode="json", exclude_defaults=True)
    actions: list[Any] = []
    for a in script.actions:
        fields = a.model_dump(exclude={"do"}, exclude_defaults=True)
        actions.append(a.do if not fields else {a.do: fields})
    doc["actions"] = actions
    return yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=110)


def shipped_scripts() -> dict[str, Path]:
    """The scripts that ship in ``monitor/render/rounds/scripts``, by name."""
    folder = Path(__file__).with_name("scripts")
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}
