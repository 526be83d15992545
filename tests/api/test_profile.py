"""The rule profile that judged a table, through the API: on each alert, hand history, stored event and
the table view (SQLite file; PostgreSQL when available)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select

from monitor.api.app import create_app
from monitor.calibration import parse_table
from monitor.procedure.feed import MonitorFeed
from monitor.store.models import EventRow
from tests.support.api import TOKENS, auth, faulty_round, make_settings
from tests.support.paths import TABLE_FILE


def _room_profile():  # -> PaiGowProfile, read from a table file as `run` reads it
    import yaml

    data = yaml.safe_load(TABLE_FILE.read_text("utf-8"))
    data["profile"] = {"name": "room-cw", "rulebook": "napa", "dice": {"direction": "clockwise"},
                       "limits": {"min_cents": 100, "max_cents": 100000}}
    return parse_table(data, "room.yaml").profile


def test_the_profile_of_the_table_file_arrives_in_alerts_and_the_table_view(db_url: str) -> None:
    room = _room_profile()
    app = create_app(make_settings(db_url), feed_factory=lambda: MonitorFeed({"T1": room}))
    with TestClient(app) as client:
        ingest = client.post("/api/v1/events/batch", headers=auth("sensor"),
                             json=faulty_round("T1") + faulty_round("T2"))
        assert ingest.status_code == 200, ingest.text
        page = client.get("/api/v1/alerts", headers=auth("viewer"), params={"limit": 50}).json()
        by_table = {t: {a["profile"] for a in page["items"] if a["table_id"] == t} for t in ("T1", "T2")}
        assert by_table == {"T1": {"room-cw"}, "T2": {"livermore"}}  # T2 has no table file here: the default
        stub = next(a for a in page["items"] if a["table_id"] == "T1" and a["code"] == "stub_not_four")
        detail = client.get(f"/api/v1/alerts/{stub['id']}", headers=auth("viewer")).json()
        assert detail["profile"] == "room-cw" and detail["alert"]["profile"] == "room-cw"
        table = client.get("/api/v1/tables/T1", headers=auth("viewer")).json()
        assert table["profile"]["name"] == "room-cw" and table["profile"]["dice"]["direction"] == "clockwise"
        assert table["profile"]["line"].startswith("room-cw: Napa Valley Casino Pai Gow Poker")
        assert table["state"]["profile"] == table["profile"]  # what the page's live push carries
        hand = client.get("/api/v1/hands/T1/R1", headers=auth("viewer")).json()
        assert hand["history"]["profile"] == "room-cw"
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            stored = dict(conn.execute(select(EventRow.table_id, EventRow.profile).distinct()).all())
    finally:
        engine.dispose()
    assert stored == {"T1": "room-cw", "T2": "livermore"}


def test_run_and_demo_judge_with_the_table_files_profile(sqlite_url: str, tmp_path: Path) -> None:
    """``run`` and ``demo`` serve through ApiServer, handed the table file's profile by table id."""
    from monitor.pipeline.server import ApiServer

    settings = make_settings(sqlite_url, snapshot_dir=tmp_path / "snaps")
    server = ApiServer(settings, profiles={"T1": _room_profile()})
    with TestClient(server.app) as client:
        client.post("/api/v1/events/batch", headers=auth("sensor"), json=faulty_round("T1"))
        page = client.get("/api/v1/alerts", headers=auth("viewer")).json()
        assert page["total"] == 4 and {a["profile"] for a in page["items"]} == {"room-cw"}


def test_a_central_serve_judges_each_table_by_its_table_file(sqlite_url: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn
    import yaml
    from typer.testing import CliRunner

    from monitor.cli import app

    data = yaml.safe_load(TABLE_FILE.read_text("utf-8"))
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**data, "profile": {"name": "x", "dice": {"direction": "left"}}}), "utf-8")
    result = CliRunner().invoke(app, ["serve", "--db", sqlite_url, "--table", str(bad)])
    assert result.exit_code == 2
    assert "bad.yaml is invalid" in result.output
    why = "profile.dice.direction: 'left' is not allowed (allowed: clockwise, counterclockwise)"
    assert why in result.output
    good = tmp_path / "t1.yaml"
    good.write_text(yaml.safe_dump({**data, "table": "T1", "profile": {"name": "room-cw",
                                                                       "dice": {"direction": "clockwise"}}}),
                    "utf-8")
    served: list[object] = []
    monkeypatch.setattr(uvicorn, "run", lambda application, **_: served.append(application))
    tokens = ",".join(f"{role}-user:{role}:{token}" for role, token in TOKENS.items())
    monkeypatch.setenv("TABLE_MONITOR_TOKENS", tokens)
    result = CliRunner().invoke(app, ["serve", "--db", sqlite_url, "--table", str(good)])
    assert result.exit_code == 0, result.output
    with TestClient(served[0]) as client:  # type: ignore[arg-type]
        client.post("/api/v1/events/batch", headers=auth("sensor"), json=faulty_round("T1"))
        page = client.get("/api/v1/alerts", headers=auth("viewer")).json()
        assert {a["profile"] for a in page["items"]} == {"room-cw"}
