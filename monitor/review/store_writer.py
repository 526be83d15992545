"""A reviewed session into the store, beside the live tables, so the dashboard and API show it.

The session is its own table in the store (``<table>:review:<session>``), so its events, rounds,
hand histories and alerts never mix with the live table's, and the table's state carries a
``review`` block (the recordings, the report, the perception, when) that marks it as reviewed.
Nothing in the store's schema changes. The writing is the API's ingest's
(:class:`monitor.store.event_writer.EventWriter`), so it is idempotent the same way: a session written
again (a resumed review) adds only what is new (events by sequence number, alerts by id; histories
are rewritten).
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from monitor.alerts.model import Alert
from monitor.events.schema import parse_event
from monitor.review.merge import Session
from monitor.store.db import make_engine, make_sessionmaker
from monitor.store.event_writer import EventWriter
from monitor.store.migrate import upgrade


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
        events = [parse_event(e) for e in _events(out, [f["key"] for f in session.files])]
        profile = session.summary.get("profile")
        counts = {"events": 0, "alerts": 0, "hands": 0}
        with sessions() as s, s.begin():
            # The state is rebuilt from the whole recording each time (a resumed review writes again).
            writer = EventWriter(s, fold_known=True)
            writer.state(session.table_id)["profile"] = profile
            writer.look_up(events)
            for e in events:
                counts["events"] += int(writer.event(e, profile))
            for h in session.hands:
                hist = h["history"]
                writer.history(table_id=session.table_id, round_ref=hist["round_id"], game=hist.get("game"),
                               history={**hist, "review": _where(h)},
                               phase="ended" if hist.get("complete") else "cut short",
                               span=(hist["media_begin"], hist["media_end"]))
                counts["hands"] += 1
            for a in session.alerts:
                alert = Alert.model_validate({k: v for k, v in a.items() if k in Alert.model_fields})
                snapshot = None
                if a.get("snapshot"):
                    snapshot = _copy_snapshot(out / a["snapshot"], snapshot_dir) or a["snapshot"]
                writer.alert(alert, snapshot=snapshot, annotations={"review": _where(a)})
            writer.state(session.table_id)["review"] = {
                "session": session.name, "report": str((out / "report.html").resolve()),
                "recordings": [f["video"] for f in session.files],
                "perception": session.summary["perception"],
                "reviewed_at": datetime.now(UTC).isoformat(timespec="seconds"), "summary": session.summary,
            }
            new_alerts, _ = writer.write()
            counts["alerts"] = len(new_alerts)
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
