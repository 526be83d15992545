"""Synthetic event streams: clean rounds played by the book, for tests, samples, fuzzing and the benchmark.

A clean Pai Gow round follows Livermore's rules step by step: bets (within the limits), no more bets,
shuffle, the 7x7 deal left-right-left with a stub of four, the action pile, three dice, each
pile to the seat the dice give (rule 8, counted per the profile), dead hands collected
(rule 9), hands set the house way, the banker's hand exposed after all are set and set the
house way, the hands opened in action order and paid as settlement in action order gives
(rules 13, 21, 23). Events are plain dicts (the JSON wire form) so that a test can break one
field and see the monitor catch it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from monitor.procedure.paigow import serpentine_pile
from monitor.procedure.paigow_rules import PaiGowRules
from monitor.rules.cards import PAI_GOW_53, STANDARD_52, Card
from monitor.rules.paigow.setting import Setting, all_settings, is_foul
from monitor.rules.paigow.settlement import BankerWager, Bet, settle
from monitor.rules.paigow.showdown import SpotResult, decide_spot
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

EPOCH = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
EventDict = dict[str, Any]


@dataclass
class Clock:
    """Sequence numbers and times for one table's stream."""

    table_id: str = "T1"
    seq: int = 0
    media: float = 0.0
    step: float = 0.5
    source: str = "vision"

    def event(self, etype: str, source: str | None = None, **fields: Any) -> EventDict:
        e: EventDict = {
            "type": etype, "table_id": self.table_id, "seq": self.seq, "media_time": round(self.media, 3),
            "frame": int(self.media * 30), "wall_time": (EPOCH + timedelta(seconds=self.media)).isoformat(),
            "source": source or self.source, "confidence": 1.0, **fields,
        }
        self.seq += 1
        self.media += self.step
        return e


def resequence(events: list[EventDict], start: int = 0) -> list[EventDict]:
    """Renumber ``seq`` in list order (after a test inserted or removed events)."""
    return [{**e, "seq": start + i} for i, e in enumerate(events)]


@dataclass
class PaiGowPlan:
    """What a synthetic round looks like; anything left None is drawn from the random generator."""

    banker_seat: int | None = None
    bets: dict[int, int] | None = None  # seat -> cents
    backline: dict[int, list[tuple[str, int]]] = field(default_factory=dict)
    banker_wager: int = 100_000
    action_pile: int | None = None
    dice: tuple[int, int, int] | None = None
    deck: list[Card] | None = None
    show_deal: bool = True  # card_dealt events carry the card (an RFID shoe, or read later)
    # Card number (1..49) of the deal that lands face up; it is replaced by the first stub card (rule 51).
    expose: int | None = None
    # Seats whose player sets a foul hand (rule 50a); the round is then settled as rule 49 says.
    foul_seats: frozenset[int] = frozenset()


def _bets(rng: random.Random, profile: PaiGowProfile, banker: int) -> dict[int, int]:
    others = [s for s in range(1, profile.seats + 1) if s != banker]
    chosen = rng.sample(others, rng.randint(1, len(others)))
    step = 500
    lo, hi = max(profile.table_min, step) // step, profile.table_max // step
    return {s: rng.randint(lo, min(hi, lo + 40)) * step for s in sorted(chosen)}


def paigow_round(
    rng: random.Random,
    clock: Clock,
    profile: PaiGowProfile = DEFAULT_PROFILE,
    plan: PaiGowPlan | None = None,
    rules: PaiGowRules | None = None,
) -> list[EventDict]:
    """One clean Pai Gow round as event dicts (see module doc)."""
    plan = plan or PaiGowPlan()
    rules = rules or PaiGowRules(profile)
    n = profile.seats
    banker = plan.banker_seat or rng.randint(1, n)
    bets = dict(plan.bets) if plan.bets is not None else _bets(rng, profile, banker)
    ev = clock.event
    out: list[EventDict] = [ev("round_started", game="paigow", banker_seat=banker, source="operator")]
    out.append(ev("bet_placed", seat=banker, amount=plan.banker_wager))
    for seat, amount in sorted(bets.items()):
        out.append(ev("bet_placed", seat=seat, amount=amount))
        for bettor, extra in plan.backline.get(seat, []):
            out.append(ev("bet_placed", seat=seat, amount=extra, bettor=bettor))
    out.append(ev("bets_closed", source="operator"))
    out.append(ev("shuffle_done"))
    deck = list(plan.deck) if plan.deck is not None else rng.sample(PAI_GOW_53, len(PAI_GOW_53))
    piles: dict[int, list[Card]] = {p: [] for p in range(1, 8)}
    for k in range(49):
        pile = serpentine_pile(k + 1)
        piles[pile].append(deck[k])
        up = plan.expose == k + 1
        shown = deck[k].text if plan.show_deal or up else None
        out.append(ev("card_dealt", pile=pile, face_up=up, card=shown))
    out.append(ev("piles_complete", counts=[7] * 7))
    out.append(ev("stub_counted", n=len(deck) - 49))
    if plan.expose is not None:
        # Rule 51: the exposed card is replaced, after the deal, by the first of the four stub cards.
        pile = serpentine_pile(plan.expose)
        piles[pile][piles[pile].index(deck[plan.expose - 1])] = deck[49]
        out.append(ev("exposed_card_replaced", pile=pile, card=deck[49].text))
    action_pile = plan.action_pile or rng.randint(1, 7)
    dice = plan.dice or (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))
    out.append(ev("action_pile_chosen", pile=action_pile))
    out.append(ev("dice_rolled", values=list(dice), source="dice_reader"))
    delivery = rules.delivery_map(action_pile, dice, banker)
    seat_pile = {seat: pile for pile, seat in delivery.items()}
    wagered = {s for s, a in bets.items() if a > 0} | {s for s, b in plan.backline.items() if b}
    for pile, seat in delivery.items():
        out.append(ev("pile_delivered", pile=pile, seat=seat))
    for seat in delivery.values():
        if seat != banker and seat not in wagered:
            out.append(ev("dead_hand_collected", seat=seat))
    settings: dict[int, Setting] = {}
    for seat in sorted(wagered):
        s = rules.house_way(piles[seat_pile[seat]])
        if seat in plan.foul_seats:
            s = next((x for x in all_settings(piles[seat_pile[seat]]) if is_foul(x, profile)), s)
        settings[seat] = s
        out.append(ev("hand_set", seat=seat, front=[c.text for c in s.front], back=[c.text for c in s.back]))
    banker_cards = piles[seat_pile[banker]]
    out.append(ev("banker_hand_exposed", cards=[c.text for c in banker_cards]))
    bset = rules.house_way(banker_cards)
    out.append(ev("banker_hand_set", front=[c.text for c in bset.front], back=[c.text for c in bset.back]))
    first = rules.action_seat(dice, banker)
    order = [s for s in rules.action_order(first, banker) if s in wagered]
    results: dict[int, SpotResult] = {}
    for seat in order:
        out.append(ev("hand_opened", seat=seat))
        s = settings[seat]
        results[seat] = decide_spot(seat, s.front, s.back, piles[seat_pile[seat]], bset, rules.house_way,
                                    profile)
    bet_list = [Bet(f"seat{s}", s, a, seated=True) for s, a in sorted(bets.items()) if a > 0]
    for seat, backers in sorted(plan.backline.items()):
        bet_list += [Bet(who, seat, cents) for who, cents in backers if cents > 0]
    st = settle(profile, BankerWager("banker", banker, plan.banker_wager), bet_list, results, first)
    for line in st.lines:
        who: str | None = None if line.party == f"seat{line.seat}" else line.party
        out.append(ev("payout", seat=line.seat, amount=line.won - line.lost, bettor=who))
    out.append(ev("round_ended", source="operator"))
    return out


def paigow_session(
    rng: random.Random, clock: Clock, rounds: int, profile: PaiGowProfile = DEFAULT_PROFILE,
    rules: PaiGowRules | None = None,
) -> list[EventDict]:
    """Clean rounds one after another; every seat wagers each hand and the bank moves on every two hands
    in the profile's rotation direction, as rules 3 and 40 allow."""
    from monitor.rules.paigow.dice import step

    rules = rules or PaiGowRules(profile)
    out: list[EventDict] = []
    banker = 1
    for k in range(rounds):
        if k and k % profile.banker_max_consecutive == 0:
            banker = step(banker, 1, profile.banker_rotation, profile.seats)
        others = [s for s in range(1, profile.seats + 1) if s != banker]
        bets = {s: 500 * rng.randint(2, 60) for s in others}
        out += paigow_round(rng, clock, profile, PaiGowPlan(banker_seat=banker, bets=bets), rules)
    return out


def holdem_round(rng: random.Random, clock: Clock, players: int = 6, game: str = "holdem") -> list[EventDict]:
    """One clean board-game round (Hold'em / Omaha / Pineapple): deal, burns, board, showdown, pot."""
    from monitor.rules.games.poker import GAMES, showdown

    g = GAMES[game]
    ev = clock.event
    seats = sorted(rng.sample(range(1, 10), players))
    button = seats[0]
    deck = rng.sample(STANDARD_52, 52)
    out = [ev("round_started", game=game, button_seat=button, players=seats, source="operator")]
    order = seats[1:] + seats[:1]
    holes: dict[int, list[Card]] = {s: [] for s in seats}
    for _ in range(g.hole):
        for s in order:
            c = deck.pop()
            holes[s].append(c)
            out.append(ev("hole_dealt", seat=s, card=c.text))
    board: list[Card] = []
    for street, k in (("flop", 3), ("turn", 1), ("river", 1)):
        out.append(ev("burn", card=deck.pop().text))
        cards = [deck.pop() for _ in range(k)]
        board += cards
        out.append(ev("board_dealt", street=street, cards=[c.text for c in cards]))
    folded = set(rng.sample(seats, rng.randint(0, players - 2)))
    for s in sorted(folded):
        out.append(ev("player_folded", seat=s))
    live = [s for s in order if s not in folded]
    for s in live:
        out.append(ev("hand_shown", seat=s, cards=[c.text for c in holes[s]]))
    pot = 100 * rng.randint(10, 500)
    result = showdown(game, board, {f"seat {s}": holes[s] for s in live}, pot=pot)
    awards = []
    for share in result.pots:
        for who, amount in share.shares.items():
            awards.append({"seat": int(who.split()[1]), "amount": amount})
    out.append(ev("pot_awarded", pot=pot, awards=awards))
    out.append(ev("round_ended", source="operator"))
    return out


def push_nine_round(
    rng: random.Random, clock: Clock, players: int = 5, deck: list[Card] | None = None,
    pot: int | None = None,
) -> list[EventDict]:
    """One clean Push-Nine hand (Poker Games): three cards each, folds, the hands shown, the pot to the best
    hand by the 36-rank table. Tied best hands make a push pot: no award, the pot is carried over.

    ``deck`` stacks the deck (cards are dealt from its end, one at a time in rotation from the button's left).
    """
    from monitor.rules.games import push_nine

    ev = clock.event
    seats = sorted(rng.sample(range(1, 11), players))
    button = seats[0]
    cards = list(deck) if deck is not None else rng.sample(STANDARD_52, 52)
    out = [ev("round_started", game="push_nine", button_seat=button, players=seats, source="operator")]
    order = seats[1:] + seats[:1]
    holes: dict[int, list[Card]] = {s: [] for s in seats}
    for _ in range(3):
        for s in order:
            c = cards.pop()
            holes[s].append(c)
            out.append(ev("hole_dealt", seat=s, card=c.text))
    folded = set(rng.sample(seats, rng.randint(0, players - 2)))
    for s in sorted(folded):
        out.append(ev("player_folded", seat=s))
    live = [s for s in order if s not in folded]
    for s in live:
        out.append(ev("hand_shown", seat=s, cards=[c.text for c in holes[s]]))
    amount = pot if pot is not None else 100 * rng.randint(10, 200)
    result = push_nine.showdown({f"seat {s}": holes[s] for s in live}, amount)
    if result.winner is not None:
        award = {"seat": int(result.winner.split()[1]), "amount": amount}
        out.append(ev("pot_awarded", pot=amount, awards=[award]))
    out.append(ev("round_ended", source="operator"))
    return out


def pan_melds(rng: random.Random, n: int = 11) -> list[list[Card]]:
    """Valid Pan conditions totalling ``n`` cards (Poker Games Pan definitions): runs in one suit along
    A 2 3 4 5 6 7 J Q K, and sets of one rank in one suit or in three or more suits."""
    from monitor.rules.games.deck import PAN_RANKS

    sizes = rng.choice([(3, 4, 4), (3, 3, 5), (4, 4, 3), (5, 3, 3), (3, 8)] if n == 11 else [(n,)])
    melds: list[list[Card]] = []
    for size in sizes:
        suit = rng.choice("cdhs")
        if rng.random() < 0.5:
            start = rng.randrange(len(PAN_RANKS) - size + 1)
            melds.append([Card(r, suit) for r in PAN_RANKS[start : start + size]])
        elif size > 4 or rng.random() < 0.5:
            rank = rng.choice(PAN_RANKS)
            melds.append([Card(rank, suit)] * size)  # several decks: one suit repeated is a valid set
        else:  # a set in three or four different suits
            rank = rng.choice(PAN_RANKS)
            melds.append([Card(rank, s) for s in rng.sample("cdhs", size)])
    return melds


def pan_round(
    rng: random.Random, clock: Clock, players: int = 5, passing: int | None = None,
) -> list[EventDict]:
    """One clean Pan hand (Poker Games Pan rules 1-5): ten cards each from the shoe, some players pass,
    the winner shows eleven cards melded, and collects the reserved antes and two chips from each
    other player who played. Amounts are chips."""
    from monitor.rules.games.deck import pan_deck
    from monitor.rules.games.pan import house_rate
    from monitor.rules.games.profile import DEFAULT_GAME_PROFILE

    rules = DEFAULT_GAME_PROFILE.pan
    ev = clock.event
    seats = sorted(rng.sample(range(1, 11), players))
    button = seats[0]
    deck = pan_deck(rules.decks)
    shoe = [c for c in sorted(deck.faces) for _ in range(deck.copies)]
    rng.shuffle(shoe)
    out = [ev("round_started", game="pan", button_seat=button, players=seats, source="operator")]
    order = seats[1:] + seats[:1]
    for _ in range(rules.hand_size):
        for s in order:
            out.append(ev("hole_dealt", seat=s, card=shoe.pop().text))
    n_pass = rng.randint(0, players - 2) if passing is None else passing
    passed = set(rng.sample(seats, n_pass))
    for s in sorted(passed):
        out.append(ev("player_folded", seat=s))
    playing = [s for s in order if s not in passed]
    winner = rng.choice(playing)
    melds = pan_melds(rng)
    out.append(ev("melds_shown", seat=winner, melds=[[c.text for c in m] for m in melds], held=[]))
    reserved = rules.ante * players - house_rate(players)
    collect = reserved + rules.win_chips * (len(playing) - 1)
    out.append(ev("pot_awarded", pot=collect, awards=[{"seat": winner, "amount": collect}]))
    out.append(ev("round_ended", source="operator"))
    return out


def lowball_round(rng: random.Random, clock: Clock, players: int = 5) -> list[EventDict]:
    """One clean Lo-Ball hand (Poker Games, A-5 with the joker): five cards each, the burn before the draw,
    every player standing pat (no draw events exist), the hands shown and the pot to the best low."""
    from monitor.rules.games.poker import GAMES, showdown

    ev = clock.event
    seats = sorted(rng.sample(range(1, 9), players))
    button = seats[0]
    deck = sorted(GAMES["lowball"].deal_structure().deck.faces)
    rng.shuffle(deck)
    out = [ev("round_started", game="lowball", button_seat=button, players=seats, source="operator")]
    order = seats[1:] + seats[:1]
    holes: dict[int, list[Card]] = {s: [] for s in seats}
    for _ in range(5):
        for s in order:
            c = deck.pop()
            holes[s].append(c)
            out.append(ev("hole_dealt", seat=s, card=c.text))
    out.append(ev("burn", card=deck.pop().text))
    folded = set(rng.sample(seats, rng.randint(0, players - 2)))
    for s in sorted(folded):
        out.append(ev("player_folded", seat=s))
    live = [s for s in order if s not in folded]
    for s in live:
        out.append(ev("hand_shown", seat=s, cards=[c.text for c in holes[s]]))
    pot = 100 * rng.randint(10, 300)
    result = showdown("lowball", [], {f"seat {s}": holes[s] for s in live}, pot=pot)
    awards = [{"seat": int(who.split()[1]), "amount": amount}
              for share in result.pots for who, amount in share.shares.items()]
    out.append(ev("pot_awarded", pot=pot, awards=awards))
    out.append(ev("round_ended", source="operator"))
    return out
