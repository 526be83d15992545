"""One whole Pai Gow hand, judged and settled: deal, dice, delivery, settings, showdown, settlement.

:func:`play_round` is the reusable core (all inputs explicit); :func:`sample_round` builds a
deterministic example from a seed (used by ``table-monitor demo``). Both are pure: the randomness is a
``random.Random`` seeded by the caller.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from monitor.rules.cards import PAI_GOW_53, Card
from monitor.rules.errors import CardCountError
from monitor.rules.paigow.catalog import house_way_for
from monitor.rules.paigow.dice import action_seat, check_dice, delivery_map
from monitor.rules.paigow.house_way import HouseWay, set_hand
from monitor.rules.paigow.setting import HAND_SIZE, Setting, all_settings, is_foul
from monitor.rules.paigow.settlement import BankerWager, Bet, Settlement, settle
from monitor.rules.paigow.showdown import BankerHand, SpotResult, banker_hand, decide_spot
from monitor.rules.profile import PaiGowProfile

STUB_SIZE = 4  # Livermore rule 55: four cards remain after the 7x7 deal


def deal_piles(deck: Sequence[Card], piles: int = 7) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]:
    """Deal seven piles of seven, left to right then right to left, alternating (Livermore rule 6).

    Returns the piles (pile 1 first, as numbered in ``dice``) and the stub (rule 55: four cards).
    """
    need = piles * HAND_SIZE
    if len(deck) < need:
        raise CardCountError(f"a deck of {len(deck)} cards cannot deal {piles} piles of {HAND_SIZE}")
    out: list[list[Card]] = [[] for _ in range(piles)]
    for i, card in enumerate(deck[:need]):
        lap, pos = divmod(i, piles)
        out[pos if lap % 2 == 0 else piles - 1 - pos].append(card)
    return tuple(tuple(p) for p in out), tuple(deck[need:])


@dataclass(frozen=True)
class PlayerSetting:
    """How a seat set its hand, as placed (may be foul), and how it was arrived at."""

    front: tuple[Card, ...]
    back: tuple[Card, ...]
    how: str


@dataclass(frozen=True)
class Round:
    profile: PaiGowProfile
    house_way: HouseWay
    piles: tuple[tuple[Card, ...], ...]
    stub: tuple[Card, ...]
    banker_seat: int
    action_pile: int
    dice: tuple[int, int, int]
    action_seat: int
    delivery: dict[int, int]
    hands: dict[int, tuple[Card, ...]]
    bets: tuple[Bet, ...]
    banker_wager: BankerWager
    settings: dict[int, PlayerSetting]
    banker: BankerHand
    banker_rule: str
    results: dict[int, SpotResult]
    settlement: Settlement
    hand_number_in_game: int
    dead_seats: tuple[int, ...] = field(default=())


def play_round(
    profile: PaiGowProfile,
    deck: Sequence[Card],
    banker_wager: BankerWager,
    bets: Sequence[Bet],
    action_pile: int,
    dice: Sequence[int],
    settings: Mapping[int, PlayerSetting],
    banker_setting: PlayerSetting | None = None,
    house_way: HouseWay | None = None,
    hand_number_in_game: int | None = None,
) -> Round:
    """Deal, deliver by the dice, judge every wagered seat against the banker and settle in action order.

    Seats without a setting in ``settings`` are set the house way (Napa: on request). A banker's
    setting that fouls is reset the house way (Livermore rule 54); ``None`` means house way.
    """
    way = house_way or house_way_for(profile)
    d = check_dice(dice)
    piles, stub = deal_piles(deck, profile.seats)
    delivery = delivery_map(action_pile, d, banker_wager.seat, profile)
    hands = {seat: piles[pile - 1] for pile, seat in delivery.items()}
    wagered = {b.seat for b in bets}
    dead = tuple(s for s in sorted(hands) if s not in wagered and s != banker_wager.seat)  # rule 9

    def hw(cards: Sequence[Card]) -> Setting:
        return set_hand(way, cards, profile).setting

    bh_cards = hands[banker_wager.seat]
    hw_bank = set_hand(way, bh_cards, profile)
    if banker_setting is None:
        bank = BankerHand(hw_bank.setting)
        banker_rule = f"house way: {hw_bank.rule}"
    else:
        bank = banker_hand(banker_setting.front, banker_setting.back, bh_cards, hw, profile)
        banker_rule = banker_setting.how if bank.reset_foul is None else f"reset house way: {hw_bank.rule}"
    placed: dict[int, PlayerSetting] = {}
    results: dict[int, SpotResult] = {}
    for seat in sorted(wagered):
        own = settings.get(seat)
        if own is None:
            r = set_hand(way, hands[seat], profile)
            own = PlayerSetting(r.setting.front, r.setting.back, f"house way: {r.rule}")
        placed[seat] = own
        results[seat] = decide_spot(seat, own.front, own.back, hands[seat], bank.setting, hw, profile)
    first = action_seat(sum(d), banker_wager.seat, profile)
    ledger = settle(profile, banker_wager, bets, results, first, hand_number_in_game)
    return Round(
        profile=profile, house_way=way, piles=piles, stub=stub, banker_seat=banker_wager.seat,
        action_pile=action_pile, dice=d, action_seat=first, delivery=delivery, hands=hands,
        bets=tuple(bets), banker_wager=banker_wager, settings=placed, banker=bank, banker_rule=banker_rule,
        results=results, settlement=ledger, hand_number_in_game=hand_number_in_game or 0, dead_seats=dead,
    )


def _foul_setting(cards: Sequence[Card], profile: PaiGowProfile) -> PlayerSetting:
    """A setting a careless player might make: the strongest front he can grab, even if it fouls."""
    fouls = [s for s in all_settings(cards) if is_foul(s, profile)]
    if fouls:
        worst = max(fouls, key=lambda s: s.values(profile)[0].score)
        return PlayerSetting(worst.front, worst.back, "player's own: strongest two cards in front (foul)")
    # No split fouls on strength: three cards in front breaks rule 50b instead.
    return PlayerSetting(tuple(cards[:3]), tuple(cards[3:]), "player's own: three cards in front (foul)")


def _best_back_setting(cards: Sequence[Card], profile: PaiGowProfile) -> PlayerSetting:
    legal = [s for s in all_settings(cards) if not is_foul(s, profile)]
    best = max(legal, key=lambda s: (s.values(profile)[1].score, s.values(profile)[0].score))
    return PlayerSetting(best.front, best.back, "player's own: strongest five-card hand in back")


def sample_round(seed: int = 43, profile: PaiGowProfile | None = None) -> Round:
    """A full example round: six bettors, backline bets, a seat without a wager, a bet over the table
    maximum, one player's own setting, one foul; everyone else set the house way."""
    p = profile or PaiGowProfile(table_max=50_000)
    rng = random.Random(seed)
    deck = list(PAI_GOW_53)
    rng.shuffle(deck)
    banker = BankerWager("Hank (banker)", 4, 40_000)
    bets = (
        Bet("Ann", 1, 4_000, seated=True),
        Bet("Bo", 2, 6_000, seated=True),
        Bet("Cy", 2, 2_500),  # backline on Bo's spot (rule 4)
        Bet("Dee", 5, 10_000, seated=True),
        Bet("Gus", 5, 3_000),  # backline on Dee's spot: settled house way if Dee fouls (rule 49)
        Bet("Eve", 6, 8_000, seated=True),
        Bet("Fay", 7, 55_000, seated=True),  # $50 over the $500 maximum: no action on it (rule 19)
    )
    dice = (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
    action_pile = rng.randint(1, p.seats)
    piles, _ = deal_piles(deck, p.seats)
    delivery = delivery_map(action_pile, dice, banker.seat, p)
    hands = {seat: piles[pile - 1] for pile, seat in delivery.items()}
    settings = {
        5: _foul_setting(hands[5], p),
        6: _best_back_setting(hands[6], p),
    }
    return play_round(p, deck, banker, bets, action_pile, dice, settings, hand_number_in_game=7)
