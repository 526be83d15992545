"""Ways in: out-of-order and repeated events, bad lines, the stream feed, JSONL replay, determinism."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path

from typer.testing import CliRunner

from monitor.cli import app
from monitor.events.schema import parse_event
from monitor.procedure.feed import MonitorFeed
from monitor.procedure.feed_contract import FeedOutput
from monitor.procedure.history import PaiGowHistory
from monitor.procedure.monitor import Monitor
from monitor.procedure.replay import format_text, replay
from monitor.procedure.synth import EventDict, resequence
from tests.support.paths import PROCEDURE_SAMPLES
from tests.support.procedure import clean_round, codes, find, run


def faulty_round() -> list[EventDict]:
    events = clean_round(seed=9)
    events[find(events, "stub_counted")]["n"] = 3
    events[find(events, "payout")]["amount"] += 100
    return resequence(events)


def feed_all(events: list[EventDict], window: int = 64) -> Monitor:
    m = Monitor(window=window)
    for e in events:
        m.feed(parse_event(e))
    m.finish()
    return m


def snapshot(m: Monitor) -> tuple[list[str], list[str]]:
    return ([a.model_dump_json() for a in m.alerts], [h.model_dump_json() for h in m.histories])


def test_replaying_the_same_events_gives_the_same_alerts_and_history() -> None:
    events = faulty_round()
    first, second = snapshot(feed_all(events)), snapshot(feed_all(events))
    assert first == second
    assert [json.loads(a)["code"] for a in first[0]] == ["stub_not_four", "payout_mismatch"]


def test_out_of_order_events_within_the_window_are_reordered() -> None:
    events = faulty_round()
    rng = random.Random(5)
    shuffled = list(events)
    # Local shuffles: each event moves at most 10 places.
    for i in range(0, len(shuffled) - 10, 5):
        chunk = shuffled[i : i + 10]
        rng.shuffle(chunk)
        shuffled[i : i + 10] = chunk
    assert shuffled != events
    assert snapshot(feed_all(shuffled)) == snapshot(feed_all(events))


def test_resent_events_are_dropped_silently() -> None:
    events = faulty_round()
    doubled = [e for e in events for _ in (0, 1)]
    assert snapshot(feed_all(doubled)) == snapshot(feed_all(events))


def test_same_seq_with_different_content_is_a_conflict() -> None:
    events = faulty_round()
    i = find(events, "hand_set")
    events.insert(i + 1, {**events[i], "seat": 7 if events[i]["seat"] != 7 else 6})
    m = feed_all(events)
    a = [x for x in m.alerts if x.code == "event_conflict"]
    assert len(a) == 1 and a[0].evidence_seqs == [events[i]["seq"]]
    assert codes(m).count("stub_not_four") == 1


def test_event_later_than_the_window_is_reported_and_ignored() -> None:
    events = faulty_round()
    late = events.pop(find(events, "shuffle_done"))
    events.insert(len(events) - 2, late)  # ~90 events late, the window is 8
    m = feed_all(events, window=8)
    a = [x for x in m.alerts if x.code == "event_late"]
    assert len(a) == 1 and f"seq {late['seq']}" in a[0].message


def test_bad_line_is_a_data_alert_and_the_round_carries_on(tmp_path: Path) -> None:
    events = faulty_round()
    lines = [json.dumps(e) for e in events]
    bad = dict(events[30])
    bad["pile"] = 9
    lines.insert(30, json.dumps(bad))
    lines.insert(40, "{this is not json")
    path = tmp_path / "round.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = replay(path)
    data = [a for a in result.alerts if a.code == "event_invalid"]
    assert [a.location for a in data] == ["round.jsonl line 31", "round.jsonl line 41"]
    assert "card_dealt.pile" in data[0].message and data[0].round_id == result.histories[0].round_id
    assert result.rejected == 2
    # The round is still judged to its end: its own faults are found and its history is complete.
    assert {"stub_not_four", "payout_mismatch"} <= {a.code for a in result.alerts}
    h = result.histories[0]
    assert isinstance(h, PaiGowHistory) and h.complete


def test_events_of_several_tables_are_judged_apart() -> None:
    a = clean_round(seed=1)
    b = [{**e, "table_id": "T2"} for e in faulty_round()]
    merged = [e for pair in zip(a, b, strict=False) for e in pair]
    m = feed_all(merged)
    assert {x.table_id for x in m.alerts} == {"T2"}
    assert sorted(h.table_id for h in m.histories) == ["T1", "T2"]


def test_monitor_feed_from_threads() -> None:
    feed = MonitorFeed()
    alerts: list[str] = []
    histories: list[str] = []
    t1 = [{**e, "table_id": "A"} for e in faulty_round()]
    t2 = [{**e, "table_id": "B"} for e in faulty_round()]

    def take(out: FeedOutput) -> None:
        alerts.extend(a.code for a in out.alerts)  # (list.extend: safe from several threads)
        histories.extend(h.round_id for h in out.histories)

    def push(events: list[EventDict]) -> None:
        for e in events:
            take(feed.push(parse_event(e)))

    threads = [threading.Thread(target=push, args=(t,)) for t in (t1, t2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    take(feed.close())
    assert sorted(alerts) == sorted(["stub_not_four", "payout_mismatch"] * 2)
    assert len(histories) == 2
    assert not feed.monitor.alerts and not feed.monitor.histories  # handed out, then forgotten


def test_monitor_feed_started_mid_stream_releases_its_first_event_at_once() -> None:
    events = [parse_event({**e, "seq": e["seq"] + 500}) for e in faulty_round()]
    waits, starts = MonitorFeed(), MonitorFeed(starts_mid_stream=True)
    assert waits.push(events[0]).alerts == [] and waits.monitor.tables["T1"].round is None
    starts.push(events[0])
    assert starts.monitor.tables["T1"].round is not None
    outs = [starts.push(e) for e in events[1:]]
    assert [a.code for out in outs for a in out.alerts] == ["stub_not_four", "payout_mismatch"]
    assert sum(len(out.histories) for out in outs) == 1 and starts.close().histories == []


def test_replay_command_prints_alerts_and_history(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in faulty_round()) + "\n")
    runner = CliRunner()
    out = runner.invoke(app, ["replay", str(path)])
    assert out.exit_code == 0, out.output
    assert "Livermore Casino Pai Gow Poker, rule 55: stub has 3 cards, not 4" in out.output
    assert "HAND HISTORIES" in out.output and "banker: seat" in out.output
    js = runner.invoke(app, ["replay", str(path), "--json"])
    doc = json.loads(js.output)
    assert [a["code"] for a in doc["alerts"]] == ["stub_not_four", "payout_mismatch"]
    assert doc["histories"][0]["complete"] is True
    strict = runner.invoke(app, ["replay", str(path), "--strict"])
    assert strict.exit_code == 1


EXPECTED_SAMPLES = {
    "paigow_clean.jsonl": [],
    "paigow_stub_and_pile.jsonl": ["pile_not_seven", "stub_not_four"],
    "paigow_exposed_ace.jsonl": ["ace_or_joker_exposed"],
    "paigow_wrong_seat.jsonl": ["pile_to_wrong_seat", "pile_to_wrong_seat"],
    "paigow_foul_and_payout.jsonl": ["player_foul", "payout_mismatch"],
    "paigow_bet_after_close.jsonl": ["bet_changed_after_close"],
    "paigow_garbled.jsonl": ["event_invalid", "event_invalid", "stub_not_four"],
    "holdem_wrong_pot.jsonl": ["pot_wrong_winner"],
}


def test_sample_files_replay_to_their_documented_alerts() -> None:
    for name, expected in EXPECTED_SAMPLES.items():
        result = replay(PROCEDURE_SAMPLES / name)
        assert sorted(a.code for a in result.alerts) == sorted(expected), name
        assert format_text(result)


def test_samples_are_what_the_builder_makes(tmp_path: Path) -> None:
    from monitor.procedure.samples.build import build

    build(tmp_path)
    for name in EXPECTED_SAMPLES:
        assert (tmp_path / name).read_text() == (PROCEDURE_SAMPLES / name).read_text(), name


def test_run_helper_matches_replay_of_the_written_file(tmp_path: Path) -> None:
    events = faulty_round()
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events))
    assert [a.id for a in replay(path).alerts] == [a.id for a in run(events).alerts]


def test_events_with_no_round_open_are_noted_once_per_idle_stretch() -> None:
    events = clean_round(seed=4)
    start = find(events, "round_started")
    stray = [{**events[find(events, "card_dealt")], "pile": 1}, {**events[find(events, "stub_counted")]}]
    m = run(stray + events[start:] + stray)
    noted = [a for a in m.alerts if a.code == "event_out_of_phase"]
    assert len(noted) == 2  # one before the round, one after it: not one per stray event
    assert noted[0].severity.value == "info" and noted[0].round_id is None
    assert "card_dealt seq 0 came with no round open (waiting for round_started)" in noted[0].message
    assert [a.code for a in m.alerts if a.code != "event_out_of_phase"] == []
    assert len(m.histories) == 1 and m.histories[0].complete


def test_resend_memory_is_a_monitor_setting() -> None:
    events = [parse_event(e) for e in clean_round(seed=3)]
    old = events[2]
    for memory, expect in ((4096, []), (8, ["event_late"])):
        m = Monitor(memory=memory)
        for e in events[:40]:
            m.feed(e)
        new = m.feed(old)  # seq 2 again, identical: a resend while remembered, late once forgotten
        assert [a.code for a in new] == expect
