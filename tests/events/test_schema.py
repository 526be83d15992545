"""The event contract: every event type round-trips through JSON; bad input names its field."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from monitor.alerts.catalog import CATALOG
from monitor.alerts.model import Alert, Severity, alert_id
from monitor.events.jsonl import RejectedLine, iter_lines
from monitor.events.schema import (
    EVENT_TYPES,
    SCHEMA_VERSION,
    CardDealt,
    HandSet,
    StubCounted,
    events_json_schema,
    parse_event,
    parse_event_json,
)
from tests.support.paths import DOCS

BASE = {
    "table_id": "T1", "seq": 1, "media_time": 2.5, "wall_time": "2026-01-01T20:00:00Z", "source": "vision",
}

# One valid payload per event type: the test fails if a type is added without an example here.
EXAMPLES: dict[str, dict[str, object]] = {
    "round_started": {"game": "paigow", "banker_seat": 3},
    "shuffle_done": {},
    "bets_closed": {},
    "misdeal_declared": {"reason": "stub of 5"},
    "round_ended": {},
    "card_dealt": {"pile": 1, "card": "As", "face_up": True},
    "card_exposed": {"card": "Jk", "zone": "pile:3"},
    "piles_complete": {"counts": [7, 7, 7, 7, 7, 7, 7]},
    "stub_counted": {"n": 4},
    "stub_not_countable": {"reason": "squared"},
    "exposed_card_replaced": {"pile": 3, "card": "2c"},
    "action_pile_chosen": {"pile": 4},
    "dice_rolled": {"values": [3, 4, 5]},
    "pile_delivered": {"pile": 4, "seat": 2},
    "dead_hand_collected": {"seat": 6},
    "hand_set": {"seat": 2, "front": ["Kd", "Qs"], "back": ["2c", "2d", "5h", "7s", "9c"]},
    "banker_hand_exposed": {"cards": ["2c", "3c", "4c", "5c", "6c", "7c", "8c"]},
    "banker_hand_set": {"front": ["7c", "8c"], "back": ["2c", "3c", "4c", "5c", "6c"]},
    "hand_opened": {"seat": 2},
    "house_way_requested": {"seat": 5},
    "bet_placed": {"seat": 2, "amount": 2000},
    "bet_changed": {"seat": 2, "before": 2000, "after": 4000, "bettor": "back1"},
    "payout": {"seat": 2, "amount": -2000},
    "banker_changed": {"seat": 4, "previous": 3},
    "device_lost": {"device": "camera", "name": "overhead"},
    "device_recovered": {"device": "dice_reader"},
    "hole_dealt": {"seat": 1, "card": "Ah"},
    "burn": {},
    "board_dealt": {"street": "flop", "cards": ["2c", "3d", "4h"]},
    "player_folded": {"seat": 5},
    "hand_shown": {"seat": 1, "cards": ["Ah", "Kh"]},
    "melds_shown": {"seat": 3, "melds": [["4h", "4h", "4h"], ["5c", "6c", "7c", "Jc"]],
                    "held": ["2d", "Ks", "Qd"]},
    "pot_awarded": {"pot": 10000, "awards": [{"seat": 1, "amount": 10000}]},
}


def test_every_event_type_has_an_example() -> None:
    assert set(EXAMPLES) == set(EVENT_TYPES)


@pytest.mark.parametrize("etype", sorted(EXAMPLES))
def test_event_round_trips_through_json(etype: str) -> None:
    event = parse_event({**BASE, "type": etype, **EXAMPLES[etype]})
    assert type(event) is EVENT_TYPES[etype]
    again = parse_event_json(event.model_dump_json())
    assert again == event
    assert again.schema_version == SCHEMA_VERSION


def test_cards_are_normalised() -> None:
    e = parse_event({**BASE, "type": "hand_set", "seat": 1, "front": ["10d", "joker"], "back": ["as"]})
    assert isinstance(e, HandSet)
    assert e.front == ["Td", "Jk"]
    assert e.back == ["As"]


def test_wall_time_is_utc_on_the_wire() -> None:
    e = parse_event({**BASE, "type": "shuffle_done", "wall_time": "2026-01-01T12:00:00-08:00"})
    assert e.wall_time == datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
    assert json.loads(e.model_dump_json())["wall_time"] == "2026-01-01T20:00:00Z"


@pytest.mark.parametrize(
    ("patch", "field", "words"),
    [
        ({"type": "card_dealt", "pile": 8}, "card_dealt.pile", "less than or equal to 7"),
        ({"type": "card_dealt", "pile": 1, "card": "Xs"}, "card_dealt.card", "unknown rank 'X'"),
        ({"type": "stub_counted", "n": 4, "seq": -1}, "stub_counted.seq", "greater than or equal to 0"),
        ({"type": "stub_counted"}, "stub_counted.n", "Field required"),
        ({"type": "stub_counted", "n": 4, "colour": "red"}, "stub_counted.colour", "Extra inputs"),
        ({"type": "bet_placed", "seat": 1, "amount": 12.5}, "bet_placed.amount", "fractional"),
        ({"type": "stub_counted", "n": 4, "wall_time": "2026-01-01T20:00:00"}, "stub_counted.wall_time",
         "timezone"),
        ({"type": "stub_counted", "n": 4, "schema_version": 2}, "stub_counted.schema_version", "1"),
        ({"type": "teleport"}, "", "does not match any of the expected tags"),
        ({"type": "stub_not_countable"}, "stub_not_countable.reason", "Field required"),
        ({"type": "stub_not_countable", "reason": "lost"}, "stub_not_countable.reason",
         "'squared', 'unreadable' or 'not_seen'"),
        ({"type": "stub_not_countable", "reason": "unreadable", "detail": "x" * 201},
         "stub_not_countable.detail", "at most 200 characters"),
    ],
)
def test_bad_events_name_the_field(patch: dict[str, object], field: str, words: str) -> None:
    rejected = list(iter_lines([json.dumps({**BASE, **patch})], "x.jsonl"))
    assert len(rejected) == 1
    r = rejected[0]
    assert isinstance(r, RejectedLine)
    assert r.location == "x.jsonl line 1"
    if field:
        assert r.field == field
    assert words in r.problem
    assert r.table_id == "T1"


def test_non_json_line_is_rejected_with_its_line_number() -> None:
    good = json.dumps({**BASE, "type": "stub_counted", "n": 4})
    items = list(iter_lines(["", "# comment", "{not json", good], "f.jsonl"))
    assert isinstance(items[0], RejectedLine)
    assert items[0].location == "f.jsonl line 3"
    assert items[0].field == "(line)"
    assert isinstance(items[1], StubCounted)


def test_events_are_frozen() -> None:
    e = parse_event({**BASE, "type": "card_dealt", "pile": 1})
    assert isinstance(e, CardDealt)
    with pytest.raises(ValidationError):
        e.pile = 2  # type: ignore[misc]


def test_json_schema_covers_every_type() -> None:
    schema = events_json_schema()
    mapping = schema["discriminator"]["mapping"]
    assert set(mapping) == set(EVENT_TYPES)


def test_alert_ids_are_stable_and_alerts_serialise() -> None:
    entry = CATALOG["stub_not_four"]
    ev = parse_event({**BASE, "type": "stub_counted", "n": 5})
    a = Alert(
        id=alert_id("T1", "r1", entry.code),
        code=entry.code,
        table_id="T1",
        round_id="r1",
        rule=entry.rule,
        severity=entry.severity,
        message=entry.render(n=5),
        evidence_seqs=[1],
        evidence=[ev],
    )
    again = Alert.model_validate_json(a.model_dump_json())
    assert again == a
    assert again.id == alert_id("T1", "r1", "stub_not_four")
    assert a.severity is Severity.MISDEAL
    assert a.one_line == ("[misdeal] Livermore Casino Pai Gow Poker, rule 55: stub has 5 cards, not 4: no "
                          "action, redeal all hands")


def test_catalog_entries_render_and_cite_a_seed_or_the_monitor() -> None:
    for entry in CATALOG.values():
        text = entry.render(**dict.fromkeys(entry.fields, "X"))
        assert text and "\n" not in text
        assert entry.rule.seed.endswith(".txt") or entry.severity in (Severity.DEVICE, Severity.DATA,
                                                                      Severity.INFO)


def test_committed_json_schemas_are_current(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app

    result = CliRunner().invoke(app, ["export-schema", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    docs = DOCS / "schema"
    for name in ("events.schema.json", "alert.schema.json"):
        fresh, committed = (tmp_path / name).read_text(), (docs / name).read_text()
        assert fresh == committed, f"{name} is stale: run table-monitor export-schema"
