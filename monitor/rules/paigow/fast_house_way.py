"""The house way in batch: a :class:`HouseWay` compiled to arrays and run by a numba kernel.

The same rule data drive both paths: each ``when`` condition is compiled to a small postfix program, each
rule's ``front``/``back``/``back_min``/``prefer`` to integers, and the kernel interprets them over
(N, 7) arrays of card indices, scoring the 21 fronts and backs with the lookup tables of
``monitor.rules.fast``. It returns, for every hand, the index of the chosen split in
``setting.FRONT_INDEX_PAIRS`` and the index of the rule that set it (-1: the fallback), and must agree
with :func:`monitor.rules.paigow.house_way.set_hand` hand for hand (tested on random hands).
Input is trusted (distinct indices 0..52 per row); validate untrusted hands first.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Final

import numba
import numpy as np
import numpy.typing as npt

from monitor.rules.errors import CardCountError
from monitor.rules.fast.tables import five_card_table, two_card_table
from monitor.rules.hands import RANK_BITS, Category
from monitor.rules.paigow.errors import HouseWayError
from monitor.rules.paigow.house_way import (
    BOOL_FEATURES,
    GROUPS,
    INT_FEATURES,
    RANK_CONSTANTS,
    HouseRule,
    HouseWay,
    front_threshold,
)
from monitor.rules.paigow.setting import FRONT_INDEX_PAIRS
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

I64 = npt.NDArray[np.int64]

# Feature slots of the kernel's feature vector; ``singles`` is a bit mask of ranks.
FEATURE_NAMES: Final = (*INT_FEATURES, *BOOL_FEATURES, "singles")
F: Final = {name: i for i, name in enumerate(FEATURE_NAMES)}
G: Final = {name: i for i, name in enumerate(GROUPS)}

# Opcodes of the condition programs (postfix, one (op, arg) pair per step).
OP_CONST, OP_LOAD, OP_IN, OP_NOTIN, OP_ADD, OP_SUB = 0, 1, 2, 3, 4, 5
OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR, OP_NOT = 6, 7, 8, 9, 10, 11, 12, 13, 14
# Short-circuit jumps: if the top is false (true), jump to arg keeping it; else pop it and go on.
OP_JUMP_IF_FALSE_OR_POP, OP_JUMP_IF_TRUE_OR_POP = 15, 16
_CMP: Final = {ast.Eq: OP_EQ, ast.NotEq: OP_NE, ast.Lt: OP_LT, ast.LtE: OP_LE, ast.Gt: OP_GT, ast.GtE: OP_GE}
STACK: Final = 32

FRONT_INDEX: Final = np.array(FRONT_INDEX_PAIRS, dtype=np.int64)
# Split index of the back whose five positions form a bit mask (the kernel walks backs as a prefix tree).
BACK_MASK_TO_SPLIT: Final = np.full(128, -1, dtype=np.int64)
for _k, (_i, _j) in enumerate(FRONT_INDEX_PAIRS):
    BACK_MASK_TO_SPLIT[127 ^ ((1 << _i) | (1 << _j))] = _k


def _compile_expr(node: ast.AST, out: list[tuple[int, int]]) -> None:
    if isinstance(node, ast.Expression):
        _compile_expr(node.body, out)
    elif isinstance(node, ast.BoolOp):
        # Short-circuit, as Python does: most conditions fail on their first test (e.g. `pairs == 2`).
        jump = OP_JUMP_IF_FALSE_OR_POP if isinstance(node.op, ast.And) else OP_JUMP_IF_TRUE_OR_POP
        holes = []
        _compile_expr(node.values[0], out)
        for v in node.values[1:]:
            holes.append(len(out))
            out.append((jump, -1))
            _compile_expr(v, out)
        for h in holes:
            out[h] = (jump, len(out))
    elif isinstance(node, ast.UnaryOp):
        _compile_expr(node.operand, out)
        out.append((OP_NOT, 0))
    elif isinstance(node, ast.BinOp):
        _compile_expr(node.left, out)
        _compile_expr(node.right, out)
        out.append((OP_ADD if isinstance(node.op, ast.Add) else OP_SUB, 0))
    elif isinstance(node, ast.Compare):
        # a < b < c is (a < b) and (b < c); the operands are pure, so evaluating b twice is harmless.
        left = node.left
        for k, (cmp_op, right) in enumerate(zip(node.ops, node.comparators, strict=True)):
            if isinstance(cmp_op, ast.In | ast.NotIn):
                if not (isinstance(right, ast.Name) and right.id == "singles"):
                    raise HouseWayError("'in' must test membership in 'singles'")
                _compile_expr(left, out)
                out.append((OP_LOAD, F["singles"]))
                out.append((OP_IN if isinstance(cmp_op, ast.In) else OP_NOTIN, 0))
            else:
                _compile_expr(left, out)
                _compile_expr(right, out)
                out.append((_CMP[type(cmp_op)], 0))
            if k:
                out.append((OP_AND, 0))
            left = right
    elif isinstance(node, ast.Name):
        if node.id in RANK_CONSTANTS:
            out.append((OP_CONST, RANK_CONSTANTS[node.id]))
        elif node.id in ("true", "false"):
            out.append((OP_CONST, int(node.id == "true")))
        else:
            out.append((OP_LOAD, F[node.id]))
    elif isinstance(node, ast.Constant):
        assert isinstance(node.value, int)  # checked when the house way was loaded
        out.append((OP_CONST, int(node.value)))
    else:
        raise HouseWayError(f"cannot compile {type(node).__name__}")


@dataclass(frozen=True)
class CompiledHouseWay:
    """Arrays the kernel runs: programs (R, L, 2), their lengths, takes (R, T, 2), back_min, prefer,
    beats_front_with (a category or -1); front_min thresholds depend on the profile (see set_hands_batch)."""

    way: HouseWay
    programs: I64
    lengths: I64
    takes: I64
    n_takes: I64
    back_min: I64
    prefer: I64
    beats: I64


def compile_house_way(way: HouseWay) -> CompiledHouseWay:
    progs: list[list[tuple[int, int]]] = []
    for rule in way.rules:
        prog: list[tuple[int, int]] = []
        _compile_expr(rule.condition, prog)
        progs.append(prog)
    r = len(way.rules)
    length = max(len(p) for p in progs)
    programs = np.zeros((r, length, 2), dtype=np.int64)
    for i, p in enumerate(progs):
        programs[i, : len(p)] = p
    tmax = max(1, max(len(rule.takes) for rule in way.rules))
    takes = np.zeros((r, tmax, 2), dtype=np.int64)
    for i, rule in enumerate(way.rules):
        for k, t in enumerate(rule.takes):
            takes[i, k] = (G[t.group], t.count)
    return CompiledHouseWay(
        way,
        programs,
        np.array([len(p) for p in progs], dtype=np.int64),
        takes,
        np.array([len(rule.takes) for rule in way.rules], dtype=np.int64),
        np.array([_back_min(rule) for rule in way.rules], dtype=np.int64),
        np.array([0 if rule.prefer == "front" else 1 for rule in way.rules], dtype=np.int64),
        np.array([-1 if r.beats_front_with is None else int(r.beats_front_with) for r in way.rules],
                 dtype=np.int64),
    )


def front_floors(compiled: CompiledHouseWay, profile: PaiGowProfile) -> I64:
    """Per rule, the least front score its front_min allows under this profile (-1: any front)."""
    return np.array(
        [-1 if r.front_min is None else front_threshold(r.front_min, profile) for r in compiled.way.rules],
        dtype=np.int64,
    )


def _back_min(rule: HouseRule) -> int:
    return -1 if rule.back_min is None else int(rule.back_min)


@numba.njit(inline="always", cache=True)
def _popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@numba.njit(nogil=True, cache=True)
def _run_program(prog: I64, length: int, feats: I64, stack: I64) -> bool:
    sp = 0
    pc = 0
    while pc < length:
        op = prog[pc, 0]
        pc += 1
        if op == OP_JUMP_IF_FALSE_OR_POP:
            if stack[sp - 1] == 0:
                pc = prog[pc - 1, 1]
            else:
                sp -= 1
        elif op == OP_JUMP_IF_TRUE_OR_POP:
            if stack[sp - 1] != 0:
                pc = prog[pc - 1, 1]
            else:
                sp -= 1
        elif op == OP_CONST:
            stack[sp] = prog[pc - 1, 1]
            sp += 1
        elif op == OP_LOAD:
            stack[sp] = feats[prog[pc - 1, 1]]
            sp += 1
        elif op == OP_NOT:
            stack[sp - 1] = 1 if stack[sp - 1] == 0 else 0
        else:
            b = stack[sp - 1]
            a = stack[sp - 2]
            sp -= 1
            if op == OP_IN:
                v = (b >> a) & 1
            elif op == OP_NOTIN:
                v = 1 - ((b >> a) & 1)
            elif op == OP_ADD:
                v = a + b
            elif op == OP_SUB:
                v = a - b
            elif op == OP_EQ:
                v = 1 if a == b else 0
            elif op == OP_NE:
                v = 1 if a != b else 0
            elif op == OP_LT:
                v = 1 if a < b else 0
            elif op == OP_LE:
                v = 1 if a <= b else 0
            elif op == OP_GT:
                v = 1 if a > b else 0
            elif op == OP_GE:
                v = 1 if a >= b else 0
            elif op == OP_AND:
                v = 1 if (a != 0 and b != 0) else 0
            else:  # OP_OR
                v = 1 if (a != 0 or b != 0) else 0
            stack[sp - 1] = v
    return bool(stack[0] != 0)


@numba.njit(nogil=True, cache=True)
def _set_one(
    cards: I64, five: npt.NDArray[np.int32], two: npt.NDArray[np.int32], front_idx: I64, back_idx: I64,
    programs: I64, lengths: I64, takes: I64, n_takes: I64, back_min: I64, prefer: I64, floors: I64,
    beats: I64, fs: I64, bs: I64, feats: I64, groups: I64, stack: I64, masks: I64, counts: I64,
) -> tuple[int, int]:
    # Scores of the 21 splits; the backs share automaton prefixes (55 lookups instead of 105).
    for k in range(21):
        fs[k] = two[cards[front_idx[k, 0]] * 53 + cards[front_idx[k, 1]]]
    for a in range(3):
        sa = five[cards[a]]
        for b in range(a + 1, 4):
            sb = five[sa + cards[b]]
            for c in range(b + 1, 5):
                sc = five[sb + cards[c]]
                for d in range(c + 1, 6):
                    sd = five[sc + cards[d]]
                    for e in range(d + 1, 7):
                        m = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
                        bs[back_idx[m, 0]] = five[sd + cards[e]]
    # Rank groups, the joker as an ace.
    for r in range(15):
        masks[r] = 0
        counts[r] = 0
    joker = 0
    for i in range(7):
        c = cards[i]
        if c == 52:
            joker = 1
        r = 14 if c == 52 else c // 4 + 2
        masks[r] |= 1 << i
        counts[r] += 1
    for i in range(feats.shape[0]):
        feats[i] = 0
    for i in range(groups.shape[0]):
        groups[i] = 0
    npairs = 0
    ntrips = 0
    nquads = 0
    nsingles = 0
    five_aces = 0
    singles_mask = 0
    low_pair = 0
    low_pair_mask = 0
    for r in range(14, 1, -1):
        n = counts[r]
        if n == 5:
            five_aces = 1
            groups[0] = masks[r]  # five_aces
        elif n == 4:
            if nquads == 0:
                feats[10] = r  # quads1
                groups[1] = masks[r]
            nquads += 1
        elif n == 3:
            if ntrips == 0:
                feats[8] = r  # trips1
                groups[2] = masks[r]
            elif ntrips == 1:
                feats[9] = r  # trips2
                groups[3] = masks[r]
            ntrips += 1
        elif n == 2:
            if npairs < 3:
                feats[3 + npairs] = r  # pair1..pair3
                groups[4 + npairs] = masks[r]
            npairs += 1
            low_pair = r
            low_pair_mask = masks[r]
        elif n == 1:
            if nsingles < 3:
                feats[11 + nsingles] = r  # single1..single3
                groups[9 + nsingles] = masks[r]
            nsingles += 1
            singles_mask |= 1 << r
    feats[0] = npairs
    feats[1] = ntrips
    feats[2] = nquads
    feats[6] = feats[3]  # high_pair
    feats[7] = low_pair
    groups[7] = groups[4]  # high_pair
    groups[8] = low_pair_mask
    feats[14] = five_aces
    feats[15] = joker
    straight = 0
    flush = 0
    sflush = 0
    royal = 0
    any_straight = 0
    low_straight = 0  # a straight or straight flush whose top rank slot is not the ace
    if five_aces == 0:
        for k in range(21):
            cat = bs[k] >> 20
            if cat == 4:
                straight = 1
            elif cat == 5:
                flush = 1
            elif cat == 8 or cat == 9:
                sflush = 1
                if cat == 9:
                    royal = 1
            if cat == 4 or cat == 8 or cat == 9:
                any_straight = 1
                if ((bs[k] >> 16) & 15) != 14:
                    low_straight = 1
    feats[16] = straight
    feats[17] = flush
    feats[18] = sflush
    feats[19] = 1 if (straight or flush or sflush) else 0
    feats[20] = royal
    feats[21] = 1 if (any_straight and not low_straight) else 0
    feats[22] = singles_mask
    # Rules in order.
    for ri in range(programs.shape[0]):
        if not _run_program(programs[ri], lengths[ri], feats, stack):
            continue
        # The least front the rule accepts: its front_min, and above the best front any setting with a
        # back of at least beats_front_with allows ("if the front hand can be improved").
        floor = floors[ri]
        if beats[ri] >= 0:
            for k in range(21):
                if fs[k] <= bs[k] and (bs[k] >> 20) >= beats[ri] and fs[k] + 1 > floor:
                    floor = fs[k] + 1
        best = -1
        bk1 = -1
        bk2 = -1
        for k in range(21):
            if fs[k] > bs[k]:
                continue  # foul (Livermore rule 50a): never a candidate
            if fs[k] < floor:
                continue
            fm = (1 << front_idx[k, 0]) | (1 << front_idx[k, 1])
            ok = True
            for t in range(n_takes[ri]):
                gm = groups[takes[ri, t, 0]]
                if gm == 0:
                    ok = False
                    break
                want = takes[ri, t, 1]
                if want == -1:
                    want = _popcount(gm)
                if _popcount(fm & gm) != want:
                    ok = False
                    break
            if not ok:
                continue
            if back_min[ri] >= 0 and (bs[k] >> 20) < back_min[ri]:
                continue
            if prefer[ri] == 0:
                k1 = fs[k]
                k2 = bs[k]
            else:
                k1 = bs[k]
                k2 = fs[k]
            if k1 > bk1 or (k1 == bk1 and k2 > bk2):
                best = k
                bk1 = k1
                bk2 = k2
        if best >= 0:
            return best, ri
    best = -1
    bk1 = -1
    bk2 = -1
    for k in range(21):
        if fs[k] > bs[k]:
            continue
        if bs[k] > bk1 or (bs[k] == bk1 and fs[k] > bk2):
            best = k
            bk1 = bs[k]
            bk2 = fs[k]
    return best, -1


@numba.njit(parallel=True, nogil=True, cache=True)
def _set_batch(
    hands: I64, five: npt.NDArray[np.int32], two: npt.NDArray[np.int32], front_idx: I64, back_idx: I64,
    programs: I64, lengths: I64, takes: I64, n_takes: I64, back_min: I64, prefer: I64, floors: I64,
    beats: I64, n_features: int, n_groups: int, chunk: int, out_split: I64, out_rule: I64,
) -> None:
    n = hands.shape[0]
    n_chunks = (n + chunk - 1) // chunk
    for ch in numba.prange(n_chunks):
        fs = np.empty(21, dtype=np.int64)
        bs = np.empty(21, dtype=np.int64)
        feats = np.empty(n_features, dtype=np.int64)
        groups = np.empty(n_groups, dtype=np.int64)
        stack = np.empty(STACK, dtype=np.int64)
        masks = np.empty(15, dtype=np.int64)
        counts = np.empty(15, dtype=np.int64)
        for i in range(ch * chunk, min(n, (ch + 1) * chunk)):
            k, r = _set_one(
                hands[i], five, two, front_idx, back_idx, programs, lengths, takes, n_takes, back_min,
                prefer, floors, beats, fs, bs, feats, groups, stack, masks, counts,
            )
            out_split[i] = k
            out_rule[i] = r


def set_hands_batch(
    compiled: CompiledHouseWay, hands: npt.ArrayLike, profile: PaiGowProfile = DEFAULT_PROFILE
) -> tuple[I64, I64]:
    """House-way settings of an (N, 7) array of card indices: (split index into FRONT_INDEX_PAIRS,
    rule index or -1) per hand."""
    h = np.ascontiguousarray(np.asarray(hands, dtype=np.int64))
    if h.ndim != 2 or h.shape[1] != 7:
        raise CardCountError(f"hands must be an (N, 7) array of card indices, got shape {h.shape}")
    if h.size and (h.min() < 0 or h.max() > 52):
        raise CardCountError(f"card indices must be 0..52, got {int(h.min())}..{int(h.max())}")
    out_split = np.empty(h.shape[0], dtype=np.int64)
    out_rule = np.empty(h.shape[0], dtype=np.int64)
    _set_batch(
        h, five_card_table(profile), two_card_table(profile), FRONT_INDEX, BACK_MASK_TO_SPLIT.reshape(128, 1),
        compiled.programs, compiled.lengths, compiled.takes, compiled.n_takes, compiled.back_min,
        compiled.prefer, front_floors(compiled, profile), compiled.beats, len(FEATURE_NAMES), len(GROUPS),
        1024, out_split, out_rule,
    )
    return out_split, out_rule


assert RANK_BITS == 20 and int(Category.STRAIGHT) == 4 and int(Category.FLUSH) == 5  # kernel constants
assert FEATURE_NAMES.index("singles") == 22 and FEATURE_NAMES.index("royal_flush") == 20
assert FEATURE_NAMES.index("only_ace_high_straight") == 21 and int(Category.ROYAL_FLUSH) == 9
assert FEATURE_NAMES.index("five_aces") == 14
