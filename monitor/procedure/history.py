"""Hand histories: what happened in one round, as the monitor understood it.

One record per round (closed by ``round_ended``, by the next ``round_started``, or at the end
of a replay): who banked, the dice, the action pile, each seat's cards, setting, outcome and
money, and the alerts raised in the round. JSON-serialisable (pydantic) for the store and API.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from monitor.events.schema import Game


class WagerRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bettor: str | None = Field(description="None: the seat's own player; else a backline bettor")
    amount: int = Field(description="cents in action as at no more bets")
    result: str | None = Field(default=None, description="win, lose, push, foul, no action (settlement)")
    expected: int | None = Field(default=None, description="settlement in action order: + paid, - taken")
    paid: int | None = Field(default=None, description="what the dealer actually settled (payout event)")


class SeatRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int
    pile: int | None = None
    dealt: list[str | None] = Field(default_factory=list, description="the pile's cards as dealt, if seen")
    front: list[str | None] | None = None
    back: list[str | None] | None = None
    house_way: bool = False
    foul: str | None = None
    house_way_setting: str | None = Field(default=None, description="for backline bettors after a foul")
    outcome: str | None = None
    dead: bool = Field(default=False, description="no wager: the hand is collected (rule 9)")
    collected: bool = False
    wagers: list[WagerRecord] = Field(default_factory=list)


class BankerRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int | None = None
    wager: int | None = None
    cards: list[str] = Field(default_factory=list)
    front: list[str] | None = None
    back: list[str] | None = None
    foul: str | None = None
    plays: str | None = Field(default=None, description="the setting that plays (house way after a foul)")
    money_left: int | None = Field(default=None, description="banker money not reached by action")


class PaiGowHistory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table_id: str
    round_id: str
    game: Game = Game.PAIGOW
    complete: bool = Field(description="closed by round_ended (False: cut short)")
    media_begin: float
    media_end: float
    deals: int = 1
    misdeals: list[str] = Field(default_factory=list)
    stub: int | None = None
    stub_not_counted: str | None = Field(
        default=None,
        description="why a deal's stub was not counted, so rule 55 not judged ('squared', 'not seen', "
                    "'unreadable (...)' as the camera said it, stub_not_countable; 'no count reported'); "
                    "the last deal of the round with none")
    exposed: list[str] = Field(default_factory=list)
    action_pile: int | None = None
    dice: list[int] | None = None
    action_seat: int | None = None
    banker: BankerRecord
    seats: list[SeatRecord] = Field(default_factory=list)
    settlement_note: str | None = None
    deal_note: str | None = None
    alerts: list[str] = Field(default_factory=list, description="alert ids raised in this round")
    alert_codes: list[str] = Field(default_factory=list)
    profile: str | None = Field(default=None, description="the rule profile that judged the round (its name)")


class PokerSeatRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int
    hole: list[str | None] = Field(default_factory=list)
    folded: bool = False
    shown: list[str] | None = None
    hand: str | None = Field(default=None, description="best high hand at showdown")
    low: str | None = None
    awarded: int = 0
    expected: int | None = None


class PokerHistory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table_id: str
    round_id: str
    game: Game
    complete: bool
    media_begin: float
    media_end: float
    button_seat: int | None = None
    burns: int = 0
    board: list[str] = Field(default_factory=list)
    pot: int | None = None
    seats: list[PokerSeatRecord] = Field(default_factory=list)
    showdown_note: str | None = None
    alerts: list[str] = Field(default_factory=list)
    alert_codes: list[str] = Field(default_factory=list)
    profile: str | None = Field(default=None, description="the rule profile that judged the round (its name)")


HandHistory = PaiGowHistory | PokerHistory
