"""Cross-check of the Poker Games rules against pokerkit, the independent peer.

Used by ``table-monitor verify-games`` (100,000+ deals per suite) and by the tests (a few
thousand). pokerkit is a dev dependency: it is imported here only, never by the rules.

Suites: holdem (Hold'em high and hi-lo on the same deals), omaha (Omaha high and hi-lo),
pineapple, lowball (ace-to-five). Each deals random showdowns (2 to ``max_players`` players,
full board) and checks, for every deal, that:
- every pair of players compares the same way (better / equal / worse) under both evaluators,
  for the high hand and for the low hand (and "no qualifying low" agrees);
- the winners of each half that our showdown names are the ones pokerkit's values give;
- the shares add up to the pot and go only to those winners.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any

from monitor.rules.cards import STANDARD_52, Card, format_cards
from monitor.rules.games.low import evaluate_low
from monitor.rules.games.poker import Showdown, showdown

SUITES = ("holdem", "omaha", "pineapple", "lowball")


@lru_cache(maxsize=1)
def _pk_map() -> dict[Card, Any]:
    from pokerkit import Card as PKCard

    return {c: next(iter(PKCard.parse(c.text))) for c in STANDARD_52}


def to_pk(cards: Sequence[Card]) -> list[Any]:
    m = _pk_map()
    return [m[c] for c in cards]


def _sign(x: Any, y: Any) -> int:
    return int(x > y) - int(x < y)


@dataclass
class SuiteResult:
    suite: str
    deals: int = 0
    hands: int = 0
    comparisons: int = 0
    mismatches: list[str] = field(default_factory=list)
    seconds_ours: float = 0.0
    seconds_peer: float = 0.0
    full_peer_deals: int = 0  # deals judged by pokerkit's own from_game (the rest: per five cards)

    def tally(self, d: Deal, t0: float, t1: float, t2: float, full_peer: bool = False) -> None:
        """One deal judged: ours from ``t0`` to ``t1``, the peer's from ``t1`` to ``t2``."""
        self.seconds_ours += t1 - t0
        self.seconds_peer += t2 - t1
        self.deals += 1
        self.full_peer_deals += full_peer
        self.hands += len(d.hands)


@dataclass(frozen=True)
class Deal:
    board: tuple[Card, ...]
    hands: dict[str, tuple[Card, ...]]


def deal(rng: random.Random, players: int, hole: int, board: int) -> Deal:
    cards = rng.sample(STANDARD_52, board + hole * players)
    hands = {f"seat{i + 1}": tuple(cards[board + i * hole : board + (i + 1) * hole]) for i in range(players)}
    return Deal(tuple(cards[:board]), hands)


def _pairwise(label: str, ours: dict[str, Any], peer: dict[str, Any], res: SuiteResult, where: str) -> None:
    names = list(ours)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            oa, ob, pa, pb = ours[a], ours[b], peer[a], peer[b]
            res.comparisons += 1
            if (oa is None) != (pa is None) or (ob is None) != (pb is None):
                res.mismatches.append(f"{where}: {label} qualification differs for {a} or {b}")
                continue
            if oa is None or ob is None:
                continue
            if _sign(oa, ob) != _sign(pa, pb):
                ours_says, peer_says = _sign(oa, ob), _sign(pa, pb)
                res.mismatches.append(f"{where}: {label} {a} vs {b}: ours {ours_says}, pokerkit {peer_says}")


def _winners(values: dict[str, Any]) -> set[str]:
    present = {k: v for k, v in values.items() if v is not None}
    if not present:
        return set()
    top = max(present.values())
    return {k for k, v in present.items() if not v < top}


def _check_pot(sd: Showdown, pot: int, hi: set[str], lo: set[str], res: SuiteResult, where: str) -> None:
    p = sd.pots[0]
    if set(p.high_winners) != hi:
        res.mismatches.append(f"{where}: high winners ours {sorted(p.high_winners)}, pokerkit {sorted(hi)}")
    if set(p.low_winners) != lo:
        res.mismatches.append(f"{where}: low winners ours {sorted(p.low_winners)}, pokerkit {sorted(lo)}")
    paid = {w for w, v in p.shares.items() if v != 0}
    if sum(p.shares.values()) != pot or not paid <= hi | lo or any(v < 0 for v in p.shares.values()):
        res.mismatches.append(f"{where}: shares {dict(p.shares)} of {pot} do not go to the winners")


def _pot(rng: random.Random) -> int:
    return rng.randrange(2, 400) * 100 + rng.choice((0, 0, 50))


# pokerkit's value of a five-card hand depends only on its ranks and on whether it is one suit
# (the key of pokerkit's own lookup), so it is asked once per key. The value kept is the
# strength pokerkit compares hands by: its lookup entry's index (negated for a low hand, where
# pokerkit ranks a smaller index as stronger), so that greater is stronger as for ours.
_PK_HIGH: dict[tuple[tuple[int, ...], bool], int] = {}
_PK_LOW: dict[tuple[int, ...], int | None] = {}


def _pk_five_values(five: tuple[Card, ...]) -> tuple[int, int | None]:
    from pokerkit import EightOrBetterLowHand, StandardHighHand

    ranks = tuple(sorted(c.rank for c in five))
    key = (ranks, len({c.suit for c in five}) == 1)
    hi = _PK_HIGH.get(key)
    if hi is None:
        hi = _PK_HIGH[key] = StandardHighHand(to_pk(five)).entry.index
    if ranks in _PK_LOW:
        lo = _PK_LOW[ranks]
    else:
        try:
            lo = -EightOrBetterLowHand(to_pk(five)).entry.index
        except ValueError:  # pokerkit's way of saying "not an eight-or-better low"
            lo = None
        _PK_LOW[ranks] = lo
    return hi, lo


def _pk_by_five(
    hole: tuple[Card, ...], board: tuple[Card, ...], omaha: bool
) -> tuple[int | None, int | None]:
    """pokerkit's best high and low over every legal five: 2 hole + 3 board (Omaha) or any 5."""
    if omaha:
        fives: Iterator[tuple[Card, ...]] = (
            (*p, *t) for p in combinations(hole, 2) for t in combinations(board, 3)
        )
    else:
        fives = combinations((*hole, *board), 5)
    best_hi: int | None = None
    best_lo: int | None = None
    for five in fives:
        hi, lo = _pk_five_values(five)
        if best_hi is None or hi > best_hi:
            best_hi = hi
        if lo is not None and (best_lo is None or lo > best_lo):
            best_lo = lo
    return best_hi, best_lo


def check_board_game(d: Deal, omaha: bool, rng: random.Random, res: SuiteResult, where: str,
                     full_peer: bool = True) -> None:
    """One deal. ``full_peer``: pokerkit's own ``from_game`` picks each best hand; otherwise
    pokerkit values every legal five-card choice (memoized) and the best is taken here."""
    from pokerkit import EightOrBetterLowHand, OmahaEightOrBetterLowHand, OmahaHoldemHand, StandardHighHand

    hi_cls: Any = OmahaHoldemHand if omaha else StandardHighHand
    lo_cls: Any = OmahaEightOrBetterLowHand if omaha else EightOrBetterLowHand
    pot = _pot(rng)
    t0 = time.perf_counter()
    high_game, hilo_game = ("omaha", "omaha_hilo") if omaha else ("holdem", "holdem_hilo")
    sd_hi = showdown(high_game, d.board, d.hands, pot=pot)
    sd_hl = showdown(hilo_game, d.board, d.hands, pot=pot)
    t1 = time.perf_counter()
    pk_board = to_pk(d.board)
    pk_hi: dict[str, Any] = {}
    pk_lo: dict[str, Any] = {}
    for who, hole in d.hands.items():
        if not full_peer:
            pk_hi[who], pk_lo[who] = _pk_by_five(hole, d.board, omaha)
            continue
        pk_hole = to_pk(hole)
        pk_hi[who] = hi_cls.from_game(pk_hole, pk_board)
        try:
            pk_lo[who] = lo_cls.from_game(pk_hole, pk_board)
        except ValueError:  # pokerkit's way of saying "no qualifying low"
            pk_lo[who] = None
    t2 = time.perf_counter()
    res.tally(d, t0, t1, t2, full_peer)
    ours_hi = {w: h.high.score if h.high else None for w, h in sd_hi.hands.items()}
    ours_lo = {w: h.low.score if h.low else None for w, h in sd_hl.hands.items()}
    _pairwise("high", ours_hi, pk_hi, res, where)
    _pairwise("low", ours_lo, pk_lo, res, where)
    hi_w, lo_w = _winners(pk_hi), _winners(pk_lo)
    _check_pot(sd_hi, pot, hi_w, set(), res, f"{where} {high_game}")
    _check_pot(sd_hl, pot, hi_w, lo_w, res, f"{where} {hilo_game}")


def check_pineapple(
    d: Deal, rng: random.Random, res: SuiteResult, where: str, full_peer: bool = True
) -> None:
    """Pineapple: high only, any five of three hole and five board cards (playing the board allowed)."""
    from pokerkit import StandardHighHand

    pot = _pot(rng)
    t0 = time.perf_counter()
    sd = showdown("pineapple", d.board, d.hands, pot=pot)
    t1 = time.perf_counter()
    pk_board = to_pk(d.board)
    peer: dict[str, Any] = {}
    for who, hole in d.hands.items():
        if full_peer:
            peer[who] = StandardHighHand.from_game(to_pk(hole), pk_board)
        else:
            peer[who] = _pk_by_five(hole, d.board, omaha=False)[0]
    t2 = time.perf_counter()
    res.tally(d, t0, t1, t2, full_peer)
    ours = {w: h.high.score if h.high else None for w, h in sd.hands.items()}
    _pairwise("high", ours, peer, res, where)
    _check_pot(sd, pot, _winners(peer), set(), res, f"{where} pineapple")


def check_lowball(d: Deal, rng: random.Random, res: SuiteResult, where: str) -> None:
    from pokerkit import RegularLowHand

    pot = _pot(rng)
    t0 = time.perf_counter()
    sd = showdown("lowball", (), d.hands, pot=pot)
    ours = {w: evaluate_low(h) for w, h in d.hands.items()}
    t1 = time.perf_counter()
    peer = {w: RegularLowHand(to_pk(h)) for w, h in d.hands.items()}
    t2 = time.perf_counter()
    res.tally(d, t0, t1, t2)
    _pairwise("low", {w: v.score for w, v in ours.items()}, peer, res, where)
    for w, h in sd.hands.items():
        if h.low is None or h.low.score != ours[w].score:
            res.mismatches.append(f"{where}: showdown low of {w} differs from evaluate_low")
    p = sd.pots[0]
    win = _winners(peer)
    if set(p.low_winners) != win:
        res.mismatches.append(f"{where}: low winners ours {sorted(p.low_winners)}, pokerkit {sorted(win)}")
    if sum(p.shares.values()) != pot or not set(p.shares) <= win:
        res.mismatches.append(f"{where}: shares {dict(p.shares)} of {pot} do not go to the winners")


def run_suite(
    suite: str, deals: int, seed: int = 4, max_players: int | None = None,
    progress: Callable[[int], None] | None = None, chunk: int = 0, full_every: int = 1,
) -> SuiteResult:
    """Deal ``deals`` random showdowns of one suite and compare with pokerkit.

    ``chunk`` selects an independent, reproducible stream of deals (for parallel runs).
    Every ``full_every``-th board-game deal is judged by pokerkit's own ``from_game``; the others by
    pokerkit's value of each legal five-card choice (much faster, same pokerkit ranking).
    """
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r} (suites: {', '.join(SUITES)})")
    rng = random.Random(f"{suite}:{seed}:{chunk}")
    res = SuiteResult(suite)
    top = max_players or DEFAULT_MAX_PLAYERS[suite]
    for i in range(deals):
        n = rng.randint(2, top)
        where = f"{suite} seed {seed} chunk {chunk} deal {i}"
        if suite == "lowball":
            check_lowball(deal(rng, n, 5, 0), rng, res, where)
        elif suite == "pineapple":
            check_pineapple(deal(rng, n, 3, 5), rng, res, where, full_peer=i % full_every == 0)
        else:
            d = deal(rng, n, 4 if suite == "omaha" else 2, 5)
            check_board_game(d, suite == "omaha", rng, res, where, full_peer=i % full_every == 0)
        if progress is not None:
            progress(1)
        if len(res.mismatches) > 50:  # enough to debug; stop flooding
            break
    return res


DEFAULT_MAX_PLAYERS = {"holdem": 3, "omaha": 3, "pineapple": 3, "lowball": 6}


def _chunk_job(args: tuple[str, int, int, int | None, int, int]) -> SuiteResult:
    suite, deals, seed, max_players, chunk, full_every = args
    return run_suite(suite, deals, seed, max_players, chunk=chunk, full_every=full_every)


def run_parallel(
    suite: str, deals: int, seed: int, max_players: int | None, workers: int,
    progress: Callable[[int], None] | None = None, chunk_size: int = 1000, full_every: int = 1,
    report: Callable[[SuiteResult], None] | None = None,
) -> SuiteResult:
    """``run_suite`` over chunks of ``chunk_size`` deals in ``workers`` processes, merged."""
    jobs = [(suite, min(chunk_size, deals - start), seed, max_players, k, full_every)
            for k, start in enumerate(range(0, deals, chunk_size))]
    total = SuiteResult(suite)

    def merge(r: SuiteResult) -> None:
        total.deals += r.deals
        total.hands += r.hands
        total.comparisons += r.comparisons
        total.mismatches.extend(r.mismatches)
        total.seconds_ours += r.seconds_ours
        total.seconds_peer += r.seconds_peer
        total.full_peer_deals += r.full_peer_deals
        if progress is not None:
            progress(r.deals)
        if report is not None:
            report(total)

    if workers <= 1:
        for job in jobs:
            merge(_chunk_job(job))
        return total
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for r in pool.imap_unordered(_chunk_job, jobs):
            merge(r)
    return total


def describe(d: Deal) -> str:
    hands = ", ".join(f"{w}: {format_cards(h)}" for w, h in d.hands.items())
    return f"board {format_cards(d.board) or '-'}; {hands}"


def iter_deals(suite: str, n: int, seed: int, max_players: int) -> Iterator[Deal]:
    """The same kind of deals as ``run_suite``, for benchmarks."""
    rng = random.Random(f"bench:{suite}:{seed}")
    hole, board = {"holdem": (2, 5), "omaha": (4, 5), "pineapple": (3, 5), "lowball": (5, 0)}[suite]
    for _ in range(n):
        yield deal(rng, rng.randint(2, max_players), hole, board)
