"""Seeded random Pai Gow round scripts for datasets: clean rounds, or rounds with one named fault.

Everything random comes from one ``numpy`` generator seeded with ``seed``: the banker's seat, who
bets and how much (within the table limits), the deck order, the action pile, the dice, the pace of
the deal. A fault changes the round the way a dealer's slip would and sets ``expect_alerts`` to
what the rules say must be raised.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from monitor.procedure.paigow import serpentine_pile
from monitor.procedure.paigow_rules import PaiGowRules
from monitor.render.rounds.script import Bet, Script, parse_script
from monitor.rules.cards import PAI_GOW_53

# fault -> the alert codes it must raise
FAULTS: dict[str, list[str]] = {
    "stub_three": ["stub_not_four"],
    "stub_five": ["stub_not_four"],
    "exposed_ace": ["ace_or_joker_exposed"],
    "joker_exposed": ["ace_or_joker_exposed"],
    "two_exposed": ["one_card_exposed", "two_or_more_exposed"],
    "exposed_replaced": ["one_card_exposed"],
    "exposed_not_replaced": ["one_card_exposed", "exposed_card_not_replaced"],
    "duplicate_card": ["duplicate_card"],
    "wrong_seat": ["pile_to_wrong_seat", "pile_to_wrong_seat"],
    "player_foul": ["player_foul"],
    "banker_foul": ["banker_foul"],
    "bet_after_dice": ["bet_changed_after_close"],
    "banker_opened_early": ["banker_opened_early"],
    "dead_hand_not_collected": ["dead_hand_not_collected"],
}
PLAIN = [c.text for c in PAI_GOW_53 if c.text[0] != "A" and c.text != "Jk"]
STOP_AFTER_DEAL = {"stub_three", "stub_five", "exposed_ace", "joker_exposed", "two_exposed"}


def random_script(seed: int, fault: str | None = None, banker: int | None = None) -> Script:
    """A round script; ``fault`` one of :data:`FAULTS`, ``"random"`` for any, None for a clean round;
    ``banker`` the Player-Dealer's seat (default: drawn)."""
    rng = np.random.default_rng(seed)
    if fault == "random":
        fault = str(rng.choice(sorted(FAULTS)))
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r} (known: {', '.join(FAULTS)})")
    drawn = int(rng.integers(1, 8))
    banker = drawn if banker is None else banker
    others = [s for s in range(1, 8) if s != banker]
    n_bets = int(rng.integers(2, len(others) + 1))
    if fault == "duplicate_card":
        n_bets = len(others)  # every hand is turned up, so both twins are seen
    elif fault == "dead_hand_not_collected":
        n_bets = len(others) - 1  # exactly one seat without a wager
    bettors = sorted(int(s) for s in rng.choice(others, n_bets, replace=False))
    actions: list[Any] = [
        {"round_start": {"banker_seat": banker}},
        {"bet": {"seat": banker, "dollars": int(rng.integers(10, 41)) * 50}},
    ]
    for s in bettors:
        actions.append({"bet": {"seat": s, "dollars": int(rng.integers(1, 61)) * 5}})
    actions.append("no_more_bets")
    shuffle: dict[str, Any] = {"seed": int(rng.integers(1 << 30))}
    deal: dict[str, Any] = {"card_time": round(float(rng.uniform(0.25, 0.35)), 3)}
    k = int(rng.integers(1, 50))
    if fault == "stub_three":
        shuffle["remove"] = [str(rng.choice(PLAIN))]
    elif fault == "stub_five":
        shuffle["extra"] = [str(rng.choice(PLAIN))]
        shuffle["place"] = {53: shuffle["extra"][0]}
    elif fault in ("exposed_ace", "joker_exposed"):
        shuffle["place"] = {k: str(rng.choice(["As", "Ah", "Ad", "Ac"])) if fault == "exposed_ace" else "Jk"}
        deal["expose"] = [k]
        deal["cards"] = k  # the dealer stops at the exposed card and calls the misdeal
    elif fault == "two_exposed":
        k2 = int(rng.choice([j for j in range(1, 50) if j != k]))
        a, b = (str(c) for c in rng.choice(PLAIN, 2, replace=False))
        shuffle["place"] = {k: a, k2: b}
        deal["expose"] = sorted([k, k2])
        deal["cards"] = max(k, k2)
    elif fault in ("exposed_replaced", "exposed_not_replaced"):
        shuffle["place"] = {k: str(rng.choice(PLAIN))}
        deal["expose"] = [k]
    elif fault == "duplicate_card":
        twin = str(rng.choice(PLAIN))
        k2 = int(rng.choice([j for j in range(1, 50) if serpentine_pile(j) != serpentine_pile(k)]))
        gone = str(rng.choice([c for c in PLAIN if c != twin]))
        shuffle.update({"remove": [gone], "extra": [twin], "place": {k: twin, k2: twin}})
    actions += [{"shuffle": shuffle}, {"deal": deal}]
    if fault in STOP_AFTER_DEAL:
        if fault in ("stub_three", "stub_five"):
            # the spread lies counted while the floor is called: the misdeal is not the same instant
            actions += ["count_stub", {"wait": {"duration": 2.0}}]
        actions += [{"misdeal": {"reason": fault.replace("_", " ")}}, "round_end"]
        return _script(seed, fault, actions)
    actions.append("count_stub")
    if fault == "exposed_replaced":
        actions.append("replace_exposed")
    pile = int(rng.integers(1, 8))
    dice = [int(v) for v in rng.integers(1, 7, 3)]
    actions += [{"action_pile": {"pile": pile}}, {"roll_dice": {"values": dice}}]
    if fault == "bet_after_dice":
        s = int(rng.choice(bettors))
        actions.append({"change_bet": {"seat": s, "dollars": int(rng.integers(61, 100)) * 5}})
    if fault == "wrong_seat":
        expected = PaiGowRules().delivery_map(pile, dice, banker)
        p = int(rng.integers(1, 8))
        seat = int(rng.choice([s for s in range(1, 8) if s != expected[p]]))
        actions.append({"deliver": {"wrong": {p: seat}}})
        actions += [{"misdeal": {"reason": "pile to the wrong seat"}}, "round_end"]
        return _script(seed, fault, actions)
    actions.append("deliver")
    if fault != "dead_hand_not_collected":
        actions.append("collect_dead")
    if fault == "banker_opened_early":
        first = bettors[: len(bettors) // 2]
        actions += [{"set_hands": {"seats": first}}, "expose_banker", {"set_hands": {"house_way": True}}]
    else:
        foul = [int(rng.choice(bettors))] if fault == "player_foul" else []
        actions += [{"set_hands": {"foul": foul}} if foul else "set_hands", "expose_banker"]
    actions += [{"set_banker": {"foul": True}}, "set_banker"] if fault == "banker_foul" else ["set_banker"]
    actions += ["open_hands"]
    if fault == "duplicate_card":
        actions += [{"misdeal": {"reason": "duplicate card"}}, "round_end"]
    else:
        actions += ["payouts", "round_end"]
    return _script(seed, fault, actions)


def _script(seed: int, fault: str | None, actions: list[Any]) -> Script:
    name = f"random_{seed}" + (f"_{fault}" if fault else "")
    data = {
        "name": name,
        "description": f"generated: seed {seed}, {'fault ' + fault if fault else 'clean'}",
        "seed": seed,
        "expect_alerts": FAULTS[fault] if fault else [],
        "actions": actions,
    }
    return parse_script(data, f"<generated {name}>")


def random_session(seed: int, count: int, fault: str | None = None) -> list[Script]:
    """``count`` rounds for one table, one after another, whose banker follows the Player-Dealer
    rotation (Livermore rules 3 and 40: at most two consecutive hands, then to a seat that wagered on
    the previous hand and often enough this round of play), so that played back to back they raise
    only their own faults. Round ``k`` is ``random_script(seed + k, fault, banker)``."""
    import copy

    from monitor.procedure.banker import BankerWatch
    from monitor.rules.profile import DEFAULT_PROFILE

    watch = BankerWatch(DEFAULT_PROFILE)
    out: list[Script] = []
    banker: int | None = None
    for k in range(count):
        order = [banker] if banker is not None else []
        order += [int(s) for s in np.random.default_rng(seed + k).permutation(range(1, 8)) if s != banker]
        chosen = next((s for s in order if copy.deepcopy(watch).new_banker(s) is None), None)
        if chosen is None:
            raise ValueError(f"round {k}: no seat may take the bank (seed 000 rules 3, 40)")
        script = random_script(seed + k, fault, chosen)
        watch.new_banker(chosen)
        wagering = {a.seat for a in script.actions if isinstance(a, Bet)}
        watch.hand_played(wagering)
        banker = chosen
        out.append(script)
    return out
