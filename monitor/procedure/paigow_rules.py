"""The Pai Gow rules the monitor judges with, bound to one table's profile.

A thin layer over ``monitor.rules.paigow`` (foul check, house way, showdown, settlement,
dice -> seat) and ``monitor.rules.hands``: it fixes the profile and the house way once, turns
card text into cards, and caches the house way of a seven-card hand (a round asks for the
same hand more than once: a foul's backline bettors, then the settlement).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from monitor.rules.cards import Card, parse_card
from monitor.rules.fast.tables import five_card_table, two_card_table
from monitor.rules.paigow.catalog import house_way_for
from monitor.rules.paigow.dice import action_order, action_seat, check_dice, delivery_map
from monitor.rules.paigow.errors import DiceError
from monitor.rules.paigow.house_way import set_hand
from monitor.rules.paigow.partial import Colour, Partial, completions
from monitor.rules.paigow.setting import Foul, FoulKind, Setting, judge_setting
from monitor.rules.paigow.showdown import Outcome
from monitor.rules.profile import DEFAULT_PROFILE, Direction, PaiGowProfile

HOUSE_WAY_CACHE = 4096


@lru_cache(maxsize=256)
def card(text: str) -> Card:
    return parse_card(text)


def cards(texts: Sequence[str]) -> tuple[Card, ...]:
    return tuple(card(t) for t in texts)


# Card text -> dense index (0..52), filled on first sight; the wire form is already normalised.
_INDEX: dict[str, int] = {}


def index(text: str) -> int:
    i = _INDEX.get(text)
    if i is None:
        i = _INDEX[text] = parse_card(text).index
    return i


@cache
def _score_lists(profile: PaiGowProfile) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The rules' score tables (same scores as HandValue.score) as tuples, one lookup per card.

    Built once per profile and shared: the five-card table has 777,510 entries. Tuples of ints, not
    lists: the garbage collector stops tracking such a tuple, where it would walk a list's 777,510
    items at every older-generation collection for the life of the process.
    """
    return tuple(five_card_table(profile).tolist()), tuple(two_card_table(profile).tolist())


def outcome(player: tuple[int, int], banker: tuple[int, int]) -> Outcome:
    """Livermore rules 2 and 62 on (front, back) scores: both higher wins, a copy goes to the banker."""
    front = player[0] > banker[0]
    back = player[1] > banker[1]
    if front and back:
        return Outcome.WIN
    if not front and not back:
        return Outcome.LOSE
    return Outcome.PUSH


def count_foul(front_n: int, back_n: int) -> Foul | None:
    """Rule 50b/c on counts alone (the cards may still be face down)."""
    if front_n != 2:
        return Foul(FoulKind.FRONT_COUNT, "seed 000 rule 50b", f"front hand has {front_n} cards, must have 2")
    if back_n != 5:
        return Foul(FoulKind.BACK_COUNT, "seed 000 rule 50c", f"back hand has {back_n} cards, must have 5")
    return None


def _show(cs: Sequence[Partial]) -> str:
    return " ".join("?" if c is None else c if len(c) == 2 else f"{c}?" for c in cs)


class PaiGowRules:
    """One table's Pai Gow rules: profile plus house way."""

    def __init__(self, profile: PaiGowProfile = DEFAULT_PROFILE) -> None:
        self.profile = profile
        self.way = house_way_for(profile)
        self._house: dict[frozenset[Card], Setting] = {}
        self._t5: tuple[int, ...] = ()
        self._t2: tuple[int, ...] = ()

    def warm_up(self) -> None:
        """Build the score tables now (a second or so, once per profile) rather than at the first setting."""
        if not self._t5:
            self._t5, self._t2 = _score_lists(self.profile)

    def scores(self, front: Sequence[str], back: Sequence[str]) -> tuple[int, int]:
        """(front score, back score) of a well-formed setting (2 and 5 distinct known cards)."""
        ix = _INDEX
        try:
            a, b = ix[front[0]], ix[front[1]]
            c, d, e, f, g = ix[back[0]], ix[back[1]], ix[back[2]], ix[back[3]], ix[back[4]]
        except KeyError:
            a, b = index(front[0]), index(front[1])
            c, d, e, f, g = (index(x) for x in back)
        t = self._t5
        if not t:
            t, self._t2 = _score_lists(self.profile)
            self._t5 = t
        return self._t2[a * 53 + b], t[t[t[t[t[c] + d] + e] + f] + g]

    def judge(self, front: Sequence[str], back: Sequence[str], dealt: Sequence[str] | None) -> Foul | None:
        """Rule 50 (and 42 when the dealt cards are known): None if legal, else why it fouls."""
        return self.judge_scored(front, back, dealt)[0]

    def judge_scored(
        self, front: Sequence[str], back: Sequence[str], dealt: Sequence[str] | None
    ) -> tuple[Foul | None, tuple[int, int] | None]:
        """(foul, None) or (None, (front score, back score)) for a legal setting.

        The legal case, by far the common one, is decided on table scores; only a foul goes through
        the rules engine's ``judge_setting`` for its reasons.
        """
        if len(front) == 2 and len(back) == 5:
            distinct = {*front, *back}
            if len(distinct) == 7 and (dealt is None or (distinct == set(dealt) and len(dealt) == 7)):
                scores = self.scores(front, back)
                if scores[0] <= scores[1]:
                    return None, scores
        foul = judge_setting(cards(front), cards(back), cards(dealt) if dealt is not None else None,
                             self.profile)
        return foul, None

    def judge_partial(self, front: Sequence[Partial], back: Sequence[Partial],
                      back_colours: Sequence[Colour] | None = None) -> Foul | None:
        """Rule 50a on a setting read in part (cards as text, rank alone, or None; the five-card hand's
        inks where read): a foul only when every completion of the unread parts is one
        (``monitor.rules.paigow.partial``)."""
        if len(front) != 2 or len(back) != 5:
            return count_foul(len(front), len(back))
        options = completions(front, back, colours=back_colours)
        if options is None:
            return None
        n = 0
        for f, b in options:
            fs, bs = self.scores(f, b)
            if fs <= bs:
                return None
            n += 1
        if n == 0:
            return None
        how = f" however its unread parts ('?') are read ({n} ways)" if n > 1 else ""
        return Foul(FoulKind.FRONT_STRONGER, "seed 000 rule 50a",
                    f"two-card front hand ({_show(front)}) beats the five-card back hand "
                    f"({_show(back)}){how}")

    def house_way(self, seven: Sequence[Card]) -> Setting:
        key = frozenset(seven)
        hit = self._house.get(key)
        if hit is None:
            if len(self._house) >= HOUSE_WAY_CACHE:
                self._house.clear()  # a live table sees new hands forever: keep the cache bounded
            hit = self._house[key] = set_hand(self.way, seven, self.profile).setting
        return hit

    def house_way_text(self, seven: Sequence[str]) -> str:
        return str(self.house_way(cards(seven)))

    @staticmethod
    def dice_problem(values: Sequence[int]) -> str | None:
        """Why a dice reading is impossible (three dice, 1..6 each), or None."""
        try:
            check_dice(values)
        except DiceError as exc:
            return str(exc)
        return None

    def delivery_map(self, action_pile: int, dice: Sequence[int], banker_seat: int) -> dict[int, int]:
        return delivery_map(action_pile, dice, banker_seat, self.profile)

    def action_seat(self, dice: Sequence[int], banker_seat: int) -> int:
        return action_seat(dice, banker_seat, self.profile)

    def action_order(self, first_seat: int, banker_seat: int) -> list[int]:
        return action_order(first_seat, banker_seat, self.profile)

    def count_rule(self, banker_seat: int) -> str:
        """How the dice are counted at this table, for the message."""
        way = "counterclockwise" if self.profile.dice_direction is Direction.COUNTERCLOCKWISE else "clockwise"
        start = "as 1" if self.profile.banker_counts_as_one else "as 0"
        return f"counted {way}, Player-Dealer at seat {banker_seat} {start}"
