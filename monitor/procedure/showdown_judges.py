"""Judging the pot of Push-Nine and Pan (Poker Games) against the rules engine.

Pure functions over what a :class:`~monitor.procedure.poker.PokerRound` saw: the hands shown (or
melds shown) and the award the dealer made. Each returns a :class:`PotJudgement`: what the rules
give, the alert to raise if the award differs, and a note for the hand history.

- Push-Nine: the best hand by the seed's 36-rank table takes the whole pot
  (``monitor.rules.games.push_nine.showdown``); tied best hands make a push pot, which is carried
  to a new hand, so paying it out is the fault.
- Pan: the player who shows eleven cards melded in valid conditions, nothing held, is out and
  collects the antes reserved by the dealer (antes less the house rate) and two chips from each
  other player who played (Poker Games Pan rules 3 and 5; ``monitor.rules.games.pan``). Players who
  passed lose only their ante. Amounts are chips.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from monitor.procedure.alerting import money
from monitor.procedure.paigow_rules import card
from monitor.rules.errors import RulesError
from monitor.rules.games import pan, push_nine
from monitor.rules.games.profile import DEFAULT_GAME_PROFILE, GameProfile


@dataclass(frozen=True, slots=True)
class PotJudgement:
    expected: dict[int, int] | None  # seat -> amount the rules give; None when not judged
    note: str | None = None  # for the history: why not judged, or how the pot went
    code: str | None = None  # the alert to raise (the award differs from ``expected``)
    facts: dict[str, Any] = field(default_factory=dict)
    hands: dict[int, str] = field(default_factory=dict)  # seat -> the hand as the rules name it


def _seat_of(who: str) -> int:
    return int(who.split()[1])


def _shares(d: Mapping[int, int], unit: str = "money") -> str:
    if unit == "chips":
        parts = [f"seat {s} {a} chip{'s' if a != 1 else ''}" for s, a in sorted(d.items())]
        return ", ".join(parts) or "nobody"
    return ", ".join(f"seat {s} {money(a)}" for s, a in sorted(d.items())) or "nobody"


def judge_push_nine(
    shown: Mapping[int, Sequence[str]], contenders: Sequence[int], pot: int, paid: Mapping[int, int],
    profile: GameProfile = DEFAULT_GAME_PROFILE,
) -> PotJudgement:
    """The Push-Nine pot: ``contenders`` (not folded, in seat order from the button) with their
    ``shown`` three cards; ``paid`` is what the dealer awarded (seat -> amount, zeros left out)."""
    if not contenders:
        return PotJudgement(None, "no hand shown at showdown: award not judged")
    hands = {f"seat {s}": [card(c) for c in shown[s]] for s in contenders}
    try:
        result = push_nine.showdown(hands, pot, profile)
    except RulesError as exc:
        return PotJudgement(None, f"showdown not judged: {exc}")
    names = {_seat_of(w): f"{h.name} (rank {h.row})" for w, h in result.hands.items()}
    if result.push is not None:
        tied = ", ".join(result.push.tied)
        note = f"push pot of {pot} between {tied}: carried to the next hand ({result.reason})"
        if not paid:
            return PotJudgement({}, note, hands=names)
        return PotJudgement({}, note, "push_pot_paid", {"paid": _shares(paid), "why": result.reason}, names)
    assert result.winner is not None
    expected = {_seat_of(result.winner): pot}
    if dict(paid) == expected:
        return PotJudgement(expected, hands=names)
    facts = {"paid": _shares(paid), "expected": _shares(expected), "why": result.reason}
    return PotJudgement(expected, None, "push_nine_wrong_winner", facts, names)


def push_nine_unawarded(shown: Mapping[int, Sequence[str]], contenders: Sequence[int]) -> PotJudgement:
    """The showdown when no award was seen, for the history (a tie is a push pot: no award is right)."""
    if not contenders:
        return PotJudgement(None)
    judged = judge_push_nine(shown, contenders, 0, {})
    if judged.note is not None or not judged.expected:
        return PotJudgement(None, judged.note, hands=judged.hands)
    winner = next(iter(judged.expected))
    return PotJudgement(None, f"no award seen; seat {winner} wins with {judged.hands.get(winner, '?')}",
                        hands=judged.hands)


def check_pan_hand(
    seat: int, melds: Sequence[Sequence[str]], held: Sequence[str],
    profile: GameProfile = DEFAULT_GAME_PROFILE,
) -> pan.HandCheck | str:
    """Rule 5 and "foul hands" on one shown hand; a text when the cards cannot be judged at all."""
    hand = pan.PanHand(tuple(card(c) for c in held), tuple(tuple(card(c) for c in m) for m in melds))
    try:
        return pan.check_hand(f"seat {seat}", hand, profile)
    except RulesError as exc:
        return f"seat {seat}'s melds not judged: {exc}"


def judge_pan(
    everyone: Sequence[int], passed: Sequence[int], checks: Mapping[int, pan.HandCheck],
    paid: Mapping[int, int], profile: GameProfile = DEFAULT_GAME_PROFILE,
) -> PotJudgement:
    """The Pan collection: ``everyone`` anted, ``passed`` declared pass, ``checks`` are the hands shown."""
    rules = profile.pan
    playing = [s for s in everyone if s not in passed]
    names = {s: "; ".join(m.reason for m in c.melds) for s, c in checks.items()}
    if not everyone:
        return PotJudgement(None, "no players known: collection not judged")
    try:
        rate = pan.house_rate(len(everyone), profile)
    except RulesError as exc:
        return PotJudgement(None, f"collection not judged: {exc}", hands=names)
    winners = [s for s, c in checks.items() if c.won]
    if len(winners) > 1:
        return PotJudgement(None, f"seats {', '.join(map(str, winners))} each show eleven melded cards: "
                                  "only one player can go out", hands=names)
    if not winners:
        expected: dict[int, int] = {}
        why = "no player has shown eleven cards melded in valid conditions with nothing held"
    else:
        w = winners[0]
        payers = len([s for s in playing if s != w])
        reserved = rules.ante * len(everyone) - rate
        expected = {w: reserved + rules.win_chips * payers}
        why = (f"seat {w} is out: {reserved} reserved antes ({len(everyone)} antes less the house rate of "
               f"{rate}) and {rules.win_chips} chips from each of {payers} other player(s) in the hand")
    if dict(paid) == expected:
        return PotJudgement(expected, why, hands=names)
    facts = {"paid": _shares(paid, "chips"), "expected": _shares(expected, "chips"), "why": why}
    return PotJudgement(expected, why, "pan_wrong_collection", facts, names)
