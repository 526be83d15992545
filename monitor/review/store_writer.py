"""A reviewed session into the store, beside the live tables, so the dashboard and API show it.

The session is its own table in the store (``<table>:review:<session>``), so its events, rounds,
hand histories and alerts never mix with the live table's, and the table's state carries a
``review`` block (the recordings, the report, the perception, when) that marks it as reviewed.
Nothing in the store's schema changes. Writing is idempotent: a session written again (a resumed
review) adds only what is new (events by sequence number, alerts by id; histories are rewritten).
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from monitor.alerts.model import Alert
from monitor.api import table_state
from monitor.api.alert_records import new_alert
from monitor.events.schema import RoundStarted, parse_event
from monitor.review.merge import Session
from monitor.store import repository as repo
from monitor.store.db import make_engine, make_sessionmaker
from monitor.store.migrate import upgrade
from monitor.store.types import utcnow

CHUNK = 500


def _events(out: Path, keys: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for key in keys:
        path = out / "files" / key / "events.jsonl"
        if path.exists():
            rows.extend(json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip())
    return rows


def write_store(db_url: str, session: Session, out: Path, snapshot_dir: Path | None = None) -> dict[str, int]:
    """Write ``session``; returns counts of what was new. ``snapshot_dir``: the API's snapshot folder,
    where the alerts' snapshots are copied so the dashboard can show them."""
    engine = make_engine(db_url)
    try:
        upgrade(engine)
        sessions = make_sessionmaker(engine)
        raw = _events(out, [f["key"] for f in session.files])
        events = [parse_event(e) for e in raw]
        state = table_state.empty_state(session.table_id)
        state["profile"] = session.summary.get("profile")
        judged_by = (state["profile"] or {}).get("name")
        counts = {"events": 0, "alerts": 0, "hands": 0}
        with sessions() as s, s.begin():
            repo.upsert_table(s, session.table_id, game=None)
            for i in range(0, len(events), CHUNK):
                chunk = events[i:i + CHUNK]
                known = repo.known_event_keys(s, {(e.table_id, e.seq) for e in chunk})
                rows = [{"table_id": e.table_id, "seq": e.seq, "kind": e.type, "source": e.source.value,
                         "media_time": e.media_time, "payload": e.model_dump(mode="json"),
                         "received_at": utcnow(), "profile": judged_by}
                        for e in chunk if (e.table_id, e.seq) not in known]
                repo.insert_events(s, rows)
                counts["events"] += len(rows)
            for e in events:
                table_state.apply(state, e)
                if isinstance(e, RoundStarted) and e.round_id:
                    repo.upsert_round(s, table_id=e.table_id, round_ref=e.round_id, game=e.game.value,
                                      media_time=e.media_time)
            for h in session.hands:
                hist = h["history"]
                repo.save_hand_history(s, table_id=session.table_id, round_ref=hist["round_id"],
                                       game=hist.get("game"), history={**hist, "review": _where(h)})
                rnd = repo.upsert_round(s, table_id=session.table_id, round_ref=hist["round_id"],
                                        game=hist.get("game"),
                                        phase="ended" if hist.get("complete") else "cut short")
                rnd.media_start = h["history"]["media_begin"]
                rnd.media_end = h["history"]["media_end"]
                if rnd.ended_at is None:
                    rnd.ended_at = utcnow()
                counts["hands"] += 1
            for a in session.alerts:
                alert = Alert.model_validate({k: v for k, v in a.items() if k in Alert.model_fields})
                new = new_alert(alert)
                if a.get("snapshot"):
                    new.snapshot = _copy_snapshot(out / a["snapshot"], snapshot_dir) or a["snapshot"]
                new.payload = {**new.payload, "review": _where(a)}
                if repo.record_alert(s, new) is not None:
                    counts["alerts"] += 1
            state["review"] = {
                "session": session.name, "report": str((out / "report.html").resolve()),
                "recordings": [f["video"] for f in session.files],
                "perception": session.summary["perception"],
                "reviewed_at": datetime.now(UTC).isoformat(timespec="seconds"), "summary": session.summary,
            }
            repo.upsert_table(s, session.table_id, game=state.get("game"), state=state,
                              seq=state.get("last_seq"))
        return counts
    finally:
        engine.dispose()


def _where(item: dict[str, Any]) -> dict[str, Any]:
    keys = ("file", "link", "session_time", "session_begin", "session_end", "clip_link", "snapshot")
    return {k: item[k] for k in keys if item.get(k) is not None}


def _copy_snapshot(src: Path, snapshot_dir: Path | None) -> str | None:
    if snapshot_dir is None or not src.exists():
        return None
    snapshot_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, snapshot_dir / src.name)
    return src.name
