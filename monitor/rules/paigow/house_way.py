"""House way: a small declarative rule language for setting a seven-card hand, and its interpreter.

A house way is data (YAML or JSON; built-in ones ship in ``house_ways/``, a room may define its own):

.. code-block:: yaml

    name: my_room
    title: My Room house way
    source: where the text comes from
    rules:                       # tried in order; the first whose `when` holds AND can be met sets the hand
      - name: one pair           # shown to the floor ("set by rule 'one pair'")
        when: pairs == 1         # a condition over the hand's features (below)
        back: [pair1]            # groups that stay whole in the back
        front: [{group: trips, count: 2}]   # front takes exactly `count` cards of a group (default: all)
        back_min: straight       # the back must be at least this category (a "complete hand")
        front_min: J             # the least front: a rank (J = jack-high or better), two ranks (AJ =
                                 # ace-jack or better, 77 = sevens or better) or `pair` (any pair)
        beats_front_with: straight   # the front must beat the best front any setting with a back of at
                                 # least this category allows ("if the front hand can be improved")
        prefer: front            # among settings that qualify, the best front (then back); or `back`
        cite: "Two pair: ..."    # the line of the published text the rule encodes (documentation only)

**Features** a ``when`` may use (the joker groups as an ace, Livermore rule 47):
``pairs``, ``trips``, ``quads`` (how many groups of each size), ``five_aces``, ``joker`` (bools);
``pair1``, ``pair2``, ``pair3`` (pair ranks, highest first; 0 if absent), ``high_pair``, ``low_pair``,
``trips1``, ``trips2``, ``quads1``, ``single1``, ``single2``, ``single3`` (single ranks, highest first),
``singles`` (the set of single ranks, for ``A in singles``); ``straight``, ``flush``, ``straight_flush``,
``royal_flush``, ``complete`` (some five of the seven make that hand; ``straight_flush`` includes a royal);
``only_ace_high_straight`` (some five make a straight or straight flush, and every one they make is
ace-high: no lower straight, the wheel included); rank names ``A K Q J T`` and numbers.
Operators: ``and or not``, comparisons, ``in``/``not in``, ``+``/``-``.

**Groups** for ``front``/``back``: ``five_aces``, ``quads``, ``trips`` (= ``trips1``), ``trips2``,
``pair1``, ``pair2``, ``pair3``, ``high_pair``, ``low_pair``, ``single1``, ``single2``, ``single3``.

A house way never fouls: only settings that pass the foul check (Livermore rule 50) are candidates; a rule
that cannot be met is skipped, and if no rule applies the best legal setting (best back, then best front)
is used. Every loaded definition is validated; errors name the house way, the rule and the field.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from monitor.rules.cards import RANK_CHARS, Card, parse_cards
from monitor.rules.hands import RANK_BITS, Category, HandValue, evaluate_five, evaluate_two
from monitor.rules.paigow.errors import HouseWayError
from monitor.rules.paigow.setting import FRONT_INDEX_PAIRS, Setting, check_seven
from monitor.rules.profile import DEFAULT_PROFILE, PaiGowProfile

ACE: Final = 14
RANK_CONSTANTS: Final[dict[str, int]] = {"A": 14, "K": 13, "Q": 12, "J": 11, "T": 10}
INT_FEATURES: Final = (
    "pairs", "trips", "quads", "pair1", "pair2", "pair3", "high_pair", "low_pair",
    "trips1", "trips2", "quads1", "single1", "single2", "single3",
)
BOOL_FEATURES: Final = (
    "five_aces", "joker", "straight", "flush", "straight_flush", "complete", "royal_flush",
    "only_ace_high_straight",
)
SET_FEATURES: Final = ("singles",)
FEATURES: Final = frozenset((*INT_FEATURES, *BOOL_FEATURES, *SET_FEATURES))
GROUPS: Final = (
    "five_aces", "quads", "trips", "trips2", "pair1", "pair2", "pair3", "high_pair", "low_pair",
    "single1", "single2", "single3",
)
RULE_KEYS: Final = frozenset(
    {"name", "when", "front", "back", "back_min", "front_min", "beats_front_with", "prefer", "note", "cite"}
)
PREFER: Final = ("front", "back")
_CMP_OPS: Final = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn)


# --- the condition language ------------------------------------------------------------------------
def _check_expr(node: ast.AST, where: str) -> None:
    """Allow only the tiny language documented above (no calls, attributes, subscripts ...)."""
    if isinstance(node, ast.Expression):
        _check_expr(node.body, where)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            _check_expr(v, where)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        _check_expr(node.operand, where)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        _check_expr(node.left, where)
        _check_expr(node.right, where)
    elif isinstance(node, ast.Compare):
        for op in node.ops:
            if not isinstance(op, _CMP_OPS):
                raise HouseWayError(f"{where}: operator {type(op).__name__} is not allowed")
        _check_expr(node.left, where)
        for c in node.comparators:
            _check_expr(c, where)
    elif isinstance(node, ast.Name):
        if node.id not in FEATURES and node.id not in RANK_CONSTANTS and node.id not in ("true", "false"):
            raise HouseWayError(
                f"{where}: unknown name {node.id!r} (features: {', '.join(sorted(FEATURES))}; "
                f"ranks: {' '.join(RANK_CONSTANTS)})"
            )
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int) or not 0 <= node.value <= 60:
            raise HouseWayError(f"{where}: constant {node.value!r} is not a rank, count or rank sum (0..60)")
    else:
        raise HouseWayError(f"{where}: {type(node).__name__} is not part of the house-way condition language")


def _eval(node: ast.AST, env: Mapping[str, object]) -> object:
    if isinstance(node, ast.Expression):
        return _eval(node.body, env)
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, env) for v in node.values)
        return any(_eval(v, env) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        return not _eval(node.operand, env)
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env), _eval(node.right, env)
        assert isinstance(left, int) and isinstance(right, int)
        return left + right if isinstance(node.op, ast.Add) else left - right
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _eval(comp, env)
            if not _compare(op, left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Name):
        if node.id in RANK_CONSTANTS:
            return RANK_CONSTANTS[node.id]
        if node.id in ("true", "false"):
            return node.id == "true"
        return env[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    raise HouseWayError(f"cannot evaluate {type(node).__name__}")  # unreachable after _check_expr


def _compare(op: ast.cmpop, a: Any, b: Any) -> bool:
    if isinstance(op, ast.Eq):
        return bool(a == b)
    if isinstance(op, ast.NotEq):
        return bool(a != b)
    if isinstance(op, ast.Lt):
        return bool(a < b)
    if isinstance(op, ast.LtE):
        return bool(a <= b)
    if isinstance(op, ast.Gt):
        return bool(a > b)
    if isinstance(op, ast.GtE):
        return bool(a >= b)
    if isinstance(op, ast.In):
        return bool(a in b)
    return bool(a not in b)


def parse_condition(text: str, where: str) -> ast.Expression:
    if not isinstance(text, str) or not text.strip():
        raise HouseWayError(f"{where}: 'when' must be a non-empty condition, got {text!r}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise HouseWayError(f"{where}: cannot parse condition {text!r}: {e.msg}") from None
    _check_expr(tree, where)
    return tree


# --- the data model --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GroupTake:
    """The front takes exactly ``count`` cards of ``group``."""

    group: str
    count: int


@dataclass(frozen=True, slots=True)
class HouseRule:
    name: str
    when: str
    condition: ast.Expression
    takes: tuple[GroupTake, ...]
    back_min: Category | None
    prefer: str
    front_min: str | None = None  # the least two-card hand allowed, as cards ("Jc 2d")
    beats_front_with: Category | None = None
    cite: str = ""


@dataclass(frozen=True, slots=True)
class HouseWay:
    name: str
    title: str
    source: str
    rules: tuple[HouseRule, ...]

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> HouseWay:
        """Build and validate a house way from parsed YAML/JSON."""
        if not isinstance(data, Mapping):
            raise HouseWayError(f"a house way must be a mapping, got {type(data).__name__}")
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise HouseWayError("house way needs a non-empty 'name'")
        unknown = set(data) - {"name", "title", "source", "notes", "readings", "rules"}
        if unknown:
            raise HouseWayError(f"house way {name!r}: unknown key(s) {sorted(unknown)}")
        raw_rules = data.get("rules")
        if not isinstance(raw_rules, list) or not raw_rules:
            raise HouseWayError(f"house way {name!r}: 'rules' must be a non-empty list")
        rules = tuple(_parse_rule(r, f"house way {name!r} rule {i + 1}") for i, r in enumerate(raw_rules))
        return cls(name, str(data.get("title", name)), str(data.get("source", "")), rules)


def _parse_rule(raw: Any, where: str) -> HouseRule:
    if not isinstance(raw, Mapping):
        raise HouseWayError(f"{where}: must be a mapping, got {type(raw).__name__}")
    unknown = set(raw) - RULE_KEYS
    if unknown:
        raise HouseWayError(f"{where}: unknown key(s) {sorted(unknown)} (allowed: {sorted(RULE_KEYS)})")
    rname = raw.get("name")
    if not isinstance(rname, str) or not rname:
        raise HouseWayError(f"{where}: needs a non-empty 'name'")
    where = f"{where} ({rname!r})"
    when = raw.get("when", "true")
    if when is True:
        when = "true"
    cond = parse_condition(when, where)
    takes: list[GroupTake] = []
    for key, whole in (("front", True), ("back", False)):
        items = raw.get(key, [])
        if not isinstance(items, list):
            raise HouseWayError(f"{where}: '{key}' must be a list of groups")
        for item in items:
            group: object
            count: object
            if isinstance(item, str):
                group, count = item, None
            elif isinstance(item, Mapping) and key == "front" and set(item) <= {"group", "count"}:
                group, count = item.get("group"), item.get("count")
            else:
                raise HouseWayError(f"{where}: bad {key} entry {item!r} (a group name or {{group, count}})")
            if group not in GROUPS:
                raise HouseWayError(
                    f"{where}: unknown group {group!r} in '{key}' (groups: {', '.join(GROUPS)})"
                )
            bad_count = isinstance(count, bool) or not isinstance(count, int) or count not in (1, 2)
            if count is not None and bad_count:
                raise HouseWayError(f"{where}: count {count!r} for group {group!r} must be 1 or 2")
            # -1 means "the whole group" (its size is known only for a given hand).
            want = (count if isinstance(count, int) else -1) if whole else 0
            takes.append(GroupTake(str(group), want))
    back_min = _category(raw.get("back_min"), "back_min", where)
    beats = _category(raw.get("beats_front_with"), "beats_front_with", where)
    front_min = _front_min(raw.get("front_min"), where)
    prefer = raw.get("prefer", "front")
    if prefer not in PREFER:
        raise HouseWayError(f"{where}: prefer must be 'front' or 'back', got {prefer!r}")
    cite = raw.get("cite", "")
    if not isinstance(cite, str):
        raise HouseWayError(f"{where}: cite must be text, got {type(cite).__name__}")
    return HouseRule(rname, str(when), cond, tuple(takes), back_min, str(prefer), front_min, beats, cite)


def _category(raw: object, key: str, where: str) -> Category | None:
    if raw is None:
        return None
    try:
        return Category[str(raw).upper()]
    except KeyError:
        names = ", ".join(c.name.lower() for c in Category)
        raise HouseWayError(f"{where}: unknown {key} {raw!r} (one of: {names})") from None


def _front_min(raw: object, where: str) -> str | None:
    """The least two-card hand the front may be, as two cards: ``pair`` (2-2), a rank (``J``: J-2, i.e.
    jack-high or better) or two ranks (``AJ``: ace-jack or better; ``77``: sevens or better)."""
    if raw is None:
        return None
    text = str(raw).strip().upper()
    if text == "PAIR":
        text = "22"
    elif len(text) == 1 and text in RANK_CHARS[1:]:
        text += "2"
    if len(text) != 2 or any(ch not in RANK_CHARS for ch in text):
        raise HouseWayError(
            f"{where}: front_min {raw!r} must be 'pair', a rank (J = jack-high or better) "
            "or two ranks (AJ = ace-jack or better, 77 = sevens or better)"
        )
    hi, lo = sorted(text, key=RANK_CHARS.index, reverse=True)
    return f"{hi}c {lo}d"


@cache
def front_threshold(front_min: str, profile: PaiGowProfile) -> int:
    """Score of the least two-card hand ``front_min`` (two cards, from :func:`_front_min`) allows."""
    return evaluate_two(parse_cards(front_min), profile).score


# --- hand analysis ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class HandShape:
    """Rank groups of seven cards (joker as an ace) as bit masks over the seven positions, and features."""

    features: dict[str, object]
    groups: dict[str, int]


def group_rank(card: Card) -> int:
    return ACE if card.is_joker else card.rank


def analyse(cards: Sequence[Card], backs: Sequence[HandValue]) -> HandShape:
    """Features and groups of seven cards; ``backs`` are the 21 back values (in FRONT_INDEX_PAIRS order)."""
    masks: dict[int, int] = {}
    for i, c in enumerate(cards):
        r = group_rank(c)
        masks[r] = masks.get(r, 0) | (1 << i)
    by_size: dict[int, list[int]] = {1: [], 2: [], 3: [], 4: [], 5: []}
    for r in sorted(masks, reverse=True):
        by_size[masks[r].bit_count()].append(r)
    pairs, trips, quads, singles = by_size[2], by_size[3], by_size[4], by_size[1]

    def nth(xs: list[int], k: int) -> int:
        return xs[k] if len(xs) > k else 0

    # Categories from the score key (as the fast path sees them): under the Lucky Chances ranking five aces
    # carry the royal flush key, and seven cards holding five aces can make no straight or flush anyway.
    cats = {v.score >> RANK_BITS for v in backs} if not by_size[5] else set()
    straight_cats = (Category.STRAIGHT, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH)
    # The top rank slot of each straight (the wheel's is 5, or 13 then 1 when it ranks second-highest).
    tops = [(v.score >> (RANK_BITS - 4)) & 15 for v in backs if v.score >> RANK_BITS in straight_cats]
    if by_size[5]:
        tops = []
    f: dict[str, object] = {
        "pairs": len(pairs), "trips": len(trips), "quads": len(quads),
        "five_aces": bool(by_size[5]), "joker": any(c.is_joker for c in cards),
        "pair1": nth(pairs, 0), "pair2": nth(pairs, 1), "pair3": nth(pairs, 2),
        "high_pair": nth(pairs, 0), "low_pair": pairs[-1] if pairs else 0,
        "trips1": nth(trips, 0), "trips2": nth(trips, 1), "quads1": nth(quads, 0),
        "single1": nth(singles, 0), "single2": nth(singles, 1), "single3": nth(singles, 2),
        "singles": frozenset(singles),
        "straight": Category.STRAIGHT in cats,
        "flush": Category.FLUSH in cats,
        "straight_flush": bool(cats & {Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH}),
        "royal_flush": Category.ROYAL_FLUSH in cats,
        "only_ace_high_straight": bool(tops) and all(t == ACE for t in tops),
    }
    f["complete"] = bool(f["straight"] or f["flush"] or f["straight_flush"])

    def mask(xs: list[int], k: int) -> int:
        return masks[xs[k]] if len(xs) > k else 0

    g = {
        "five_aces": mask(by_size[5], 0), "quads": mask(quads, 0), "trips": mask(trips, 0),
        "trips2": mask(trips, 1), "pair1": mask(pairs, 0), "pair2": mask(pairs, 1), "pair3": mask(pairs, 2),
        "high_pair": mask(pairs, 0), "low_pair": masks[pairs[-1]] if pairs else 0,
        "single1": mask(singles, 0), "single2": mask(singles, 1), "single3": mask(singles, 2),
    }
    return HandShape(f, g)


FRONT_MASKS: Final[tuple[int, ...]] = tuple((1 << i) | (1 << j) for i, j in FRONT_INDEX_PAIRS)


@dataclass(frozen=True, slots=True)
class HouseWayResult:
    setting: Setting
    rule: str
    front: HandValue
    back: HandValue


def _meets(rule: HouseRule, k: int, groups: Mapping[str, int], back: HandValue, front: HandValue,
           front_floor: int) -> bool:
    if front.score < front_floor:
        return False
    fm = FRONT_MASKS[k]
    for t in rule.takes:
        gm = groups[t.group]
        if gm == 0:
            return False  # the rule names a group this hand does not have
        want = gm.bit_count() if t.count == -1 else t.count
        if (fm & gm).bit_count() != want:
            return False
    return rule.back_min is None or back.score >> RANK_BITS >= rule.back_min


def _front_floor(
    rule: HouseRule, legal: Sequence[int], fronts: Sequence[HandValue], backs: Sequence[HandValue],
    profile: PaiGowProfile,
) -> int:
    """The least front score the rule accepts: front_min's, and above beats_front_with's best front."""
    floor = -1 if rule.front_min is None else front_threshold(rule.front_min, profile)
    if rule.beats_front_with is not None:
        cat = rule.beats_front_with
        ref = [fronts[k].score for k in legal if backs[k].score >> RANK_BITS >= cat]
        if ref:
            floor = max(floor, max(ref) + 1)
    return floor


def set_hand(
    way: HouseWay, cards: Iterable[Card], profile: PaiGowProfile = DEFAULT_PROFILE
) -> HouseWayResult:
    """Set seven cards the house way; the result never fouls (Livermore rules 50, 54)."""
    cs = check_seven(cards, "hand to set the house way")
    fronts = [evaluate_two((cs[i], cs[j]), profile) for i, j in FRONT_INDEX_PAIRS]
    backs = [
        evaluate_five(tuple(c for x, c in enumerate(cs) if x != i and x != j), profile)
        for i, j in FRONT_INDEX_PAIRS
    ]
    legal = [k for k in range(len(fronts)) if not fronts[k] > backs[k]]
    shape = analyse(cs, backs)
    chosen: int | None = None
    rule_name = "fallback: best legal setting"
    for rule in way.rules:
        if not _eval(rule.condition, shape.features):
            continue
        floor = _front_floor(rule, legal, fronts, backs, profile)
        cands = [k for k in legal if _meets(rule, k, shape.groups, backs[k], fronts[k], floor)]
        if not cands:
            continue
        if rule.prefer == "front":
            chosen = max(cands, key=lambda k: (fronts[k].score, backs[k].score, -k))
        else:
            chosen = max(cands, key=lambda k: (backs[k].score, fronts[k].score, -k))
        rule_name = rule.name
        break
    if chosen is None:
        chosen = max(legal, key=lambda k: (backs[k].score, fronts[k].score, -k))
    i, j = FRONT_INDEX_PAIRS[chosen]
    back = tuple(c for x, c in enumerate(cs) if x != i and x != j)
    setting = Setting((cs[i], cs[j]), (back[0], back[1], back[2], back[3], back[4]))
    return HouseWayResult(setting, rule_name, fronts[chosen], backs[chosen])


def setter(way: HouseWay, profile: PaiGowProfile = DEFAULT_PROFILE) -> Callable[[Sequence[Card]], Setting]:
    """The house way as a plain function of seven cards (what the showdown needs)."""

    def run(cards: Sequence[Card]) -> Setting:
        return set_hand(way, cards, profile).setting

    return run
