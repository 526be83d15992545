"""The games of the Poker Games rulebook and their showdown: who wins what share of each pot, and why.

Games: Texas Hold'em (high, and hi-lo eight or better), Omaha (high, and hi-lo eight or
better), Pineapple, and Lo-Ball (ace-to-five with one joker, one draw).

Players are given in seat order starting left of the button; that order breaks odd-chip ties
when the profile says so. Amounts are integers (cents). A showdown needs the complete board.

>>> from monitor.rules.cards import parse_cards as p
>>> r = showdown("holdem_hilo", p("Ah 2d 7c Kd 9s"), {"s1": p("3c 4c"), "s2": p("Ac Kc")}, pot=1000)
>>> sorted(r.won.items())
[('s1', 500), ('s2', 500)]
>>> print(r.pots[0].reason)
pot 1000: high to s2 with two pair, aces and kings, nine high (Ac Kc Ah Kd 9s) 500; \
low to s1 with 7-4-3-2-A (3c 4c Ah 2d 7c) 500
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations

from monitor.rules.cards import Card, format_cards
from monitor.rules.errors import CardCountError, DuplicateCardError, RulesError
from monitor.rules.games import high
from monitor.rules.games.deal import DealStructure, board_game_structure, draw_game_structure
from monitor.rules.games.deck import LOWBALL_DECK, STANDARD_DECK, Deck
from monitor.rules.games.low import (
    LowValue,
    eight_score_any,
    eight_score_omaha,
    evaluate_low,
    low_mask,
    value_of_score,
)
from monitor.rules.games.profile import DEFAULT_GAME_PROFILE, GameProfile, HoleCardUse, PokerRules
from monitor.rules.games.split import halves, odd_chip_order, split
from monitor.rules.hands import HandValue


class LowRule(StrEnum):
    NONE = "none"
    EIGHT_OR_BETTER = "eight_or_better"  # half the pot, if any hand qualifies
    ACE_TO_FIVE = "ace_to_five"  # Lo-Ball: the whole pot to the lowest hand


@dataclass(frozen=True, slots=True)
class PokerGame:
    key: str
    title: str
    hole: int
    board: int
    high: bool
    low: LowRule
    use: HoleCardUse
    seed_ref: str

    def uses(self, profile: GameProfile) -> HoleCardUse:
        if self.key == "holdem_hilo":
            return profile.poker.holdem_hilo_hole_cards
        return self.use

    def deck(self, profile: GameProfile) -> Deck:
        if self.low is LowRule.ACE_TO_FIVE and profile.poker.lowball_jokers:
            return LOWBALL_DECK
        return STANDARD_DECK

    def deal_structure(self, profile: GameProfile = DEFAULT_GAME_PROFILE) -> DealStructure:
        rules = profile.poker
        if self.board:
            return board_game_structure(self.key, self.deck(profile), self.hole, rules.burn_before_board,
                                        self.seed_ref)
        return draw_game_structure(self.key, self.deck(profile), self.hole, rules.lowball_max_draw,
                                   rules.burn_before_draw)


_ANY, _TWO = HoleCardUse.ANY, HoleCardUse.EXACTLY_TWO
GAMES: dict[str, PokerGame] = {
    g.key: g
    for g in (
        PokerGame("holdem", "Texas Hold'em", 2, 5, True, LowRule.NONE, _ANY, "seed 004 Texas Hold'em"),
        PokerGame("holdem_hilo", "Texas Hold'em hi-lo", 2, 5, True, LowRule.EIGHT_OR_BETTER, _ANY,
                  "seed 004 Texas Hold'em (hi-low split)"),
        PokerGame("omaha", "Omaha", 4, 5, True, LowRule.NONE, _TWO, "seed 004 Omaha (High)"),
        PokerGame("omaha_hilo", "Omaha hi-lo 8 or better", 4, 5, True, LowRule.EIGHT_OR_BETTER, _TWO,
                  "seed 004 Omaha Hi-Low 8 or Better"),
        PokerGame("pineapple", "Pineapple", 3, 5, True, LowRule.NONE, _ANY, "seed 004 Pineapple"),
        PokerGame("lowball", "Lo-Ball", 5, 0, False, LowRule.ACE_TO_FIVE, _ANY, "seed 004 Lo-Ball"),
    )
}


def game(key: str) -> PokerGame:
    try:
        return GAMES[key]
    except KeyError:
        raise RulesError(f"unknown poker game {key!r} (games: {', '.join(GAMES)})") from None


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot and who may win it (None: every player at the showdown); side pots list their players."""

    amount: int
    eligible: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class HandResult:
    player: str
    hole: tuple[Card, ...]
    board: tuple[Card, ...]
    use: HoleCardUse
    high: HandValue | None
    low: LowValue | None  # None: no low rule, or no qualifying low

    def high_five(self) -> tuple[Card, ...]:
        """The five cards that make the high hand (found on demand: only winners are shown)."""
        assert self.high is not None
        if self.use is HoleCardUse.ANY:
            return high.five_for_any((*self.hole, *self.board), self.high.score)
        return high.five_for_omaha(self.hole, self.board, self.high.score)

    def low_five(self) -> tuple[Card, ...]:
        assert self.low is not None
        if not self.board:
            return self.hole
        if self.use is HoleCardUse.ANY:
            return _low_five_any((*self.hole, *self.board), self.low.score)
        return _low_five_omaha(self.hole, self.board, self.low.score)

    def describe_high(self) -> str:
        assert self.high is not None
        return f"{self.high.name} ({format_cards(self.high_five())})"

    def describe_low(self) -> str:
        assert self.low is not None
        return f"{self.low.name} ({format_cards(self.low_five())})"


@dataclass(frozen=True, slots=True)
class PotResult:
    amount: int
    eligible: tuple[str, ...]
    high_winners: tuple[str, ...]
    low_winners: tuple[str, ...]
    shares: Mapping[str, int]
    reason: str


@dataclass(frozen=True, slots=True)
class Showdown:
    game: str
    board: tuple[Card, ...]
    hands: Mapping[str, HandResult]
    pots: tuple[PotResult, ...]

    @property
    def won(self) -> dict[str, int]:
        """Total each player takes from all pots (players who win nothing are left out)."""
        out: dict[str, int] = {}
        for p in self.pots:
            for who, amount in p.shares.items():
                out[who] = out.get(who, 0) + amount
        return out

    @property
    def reason(self) -> str:
        return "; ".join(p.reason for p in self.pots)

    def check_payout(self, paid: Mapping[str, int]) -> tuple[str, ...]:
        """Differences between what was paid and what the showdown gives, one line per player.

        An empty tuple means the pots went to the right hands in the right shares (the
        "pot awarded to the wrong hand or a hi-lo split done wrong" alert when not).
        """
        due = self.won
        out = []
        for who in sorted(set(due) | set(paid), key=lambda w: (w not in self.hands, w)):
            if who not in self.hands:
                out.append(f"{who} was paid {paid[who]} but has no hand at the showdown")
            elif paid.get(who, 0) != due.get(who, 0):
                out.append(f"{who} was paid {paid.get(who, 0)}, the showdown gives {due.get(who, 0)}")
        if out:
            out.append(f"showdown: {self.reason}")
        return tuple(out)


def _check_cards(g: PokerGame, board: Sequence[Card], hands: Mapping[str, Sequence[Card]],
                 profile: GameProfile) -> tuple[tuple[Card, ...], dict[str, tuple[Card, ...]]]:
    deck = g.deck(profile)
    if len(board) != g.board:
        raise CardCountError(
            f"{g.title} showdown needs a board of {g.board} cards, got {len(board)}: "
            f"{format_cards(board) or '(none)'}"
        )
    if not hands:
        raise CardCountError(f"{g.title} showdown needs at least one hand")
    for who, cs in hands.items():
        if len(cs) != g.hole:
            raise CardCountError(
                f"{who} shows {len(cs)} cards, {g.title} hands are {g.hole}: {format_cards(cs) or '(none)'}"
            )
    b = tuple(board)
    out = {who: tuple(cs) for who, cs in hands.items()}
    try:
        table = (*b, *(c for cs in out.values() for c in cs))
        deck.check(table, f"the {g.title} table (board and all hands)")
    except RulesError:
        # Name the place: the board or a hand on its own, else the places that share a card.
        deck.check(b, f"{g.title} board")
        for who, cs in out.items():
            deck.check(cs, f"{who}'s {g.title} hand")
        places: dict[Card, list[str]] = {}
        for where, cs in (("the board", b), *((f"{w}'s hand", cs) for w, cs in out.items())):
            for c in cs:
                places.setdefault(c, []).append(where)
        shared = "; ".join(f"{c} in {' and '.join(ws)}" for c, ws in sorted(places.items()) if len(ws) > 1)
        raise DuplicateCardError(f"the {g.title} table: the same card in two places: {shared}") from None
    return b, out


def _low_five_any(cards: Sequence[Card], score: int) -> tuple[Card, ...]:
    for five in combinations(cards, 5):
        if len({c.rank for c in five}) == 5 and eight_score_any(low_mask(five)) == score:
            return five
    raise RulesError(f"no five cards make low score {score}")  # unreachable for a score from these cards


def _low_five_omaha(hole: Sequence[Card], board: Sequence[Card], score: int) -> tuple[Card, ...]:
    for pair in combinations(hole, 2):
        for tri in combinations(board, 3):
            five = (*pair, *tri)
            if len({c.rank for c in five}) == 5 and eight_score_any(low_mask(five)) == score:
                return five
    raise RulesError(f"no two hole and three board cards make low score {score}")


def evaluate_hand(g: PokerGame, who: str, hole: tuple[Card, ...], board: tuple[Card, ...],
                  profile: GameProfile) -> HandResult:
    use = g.uses(profile)
    hi: HandValue | None = None
    if g.high:
        s = high.score_any((*hole, *board)) if use is HoleCardUse.ANY else high.score_omaha(hole, board)
        hi = high.value_of(s)
    lo: LowValue | None = None
    if g.low is LowRule.ACE_TO_FIVE:
        lo = evaluate_low(hole)
    elif g.low is LowRule.EIGHT_OR_BETTER:
        if use is HoleCardUse.ANY:
            ls = eight_score_any(low_mask((*hole, *board)))
        else:
            ls = eight_score_omaha([low_mask((c,)) for c in hole], low_mask(board))
        lo = value_of_score(ls) if ls else None
    return HandResult(who, hole, board, use, hi, lo)


def _best(players: Sequence[str], score: Mapping[str, int]) -> tuple[str, ...]:
    top = max(score[p] for p in players)
    return tuple(p for p in players if score[p] == top)


def showdown(
    game_key: str,
    board: Sequence[Card],
    hands: Mapping[str, Sequence[Card]],
    pot: int | None = None,
    pots: Sequence[Pot] | None = None,
    profile: GameProfile = DEFAULT_GAME_PROFILE,
) -> Showdown:
    """Judge a showdown: give ``pot`` (one pot for everyone) or ``pots`` (main and side pots)."""
    g = game(game_key)
    rules = profile.poker
    if (pot is None) == (pots is None):
        raise RulesError("give either one pot amount or a list of pots")
    pot_list = [Pot(pot)] if pot is not None else list(pots or ())
    b, cards = _check_cards(g, board, hands, profile)
    seats = list(cards)
    results = {who: evaluate_hand(g, who, cs, b, profile) for who, cs in cards.items()}
    hi_score = {w: r.high.score for w, r in results.items() if r.high is not None}
    lo_score = {w: r.low.score for w, r in results.items() if r.low is not None}
    out: list[PotResult] = []
    for i, p in enumerate(pot_list):
        name = "pot" if len(pot_list) == 1 else ("main pot" if i == 0 else f"side pot {i}")
        if p.amount < 0:
            raise RulesError(f"{name} amount must not be negative, got {p.amount}")
        eligible = tuple(seats) if p.eligible is None else p.eligible
        unknown = [w for w in eligible if w not in cards]
        if unknown or not eligible:
            raise RulesError(
                f"{name}: eligible players {', '.join(unknown) or '(none)'} have no hand at the showdown"
            )
        eligible = tuple(sorted(eligible, key=seats.index))
        out.append(_award(g, name, p.amount, eligible, results, hi_score, lo_score, seats, cards, rules))
    return Showdown(g.key, b, results, tuple(out))


def _award(
    g: PokerGame,
    name: str,
    amount: int,
    eligible: tuple[str, ...],
    results: Mapping[str, HandResult],
    hi_score: Mapping[str, int],
    lo_score: Mapping[str, int],
    seats: list[str],
    cards: dict[str, tuple[Card, ...]],
    rules: PokerRules,
) -> PotResult:
    """One pot: high winners, low winners (if any qualify), each share and the reason."""

    def order(ws: tuple[str, ...]) -> list[str]:
        return odd_chip_order(ws, seats, cards, rules)

    def parts(label: str, ws: tuple[str, ...], sh: dict[str, int]) -> str:
        tie = " (tie)" if len(ws) > 1 else ""

        def show(w: str) -> str:
            r = results[w]
            return r.describe_low() if label == "low" else r.describe_high()

        return "; ".join(f"{label} to {w} with {show(w)} {sh[w]}{tie}" for w in order(ws))

    shares: dict[str, int] = {}
    if g.low is LowRule.ACE_TO_FIVE:
        lows = _best(eligible, lo_score)
        shares = split(amount, order(lows), rules)
        reason = f"{name} {amount}: " + parts("low", lows, shares)
        return PotResult(amount, eligible, (), lows, shares, reason)
    highs = _best(eligible, hi_score)
    qualified = tuple(w for w in eligible if w in lo_score)
    if g.low is LowRule.NONE or not qualified:
        shares = split(amount, order(highs), rules)
        reason = f"{name} {amount}: " + parts("high", highs, shares)
        if g.low is LowRule.EIGHT_OR_BETTER:
            reason += " (no qualifying low, eight or better: high scoops)"
        return PotResult(amount, eligible, highs, (), shares, reason)
    lows = _best(qualified, lo_score)
    hi_half, lo_half = halves(amount, rules)
    hi_sh = split(hi_half, order(highs), rules)
    lo_sh = split(lo_half, order(lows), rules)
    for part in (hi_sh, lo_sh):
        for w, v in part.items():
            shares[w] = shares.get(w, 0) + v
    reason = (
        f"{name} {amount}: "
        + parts("high", highs, hi_sh)
        + "; "
        + parts("low", lows, lo_sh)
    )
    if set(highs) == set(lows) and len(highs) == 1:
        reason += f" ({highs[0]} scoops)"
    return PotResult(amount, eligible, highs, lows, shares, reason)
