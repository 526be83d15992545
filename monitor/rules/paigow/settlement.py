"""Settlement of one Pai Gow hand in action order. Money is integer cents throughout.

What the seeds say, and how it is done here:

* Livermore rule 16: collection is taken in advance for each bet - from each bettor and, when
  ``profile.banker_pays_collection``, from the Player-Dealer's wager - by ``profile.collection_fee``
  (the S&K schedule is the default sample). Rule 63: free collection for the first
  ``profile.free_collection_hands`` hands of a new game (pass ``hand_number_in_game``). The fee is
  charged on the part of a bet that can play (at most the table maximum).
* Rule 19: any amount over the table maximum gets no action (``no_action``; it goes back to the bettor).
  The maximum applies to each individual bet (rule 20); the Player-Dealer's wager is not capped.
* Rules 13, 21, 23: bets are settled one at a time clockwise (``profile.action_direction``) from the seat
  holding the action button. Each bet is covered only by what is left of the Player-Dealer's money in
  action; a win or loss removes the covered amount from action, a push removes nothing. The part of a
  bet not covered is returned (``returned``), as is the Player-Dealer's money that never got action.
  Nobody wins or loses more than he bet (rule 23).
* Rules 26, 28: on a spot with several bettors the one with the most money in action is the active
  bettor (ties: the seated player, then the first listed); he is settled first, then the backline bettors,
  largest first. Rule 49: a foul loses for the active bettor, while the backline bettors are settled on
  the hand set the house way (``SpotResult.backline_outcome``).

Every party's cash change is ``won - lost - collected``; with the banker's line and the house's line the
changes sum to zero, and each line's chips add up (``wager == action + returned + no_action``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from monitor.rules.paigow.dice import action_order, check_seat
from monitor.rules.paigow.errors import SettlementError
from monitor.rules.paigow.showdown import Outcome, SpotResult
from monitor.rules.profile import PaiGowProfile


@dataclass(frozen=True, slots=True)
class Bet:
    """Money one bettor put in one betting spot (``amount`` in cents)."""

    bettor: str
    seat: int
    amount: int
    seated: bool = False


@dataclass(frozen=True, slots=True)
class BankerWager:
    """The Player-Dealer's money at risk this hand (rule 13)."""

    bettor: str
    seat: int
    amount: int


class Role(StrEnum):
    ACTIVE = "active"
    BACKLINE = "backline"
    BANKER = "banker"
    HOUSE = "house"


class LineResult(StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    FOUL = "foul"
    NO_ACTION = "no action"
    BANK = "bank"
    COLLECTION = "collection"


class LedgerLine(NamedTuple):
    """One line of the settlement. All amounts are non-negative cents; ``net`` is the party's cash change.

    Immutable like the other records here, but a named tuple: a hand makes a line per bet, and building a
    frozen dataclass (a guarded ``__setattr__`` per field) cost about five times as much."""

    order: int
    party: str
    role: Role
    seat: int | None
    wager: int
    collected: int
    no_action: int
    returned: int
    action: int
    won: int
    lost: int
    result: LineResult
    rule: str
    banker_left: int
    under_minimum: bool = False

    @property
    def net(self) -> int:
        if self.role is Role.HOUSE:
            return self.collected
        return self.won - self.lost - self.collected


@dataclass(frozen=True, slots=True)
class Settlement:
    """The ledger of one hand: bettors' lines in action order, then the banker's and the house's."""

    lines: tuple[LedgerLine, ...]
    banker: LedgerLine
    house: LedgerLine

    @property
    def all_lines(self) -> tuple[LedgerLine, ...]:
        return (*self.lines, self.banker, self.house)

    def nets(self) -> dict[str, int]:
        """Cash change per party (a party betting on several spots is summed)."""
        out: dict[str, int] = {}
        for line in self.all_lines:
            out[line.party] = out.get(line.party, 0) + line.net
        return out

    def total(self) -> int:
        """Sum of every cash change: always 0."""
        return sum(line.net for line in self.all_lines)


HOUSE_PARTY = "house"


def _check_amount(amount: int, what: str) -> None:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise SettlementError(f"{what} must be a non-negative whole number of cents, got {amount!r}")


def order_spot_bets(bets: Sequence[Bet]) -> list[Bet]:
    """Active bettor first (most money, then seated, then listed first - rules 26, 28), then the backline."""
    indexed = list(enumerate(bets))
    indexed.sort(key=lambda ib: (-ib[1].amount, not ib[1].seated, ib[0]))
    return [b for _, b in indexed]


# A line's result for a showdown outcome (an enum built by value per line was a tenth of ``settle``).
_RESULT_OF: dict[Outcome, LineResult] = {o: LineResult(o.value) for o in Outcome}


def settle(
    profile: PaiGowProfile,
    banker: BankerWager,
    bets: Sequence[Bet],
    results: Mapping[int, SpotResult],
    action_seat: int,
    hand_number_in_game: int | None = None,
) -> Settlement:
    """Settle one hand. ``results`` maps each seat with a bet to its :class:`SpotResult`;
    ``action_seat`` is the seat that received the action pile (rule 21)."""
    _check_amount(banker.amount, f"banker {banker.bettor!r} wager")
    check_seat(banker.seat, profile, "banker seat")
    n_seats = profile.seats
    by_seat: dict[int, list[Bet]] = {}
    for b in bets:
        amount, seat = b.amount, b.seat
        # The common case checked inline; the check functions word the error otherwise.
        if type(amount) is not int or amount < 0:
            _check_amount(amount, f"bet of {b.bettor!r} on seat {seat}")
        if type(seat) is not int or not 1 <= seat <= n_seats:
            check_seat(seat, profile, f"seat of {b.bettor!r}'s bet")
        if seat == banker.seat:
            raise SettlementError(
                f"bet of {b.bettor!r} is on the banker's seat {seat}; the banker's money is the BankerWager"
            )
        if seat not in results:
            raise SettlementError(f"no showdown result for seat {seat} (bet of {b.bettor!r})")
        spot = by_seat.get(seat)
        if spot is None:
            by_seat[seat] = [b]
        else:
            spot.append(b)
    for seat, res in results.items():
        if res.seat != seat:
            raise SettlementError(f"result filed under seat {seat} is for seat {res.seat}")

    table_max, table_min = profile.table_max, profile.table_min
    collection_fee = profile.collection_fee
    fee_of: dict[int, int] = {}  # the fee schedule is a walk over tiers; many bets share an amount
    left = banker.amount
    won_by_banker = 0
    lost_by_banker = 0
    fees = 0
    lines: list[LedgerLine] = []
    for seat in action_order(action_seat, banker.seat, profile):
        spot = by_seat.get(seat)
        if not spot:
            continue
        res = results[seat]
        seat_foul = res.foul is not None
        for k, bet in enumerate(order_spot_bets(spot) if len(spot) > 1 else spot):
            active = k == 0
            amount = bet.amount
            no_action = amount - table_max if amount > table_max else 0
            playable = amount - no_action
            if playable > 0:
                fee = fee_of.get(playable)
                if fee is None:
                    fee = fee_of[playable] = collection_fee(playable, hand_number_in_game)
            else:
                fee = 0
            fees += fee
            outcome = res.outcome if active else res.backline_outcome
            foul = active and seat_foul
            covered = playable if playable < left else left
            returned = playable - covered
            won = lost = 0
            if covered == 0:
                result = LineResult.NO_ACTION
                rule = "seed 000 rules 13, 19" if no_action else "seed 000 rule 13"
            else:
                result = LineResult.FOUL if foul else _RESULT_OF[outcome]
                if outcome is Outcome.WIN:
                    won = covered
                elif outcome is Outcome.LOSE:
                    lost = covered
                if outcome is not Outcome.PUSH:
                    left -= covered
                rule = "seed 000 rule 49" if seat_foul else "seed 000 rules 2, 13, 62"
            lost_by_banker += won
            won_by_banker += lost
            lines.append(LedgerLine(
                len(lines) + 1, bet.bettor, Role.ACTIVE if active else Role.BACKLINE, seat, amount, fee,
                no_action, returned, covered, won, lost, result, rule, left, 0 < amount < table_min,
            ))
    banker_fee = (
        profile.collection_fee(banker.amount, hand_number_in_game)
        if profile.banker_pays_collection and banker.amount > 0
        else 0
    )
    fees += banker_fee
    banker_line = LedgerLine(
        order=0,
        party=banker.bettor,
        role=Role.BANKER,
        seat=banker.seat,
        wager=banker.amount,
        collected=banker_fee,
        no_action=0,
        returned=left,
        action=banker.amount - left,
        won=won_by_banker,
        lost=lost_by_banker,
        result=LineResult.BANK,
        rule="seed 000 rule 13",
        banker_left=left,
    )
    house_line = LedgerLine(
        order=0,
        party=HOUSE_PARTY,
        role=Role.HOUSE,
        seat=None,
        wager=0,
        collected=fees,
        no_action=0,
        returned=0,
        action=0,
        won=0,
        lost=0,
        result=LineResult.COLLECTION,
        rule="seed 000 rules 16, 63",
        banker_left=left,
    )
    return Settlement(tuple(lines), banker_line, house_line)
