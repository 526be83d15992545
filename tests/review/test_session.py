"""Review of the shipped sample recording (3 scripted Pai Gow hands, 2 scripted faults), end to end:
the CLI, the hand histories and alerts recovered, the report's files, the store; then a review
interrupted after the first hand and resumed, which must give exactly the same session."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from monitor.cli import app
from monitor.procedure.monitor import Monitor
from monitor.render.rounds.sample import sample_recording_dir
from monitor.review.file_review import ReviewInterrupted
from monitor.review.jobs import GateSettings
from monitor.review.session import ReviewOptions, run_review
from tests.support.paths import TABLE_FILE

SAMPLE = sample_recording_dir()

pytestmark = pytest.mark.skipif(not (SAMPLE / "video.mp4").exists(), reason="sample recording not shipped")


def truth_hands() -> list[dict[str, Any]]:
    m = Monitor()
    for line in (SAMPLE / "events.jsonl").read_text().splitlines():
        m.feed_json(line)
    m.finish()
    return [h.model_dump(mode="json") for h in m.histories]


def hand_key(h: dict[str, Any]) -> tuple[Any, ...]:
    """What a hand history says happened (round ids and media times are the review's own)."""
    seats = [(s["seat"], s["pile"], s["front"], s["back"], s["outcome"], s["dead"],
              [(w["amount"], w["result"]) for w in s["wagers"]]) for s in h["seats"]]
    return (h["banker"]["seat"], h["dice"], h["action_seat"], h["stub"], h["complete"], h["alert_codes"],
            seats)


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("review") / "sample-session"
    db = out.parent / "store.db"
    # no --stride: 15 of the 30 fps perceived by default (--perceive-fps 15, the rate the end-to-end
    # proof covers), so stride 2 here
    result = CliRunner().invoke(app, ["review", str(SAMPLE), "--table", str(TABLE_FILE), "--out", str(out),
                                      "--db", f"sqlite:///{db}", "--snapshot-dir", str(out.parent / "snaps")])
    assert result.exit_code == 0, result.output
    files = json.loads((out / "review.json").read_text())["files"]
    assert [(f["fps"], f["stride"]) for f in files] == [(30.0, 2)]
    assert "every 2 frames: 15 a second" in (out / "report.html").read_text()
    assert "ORACLE" in result.output  # rendered ground truth: labelled as such
    assert "3 hands (3 complete), 2 alerts" in result.output
    return out


def test_recovers_the_scripted_hands(reviewed: Path) -> None:
    got = [json.loads(line)["history"] for line in (reviewed / "hands.jsonl").read_text().splitlines()]
    truth = truth_hands()
    assert len(got) == len(truth) == 3
    for g, t in zip(got, truth, strict=True):
        assert hand_key(g) == hand_key(t)
        assert abs(g["media_begin"] - t["media_begin"]) < 1.0
    # the scripts: a clean hand, a bet changed after the dice, an ace exposed in the deal
    assert [g["alert_codes"] for g in got] == [[], ["bet_changed_after_close"], ["ace_or_joker_exposed"]]


def test_recovers_the_scripted_alerts_with_their_moments(reviewed: Path) -> None:
    alerts = [json.loads(line) for line in (reviewed / "alerts.jsonl").read_text().splitlines()]
    truth = [json.loads(line) for line in (SAMPLE / "alerts.jsonl").read_text().splitlines()]
    assert [a["code"] for a in alerts] == [t["code"] for t in truth]
    for a, t in zip(alerts, truth, strict=True):
        assert abs(a["media"]["trigger"] - t["media"]["trigger"]) <= 1.0
        assert a["session_time"] == pytest.approx(a["media"]["trigger"], abs=1e-3)  # one file: same clock
        assert a["link"].endswith(f"#t={max(0.0, a['media']['begin'] - 1.0):.2f}")
        assert a["link"].split("#")[0].endswith("sample_recording/video.mp4")
        snapshot = reviewed / a["snapshot"]
        assert snapshot.read_bytes()[:2] == b"\xff\xd8"  # a JPEG
        clip = reviewed / a["clip_link"]
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of",
                                "csv=p=0", str(clip)], capture_output=True, text=True, check=True)
        assert 3.0 <= float(probe.stdout) <= 6.0
        assert a["clip"]["begin"] <= a["media"]["trigger"] <= a["clip"]["end"]


def test_report_and_json(reviewed: Path) -> None:
    data = json.loads((reviewed / "review.json").read_text())
    s = data["summary"]
    assert (s["files"], s["hands"], s["hands_complete"], s["alerts"]) == (1, 3, 3, 2)
    assert s["oracle"] is True and s["alerts_by_severity"] == {"integrity": 1, "misdeal": 1}
    assert s["frames_read"] == 3466 // 2 and 0 < s["frames_kept"] <= s["frames_read"]
    html = (reviewed / "report.html").read_text()
    assert "Oracle perception" in html
    for a in data["alerts"]:
        assert f'id="alert-{a["id"]}"' in html and f'href="#alert-{a["id"]}"' in html  # timeline -> alert
        assert f'src="{a["clip_link"]}"' in html and f'src="{a["snapshot"]}"' in html
        assert f'href="{a["link"]}"' in html
    assert html.count('<svg class="timeline"') == 3
    # the table file has no profile: judged by the default one, and the report says so
    assert s["profile"]["name"] == "livermore" and {a["profile"] for a in data["alerts"]} == {"livermore"}
    assert f"<th>rule profile</th><td colspan=\"3\">{s['profile']['line']}</td>" in html
    assert "http://" not in html and "https://" not in html  # self-contained: nothing fetched


def test_session_is_in_the_store_as_a_reviewed_table(reviewed: Path) -> None:
    with sqlite3.connect(reviewed.parent / "store.db") as con:
        tables = dict(con.execute("SELECT id, state FROM tables").fetchall())
        assert list(tables) == ["table-1:review:sample-session"]
        state = json.loads(tables["table-1:review:sample-session"])
        assert state["review"]["session"] == "sample-session"
        assert state["review"]["report"].endswith("report.html")
        assert state["profile"]["name"] == "livermore"
        assert {r[0] for r in con.execute("SELECT DISTINCT profile FROM events")} == {"livermore"}
        codes = sorted(r[0] for r in con.execute("SELECT code FROM alerts"))
        assert codes == ["ace_or_joker_exposed", "bet_changed_after_close"]
        snapshots = [r[0] for r in con.execute("SELECT snapshot FROM alerts")]
        assert all((reviewed.parent / "snaps" / name).exists() for name in snapshots)
        assert con.execute("SELECT count(*) FROM hand_histories").fetchone()[0] == 3
        rounds = con.execute("SELECT media_start, media_end FROM rounds ORDER BY media_start").fetchall()
        assert len(rounds) == 3 and all(a is not None and b > a for a, b in rounds)
        events = con.execute("SELECT count(*) FROM events").fetchone()[0]
    assert events == len((reviewed / "files").glob("*/events.jsonl").__next__().read_text().splitlines())


def test_interrupted_review_resumes_to_the_same_session(reviewed: Path, tmp_path: Path) -> None:
    opts = ReviewOptions(videos=[SAMPLE], table=TABLE_FILE, out=tmp_path / "sample-session", progress=False,
                         gate=GateSettings(stride=2))
    frames = {"n": 0}

    def stop_after_first_hand() -> bool:
        frames["n"] += 1
        return frames["n"] > 800  # frame ~1600 (every 2nd is read); hand 1 ends at frame ~1431

    with pytest.raises(ReviewInterrupted):
        run_review(opts, should_stop=stop_after_first_hand)
    cp = json.loads(next((tmp_path / "sample-session" / "files").glob("*/checkpoint.json")).read_text())
    assert not cp["done"] and len(cp["hands"]) == 1 and 1400 < cp["next_frame"] < 1600
    log = next((tmp_path / "sample-session" / "files").glob("*/events.jsonl"))
    assert len(log.read_text().splitlines()) == cp["events"]
    with log.open("a") as f:  # a crash between writing events and the checkpoint: the resume cuts them
        f.write('{"type": "round_started", "seq": 999}\n')

    outcome = run_review(opts)
    (result,) = outcome.results
    assert result.done and result.resumed_from == [cp["next_frame"]]
    full = {p.name: p.read_text() for p in (reviewed / "files").glob("*/*.jsonl")}
    again = {p.name: p.read_text() for p in (tmp_path / "sample-session" / "files").glob("*/*.jsonl")}
    assert again == full  # the same events, numbered the same, as the uninterrupted review
    assert (tmp_path / "sample-session" / "alerts.jsonl").read_text().count('"id"') == 2
    ids = [json.loads(x)["id"] for x in (reviewed / "alerts.jsonl").read_text().splitlines()]
    assert [a["id"] for a in outcome.session.alerts] == ids
    assert [hand_key(h["history"]) for h in outcome.session.hands] == [hand_key(h) for h in truth_hands()]
    # a finished review run again reviews nothing and reports the same
    assert run_review(opts).session.summary["media_this_run_s"] == 0.0


def test_the_dashboard_api_lists_the_reviewed_session(reviewed: Path) -> None:
    from fastapi.testclient import TestClient

    from monitor.api.app import create_app
    from tests.support.api import auth, make_settings

    db = reviewed.parent / "store.db"
    settings = make_settings(f"sqlite:///{db}", snapshot_dir=reviewed.parent / "snaps")
    with TestClient(create_app(settings)) as client:
        tables = client.get("/api/v1/tables", headers=auth("viewer")).json()
        (table,) = [t for t in tables if t["id"] == "table-1:review:sample-session"]
        assert table["state"]["review"]["summary"]["hands"] == 3 and table["open_alerts"] == 2
        alerts = client.get("/api/v1/alerts", params={"table_id": table["id"]}, headers=auth("viewer")).json()
        codes = sorted(a["code"] for a in alerts["items"])
        assert codes == ["ace_or_joker_exposed", "bet_changed_after_close"]
        picture = client.get(f"/api/v1/alerts/{alerts['items'][0]['id']}/snapshot", headers=auth("viewer"))
        assert picture.status_code == 200 and picture.content[:2] == b"\xff\xd8"
        hands = client.get("/api/v1/hands", params={"table_id": table["id"]}, headers=auth("viewer")).json()
        assert hands["total"] == 3


def test_a_table_files_profile_judges_the_review(tmp_path: Path) -> None:
    """The sample is dealt with the dice counted counterclockwise: a table file whose profile counts
    clockwise sees its piles go to the wrong seats, and every alert and hand names that profile."""
    import yaml

    data = yaml.safe_load(TABLE_FILE.read_text("utf-8"))
    data["profile"] = {"name": "room-cw", "dice": {"direction": "clockwise"}}
    table = tmp_path / "room.yaml"
    table.write_text(yaml.safe_dump(data), encoding="utf-8")
    outcome = run_review(ReviewOptions(videos=[SAMPLE], table=table, out=tmp_path / "room-session",
                                       progress=False, gate=GateSettings(stride=2), clips=False))
    session = outcome.session
    assert session.summary["profile"]["dice"]["direction"] == "clockwise"
    assert "pile_to_wrong_seat" in {a["code"] for a in session.alerts}
    assert {a["profile"] for a in session.alerts} == {"room-cw"}
    assert {h["history"]["profile"] for h in session.hands} == {"room-cw"}


def test_a_log_of_dice_rolls_alone_leaves_the_rounds_to_vision(tmp_path: Path) -> None:
    """A room with a dice reader and no console: the review opens and closes the rounds from what it
    sees (before, a log without round starts left every round unopened and nothing judged)."""
    import shutil

    folder = tmp_path / "dice-only"
    folder.mkdir()
    for name in ("video.mp4", "truth.jsonl.gz"):
        shutil.copy(SAMPLE / name, folder / name)
    rows = [json.loads(line) for line in (SAMPLE / "events.jsonl").read_text().splitlines()]
    rolls = [r for r in rows if r["source"] == "dice_reader"]
    assert rolls
    (folder / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rolls))
    outcome = run_review(ReviewOptions(videos=[folder], table=TABLE_FILE, out=tmp_path / "session",
                                       progress=False, gate=GateSettings(stride=2), clips=False))
    (log,) = (tmp_path / "session" / "files").glob("*/events.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    opened = [e for e in events if e["type"] == "round_started"]
    assert opened and all(e["source"] == "vision" and e["opened_by"] for e in opened)
    # the bets are seen first in each of the sample's rounds; the scripted faults are raised as with
    # the console
    assert [e["opened_by"] for e in opened] == ["chips"] * 3
    assert len(outcome.session.hands) == 3
    scripted = [json.loads(line)["code"] for line in (SAMPLE / "alerts.jsonl").read_text().splitlines()]
    assert sorted(a["code"] for a in outcome.session.alerts) == sorted(scripted)
