"""Pan (Panguingue), Poker Games "PAN": melds ("valid conditions"), foul hands, going out, the house rate.

The Pan deck has no 8, 9 or 10, so its ranks in order are A 2 3 4 5 6 7 J Q K and a seven
and a jack are adjacent in a run. Several decks are shuffled together, so the same card may
legitimately appear more than once, up to the number of decks (profile ``pan.decks``).

>>> from monitor.rules.cards import parse_cards
>>> check_meld(parse_cards("7h Jh Qh")).kind
<MeldKind.RUN: 'run'>
>>> check_meld(parse_cards("4h 4h 4h")).kind
<MeldKind.SET_ONE_SUIT: 'set_one_suit'>
>>> print(check_meld(parse_cards("Kh Ah 2h")).reason)
not a valid condition: K A 2 of hearts is not in sequence (aces are low: A 2 3 ... 7 J Q K)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from monitor.rules.cards import SUIT_NAMES, Card, format_cards
from monitor.rules.errors import CardCountError, RulesError
from monitor.rules.games.deal import DealStep, DealStructure, StepKind
from monitor.rules.games.deck import PAN_RANKS, pan_deck
from monitor.rules.games.profile import DEFAULT_GAME_PROFILE, GameProfile, PanMixedSet

# Position of each rank in the Pan sequence: A=0, 2=1 ... 7=6, J=7, Q=8, K=9.
SEQUENCE: dict[int, int] = {r: i for i, r in enumerate(PAN_RANKS)}
_TEXT = {14: "A", 11: "J", 12: "Q", 13: "K"}


def _rt(rank: int) -> str:
    return _TEXT.get(rank, str(rank))


class MeldKind(StrEnum):
    SET_ONE_SUIT = "set_one_suit"  # seed (a): "three 4's of hearts is a valid spread"
    SET_MIXED_SUITS = "set_mixed_suits"  # seed (a): "4 of diamonds, 4 of hearts, 4 of spades"
    RUN = "run"  # seed (b): "3-4-5 of hearts", "7JQ in the same suit"


@dataclass(frozen=True, slots=True)
class MeldCheck:
    cards: tuple[Card, ...]
    kind: MeldKind | None  # None: not a valid condition
    reason: str

    @property
    def valid(self) -> bool:
        return self.kind is not None


def check_meld(cards: Sequence[Card], profile: GameProfile = DEFAULT_GAME_PROFILE) -> MeldCheck:
    """Is this group of cards a valid condition (Poker Games Pan definitions (a) and (b))?"""
    cs = tuple(cards)
    pan_deck(profile.pan.decks).check(cs, f"meld {format_cards(cs)}")
    text = format_cards(cs)

    def bad(why: str) -> MeldCheck:
        return MeldCheck(cs, None, f"not a valid condition: {why}")

    if len(cs) < 3:
        return bad(f"{text} has {len(cs)} card(s); a condition needs three or more")
    ranks = {c.rank for c in cs}
    suits = Counter(c.suit for c in cs)
    if len(ranks) == 1:
        rank = _rt(cs[0].rank)
        if len(suits) == 1:
            suit = SUIT_NAMES[cs[0].suit]
            return MeldCheck(cs, MeldKind.SET_ONE_SUIT, f"set of {len(cs)} {rank}s, all {suit}")
        if profile.pan.mixed_set is PanMixedSet.ALL_DIFFERENT:
            if max(suits.values()) > 1:
                repeated = ", ".join(SUIT_NAMES[s] for s, n in sorted(suits.items()) if n > 1)
                return bad(f"set {text} mixes suits but repeats {repeated} (a mixed set needs all different)")
        elif len(suits) < 3:
            return bad(f"set {text} is in {len(suits)} suits; it must be one suit or three or more suits")
        return MeldCheck(cs, MeldKind.SET_MIXED_SUITS, f"set of {len(cs)} {rank}s in {len(suits)} suits")
    if len(suits) != 1:
        return bad(f"{text} is neither one rank (a set) nor one suit (a run)")
    suit = SUIT_NAMES[cs[0].suit]
    positions = sorted(SEQUENCE[c.rank] for c in cs)
    if len(set(positions)) != len(positions):
        dup = ", ".join(_rt(PAN_RANKS[p]) for p, n in Counter(positions).items() if n > 1)
        return bad(f"run of {suit} repeats {dup}")
    if positions[-1] - positions[0] != len(positions) - 1:
        shown = " ".join(_rt(c.rank) for c in cs)
        return bad(f"{shown} of {suit} is not in sequence (aces are low: A 2 3 ... 7 J Q K)")
    run = " ".join(_rt(PAN_RANKS[p]) for p in positions)
    return MeldCheck(cs, MeldKind.RUN, f"run {run} of {suit}")


@dataclass(frozen=True, slots=True)
class PanHand:
    """A player's cards at one moment: those held and the melds on the table in front of him."""

    held: tuple[Card, ...]
    melds: tuple[tuple[Card, ...], ...] = ()

    @property
    def melded(self) -> int:
        return sum(len(m) for m in self.melds)

    @property
    def total(self) -> int:
        return len(self.held) + self.melded

    def cards(self) -> tuple[Card, ...]:
        return (*self.held, *(c for m in self.melds for c in m))


@dataclass(frozen=True, slots=True)
class HandCheck:
    player: str
    melds: tuple[MeldCheck, ...]
    won: bool
    fouls: tuple[str, ...]
    invalid_melds: tuple[MeldCheck, ...]

    @property
    def fouled(self) -> bool:
        return bool(self.fouls)


def check_hand(player: str, hand: PanHand, profile: GameProfile = DEFAULT_GAME_PROFILE) -> HandCheck:
    """Count and meld check of one hand (Poker Games Pan rule 5 and "FOUL HANDS")."""
    rules = profile.pan
    pan_deck(rules.decks).check(hand.cards(), f"{player}'s Pan hand")
    melds = tuple(check_meld(m, profile) for m in hand.melds)
    invalid = tuple(m for m in melds if not m.valid)
    won = not invalid and hand.melded == rules.winning_meld and not hand.held
    fouls: list[str] = []
    if hand.total != rules.hand_size and not won:
        fouls.append(
            f"{player} has {hand.total} cards in all ({len(hand.held)} held, {hand.melded} melded): "
            f"a hand must total {rules.hand_size} unless {rules.winning_meld} are melded to go out "
            "(Pan foul hands)"
        )
    return HandCheck(player, melds, won, tuple(fouls), invalid)


class DrawSource(StrEnum):
    STOCK = "stock"
    # Poker Games Pan rule 4: "MAY USE a card drawn and not played by the prior player".
    PRIOR_DRAW = "prior_draw"
    # "... but he MAY NOT USE a card discarded from the prior player's hand".
    PRIOR_HAND_DISCARD = "prior_hand_discard"


@dataclass(frozen=True, slots=True)
class TurnCheck:
    player: str
    fouls: tuple[str, ...]
    violations: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.fouls and not self.violations


def check_turn(
    player: str,
    before: PanHand,
    drawn: Card,
    after: PanHand,
    discarded: Card | None,
    source: DrawSource = DrawSource.STOCK,
    profile: GameProfile = DEFAULT_GAME_PROFILE,
) -> TurnCheck:
    """Judge one turn of Poker Games Pan rule 4: draw, meld if the card can be used, discard."""
    deck = pan_deck(profile.pan.decks)
    deck.check((*before.cards(), drawn), f"{player}'s hand before the turn")
    deck.check(after.cards(), f"{player}'s hand after the turn")
    fouls: list[str] = []
    violations: list[str] = []
    if source is DrawSource.PRIOR_HAND_DISCARD:
        violations.append(
            f"{player} took {drawn}, a card discarded from the prior player's hand (Pan rule 4)"
        )
    went_in = (*before.cards(), drawn)
    came_out = (*after.cards(), *((discarded,) if discarded is not None else ()))
    if Counter(went_in) != Counter(came_out):
        missing = Counter(went_in) - Counter(came_out)
        extra = Counter(came_out) - Counter(went_in)
        gone = format_cards(sorted(missing.elements())) or "none"
        more = format_cards(sorted(extra.elements())) or "none"
        violations.append(f"{player}'s cards do not add up over the turn: missing {gone}, extra {more}")
    kept = Counter(after.held)[drawn] - Counter(before.held)[drawn]
    if kept > 0:
        fouls.append(f"{player} drew {drawn} and placed it in his hand (Pan foul hands)")
    new_melds = Counter(c for m in after.melds for c in m) - Counter(c for m in before.melds for c in m)
    if drawn not in new_melds and discarded != drawn and kept <= 0:
        violations.append(f"{player} did not use the drawn {drawn} and must discard it (Pan rule 4)")
    for m in after.melds:
        mc = check_meld(m, profile)
        if not mc.valid:
            violations.append(f"{player}: {mc.reason}")
    after_check = check_hand(player, after, profile)
    fouls.extend(after_check.fouls)
    return TurnCheck(player, tuple(fouls), tuple(violations))


def house_rate(players: int, profile: GameProfile = DEFAULT_GAME_PROFILE) -> int:
    """Chips the house takes from the antes for ``players`` in the game (Poker Games Pan rule 3)."""
    for tier in profile.pan.house_rate:
        if players <= tier.up_to_players:
            return tier.chips
    top = profile.pan.max_players
    raise CardCountError(f"Pan house rate schedule covers up to {top} players, not {players}")


@dataclass(frozen=True, slots=True)
class PanSettlement:
    winner: str | None
    # Chips won (+) or paid (-) by every player who anted, ante included; house rate separately.
    net: Mapping[str, int]
    house: int
    checks: Mapping[str, HandCheck]
    reason: str


def settle(
    playing: Mapping[str, PanHand], passed: Sequence[str] = (), profile: GameProfile = DEFAULT_GAME_PROFILE
) -> PanSettlement:
    """Settle a Pan hand: the player who melded eleven cards collects (Poker Games Pan rules 1-5).

    ``playing`` are the players who declared to play, with their cards when the hand ended;
    ``passed`` those who passed (they lose their ante). Fouled players pay the winner too.
    """
    rules = profile.pan
    everyone = (*playing, *passed)
    if len(set(everyone)) != len(everyone):
        raise RulesError(f"a player is listed twice among {', '.join(everyone)}")
    if not playing:
        raise CardCountError("Pan settlement needs at least one player who played the hand")
    rate = house_rate(len(everyone), profile)
    antes = rules.ante * len(everyone)
    if rate > antes:
        raise RulesError(f"house rate {rate} exceeds the {antes} chips anted")
    checks = {p: check_hand(p, h, profile) for p, h in playing.items()}
    pan_deck(rules.decks).check([c for h in playing.values() for c in h.cards()], "the Pan table")
    winners = [p for p, c in checks.items() if c.won]
    if len(winners) > 1:
        raise RulesError(f"only one player can go out, but {', '.join(winners)} each show 11 melded cards")
    net = {p: -rules.ante for p in everyone}
    if not winners:
        return PanSettlement(None, net, rate, checks, "no player has melded eleven cards: the hand goes on")
    w = winners[0]
    payers = [p for p in playing if p != w]
    reserved = antes - rate
    for p in payers:
        net[p] -= rules.win_chips
    net[w] += reserved + rules.win_chips * len(payers)
    fouled = [p for p in payers if checks[p].fouled]
    reason = (
        f"{w} melded {rules.winning_meld} cards and goes out: collects {rules.win_chips} from each of "
        f"{len(payers)} player(s) and the {reserved} reserved antes "
        f"(house rate {rate} for {len(everyone)} players)"
    )
    if fouled:
        reason += f"; fouled hands surrender and pay: {', '.join(fouled)}"
    return PanSettlement(w, net, rate, checks, reason)


def deal_structure(profile: GameProfile = DEFAULT_GAME_PROFILE) -> DealStructure:
    """Poker Games Pan rules 1-5: ante, ten cards each, declare, then draw and meld in turn."""
    steps = (
        DealStep(StepKind.HOLE, profile.pan.hand_size, label="deal"),
        DealStep(StepKind.BET, label="declare play or pass"),
        DealStep(StepKind.PLAY, label="draw and meld"),
        DealStep(StepKind.SHOWDOWN, label="out"),
    )
    deck = pan_deck(profile.pan.decks)
    return DealStructure("pan", deck, steps, 2, profile.pan.max_players, "seed 004 Pan")
