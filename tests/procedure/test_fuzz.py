"""Fuzzing: 10,000 random and garbled event streams through the monitor.

Streams are cut from clean rounds of every game and then broken at random: events dropped,
resent, reordered, renumbered, fields set to garbage of every type, types swapped, required
fields removed, unknown fields added, cards mangled, lines truncated or replaced by noise.
The monitor must never raise, and every line it rejects must come back as one data alert
naming where it was.
"""

from __future__ import annotations

import json
import random
from typing import Any

from monitor.events.jsonl import RejectedLine, parse_line
from monitor.events.schema import EVENT_TYPES
from monitor.procedure.monitor import Monitor
from monitor.procedure.synth import (
    Clock,
    EventDict,
    holdem_round,
    paigow_round,
    paigow_session,
    pan_round,
    push_nine_round,
)

STREAMS = 10_000
GARBAGE: list[Any] = [None, -1, 0, 7, 10**12, -(10**12), 3.7, float("nan"), "", "x", "As", "Jk", "10d",
                      "pile:9", [], [1, 2], ["As", None], {}, {"seat": 1}, True, "2026-13-01T00:00:00Z"]
FIELDS = ["seq", "table_id", "media_time", "wall_time", "source", "confidence", "pile", "seat", "card",
          "cards", "front", "back", "values", "n", "counts", "amount", "before", "after", "bettor", "zone",
          "game", "banker_seat", "street", "awards", "pot", "face_up", "schema_version", "device", "type"]


def corpus() -> list[list[EventDict]]:
    rng = random.Random(2026)
    out = [paigow_session(rng, Clock(), rounds=3)]
    for seed in range(6):
        out.append(paigow_round(random.Random(seed), Clock(table_id=f"T{seed % 3}")))
    for game in ("holdem", "omaha_hilo", "pineapple", "holdem_hilo", "omaha"):
        out.append(holdem_round(random.Random(len(out)), Clock(table_id="P1"), game=game))
    out.append(push_nine_round(random.Random(len(out)), Clock(table_id="P9"), players=6))
    out.append(pan_round(random.Random(len(out)), Clock(table_id="PAN"), players=5))
    return out


def mangle_card(rng: random.Random, text: str) -> str:
    return rng.choice(["Xs", "1h", "A", "AsKd", "as ", "10", "Jo", "ZZ", text[::-1], text.upper(), ""])


def garble(rng: random.Random, events: list[EventDict]) -> list[str]:
    # Half the streams start at a round's beginning, so the round machines meet the garbage too.
    starts = [i for i, e in enumerate(events) if e["type"] == "round_started"]
    start = rng.choice(starts) if rng.random() < 0.5 else rng.randrange(len(events))
    stream = [dict(e) for e in events[start : start + rng.randint(1, 30)]]
    for _ in range(rng.randint(0, 8)):
        if not stream:
            break
        i = rng.randrange(len(stream))
        op = rng.randrange(12)
        e = stream[i]
        if op == 0:
            del stream[i]
        elif op == 1:
            stream.insert(rng.randrange(len(stream) + 1), dict(e))  # resend
        elif op == 2:
            j = rng.randrange(len(stream))
            stream[i], stream[j] = stream[j], stream[i]
        elif op == 3:
            seq = e.get("seq")
            e["seq"] = rng.choice([(seq if isinstance(seq, int) else 0) + rng.randint(-80, 80), 0, 10**9])
        elif op in (4, 5):
            e[rng.choice(FIELDS)] = rng.choice(GARBAGE)
        elif op == 6:
            e["type"] = rng.choice(list(EVENT_TYPES))
        elif op == 7 and len(e) > 1:
            del e[rng.choice(list(e))]
        elif op == 8:
            e[rng.choice(["colour", "extra", "seat_no"])] = 1
        elif op == 9:
            for k in ("card", "cards", "front", "back"):
                if isinstance(e.get(k), str):
                    e[k] = mangle_card(rng, e[k])
                elif isinstance(e.get(k), list) and e[k]:
                    e[k] = [mangle_card(rng, str(c)) if rng.random() < 0.3 else c for c in e[k]]
        elif op == 10:
            for k in ("seat", "pile", "n", "amount", "values"):
                if k in e:
                    e[k] = rng.choice(GARBAGE)
        else:
            stream.insert(i, {"__raw__": rng.choice(["", "{", "[]", "null", "{\"type\":", "\x00\xff", "42",
                                                     json.dumps(e)[: rng.randrange(1, 40)]])})
    lines = []
    for e in stream:
        lines.append(e["__raw__"] if "__raw__" in e else json.dumps(e, default=str))
    return lines


def test_ten_thousand_garbled_streams_never_crash_and_every_rejection_is_reported() -> None:
    rng = random.Random(4)
    rounds = corpus()
    total_lines = total_rejected = 0
    for n in range(STREAMS):
        lines = garble(rng, rng.choice(rounds))
        m = Monitor(window=rng.choice([0, 4, 64]))
        expected_rejections = 0
        for k, line in enumerate(lines):
            item = parse_line(line, f"s{n} line {k + 1}")
            if item is None:
                continue
            if isinstance(item, RejectedLine):
                expected_rejections += 1
            m.feed(item)
        m.finish()
        data = [a for a in m.alerts if a.code == "event_invalid"]
        assert len(data) == expected_rejections == m.rejected_in, f"stream {n}"
        assert all(a.location and a.location.startswith(f"s{n} line ") for a in data)
        for h in m.histories:
            h.model_dump_json()  # histories of broken rounds still serialise
        total_lines += len(lines)
        total_rejected += expected_rejections
    assert total_rejected > STREAMS // 4  # the garbling really produced bad lines
    assert total_lines > 100_000
