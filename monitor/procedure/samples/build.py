"""Writes the sample event files: ``python -m monitor.procedure.samples.build [dir]``.

Each file starts with ``#`` comment lines saying what is wrong in it and which alerts the
monitor raises; the test suite checks both the alerts and that the files are what this
builder makes (so they never drift from the event schema).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

from monitor.procedure.synth import Clock, EventDict, PaiGowPlan, holdem_round, paigow_round, paigow_session
from monitor.rules.cards import parse_card

HERE = Path(__file__).resolve().parent
BETS = {2: 2000, 3: 5000, 5: 1000, 6: 2500}


def _round(seed: int, **plan: object) -> list[EventDict]:
    return paigow_round(random.Random(seed), Clock(table_id="PG-1"), plan=PaiGowPlan(banker_seat=1, bets=BETS,
                                                                                       **plan))  # type: ignore[arg-type]


def _index(events: list[EventDict], etype: str, pred: Callable[[EventDict], bool] = lambda e: True) -> int:
    return next(i for i, e in enumerate(events) if e["type"] == etype and pred(e))


def _renumber(events: list[EventDict]) -> list[EventDict]:
    return [{**e, "seq": i} for i, e in enumerate(events)]


def clean() -> list[EventDict]:
    return paigow_session(random.Random(2), Clock(table_id="PG-1"), rounds=2)


def stub_and_pile() -> list[EventDict]:
    events = _round(3)
    last = max(i for i, e in enumerate(events) if e["type"] == "card_dealt")
    extra = {**events[last], "pile": 7, "card": None}
    events.insert(last + 1, extra)
    events[_index(events, "piles_complete")]["counts"] = [7, 7, 7, 7, 7, 7, 8]
    events[_index(events, "stub_counted")]["n"] = 3
    return _renumber(events)


def exposed_ace() -> list[EventDict]:
    events = _round(4)
    i = _index(events, "card_dealt", lambda e: parse_card(str(e["card"])).is_ace)
    events[i]["face_up"] = True
    return events


def wrong_seat() -> list[EventDict]:
    events = _round(5, show_deal=False)
    d = [i for i, e in enumerate(events) if e["type"] == "pile_delivered"]
    events[d[2]]["seat"], events[d[3]]["seat"] = events[d[3]]["seat"], events[d[2]]["seat"]
    return events


def foul_and_payout() -> list[EventDict]:
    events = _round(6, foul_seats=frozenset({3}))
    i = _index(events, "payout", lambda e: e["seat"] == 5)
    events[i]["amount"] = events[i]["amount"] + 1000
    return events


def bet_after_close() -> list[EventDict]:
    events = _round(7)
    i = _index(events, "bets_closed")
    change = {k: v for k, v in events[i].items()}
    change.update(type="bet_changed", seat=6, before=2500, after=5000, bettor=None, source="vision")
    events.insert(i + 3, change)
    return _renumber(events)


def garbled() -> list[str]:
    events = _round(8)
    events[_index(events, "stub_counted")]["n"] = 5
    lines = [json.dumps(e) for e in events]
    lines[10], lines[12] = lines[12], lines[10]  # arrives out of order: reordered by seq
    lines.insert(20, lines[19])  # resent: dropped
    bad = dict(events[25])
    bad["card"] = "1h"
    lines[26] = json.dumps(bad)  # replaces the real line: its seq becomes a gap
    lines.insert(60, '{"type": "hand_set", "table_id": "PG-1", "seq": ')  # truncated
    return lines


def wrong_pot() -> list[EventDict]:
    events = holdem_round(random.Random(2), Clock(table_id="HE-1"), players=5)
    i = _index(events, "pot_awarded")
    winners = {a["seat"] for a in events[i]["awards"]}
    shown = [e["seat"] for e in events if e["type"] == "hand_shown"]
    loser = next(s for s in shown if s not in winners)
    events[i]["awards"] = [{"seat": loser, "amount": events[i]["pot"]}]
    return events


SAMPLES: dict[str, tuple[str, Callable[[], list[EventDict] | list[str]]]] = {
    "paigow_clean.jsonl": ("two clean Pai Gow rounds, the bank kept for two hands: no alerts", clean),
    "paigow_stub_and_pile.jsonl": ("an eighth card on pile 7 and a stub of 3: pile_not_seven, stub_not_four "
                                   "(rule 55)", stub_and_pile),
    "paigow_exposed_ace.jsonl": ("an ace lands face up on the deal: ace_or_joker_exposed (rule 48a)",
                                 exposed_ace),
    "paigow_wrong_seat.jsonl": ("two piles delivered to each other's seat: pile_to_wrong_seat x2 "
                                "(rules 8, 9, 21)", wrong_seat),
    "paigow_foul_and_payout.jsonl": ("seat 3 sets a foul hand, seat 5 is overpaid $10: player_foul "
                                     "(rules 49, 50), payout_mismatch (rules 13, 23)", foul_and_payout),
    "paigow_bet_after_close.jsonl": ("seat 6 doubles the bet after no more bets: bet_changed_after_close "
                                     "(rule 32)", bet_after_close),
    "paigow_garbled.jsonl": ("events out of order and resent, a bad card and a truncated line, a stub of 5: "
                             "event_invalid x2, stub_not_four", garbled),
    "holdem_wrong_pot.jsonl": ("Hold'em pot pushed to a losing hand: pot_wrong_winner (seed 004)", wrong_pot),
}


def build(out: Path = HERE) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (about, make) in SAMPLES.items():
        items = make()
        lines = [i if isinstance(i, str) else json.dumps(i) for i in items]
        path = out / name
        path.write_text(f"# {about}\n# replay: table-monitor replay {name}\n" + "\n".join(lines) + "\n")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in build(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(p)
