"""The session's HTML report (jinja2): summary, alerts with their snapshot, clip and moment, and a
timeline per hand. One self-contained file (styles inline, no script, nothing fetched) that opens
from disk; its pictures, clips and recordings are relative links into the review folder."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from monitor.review.merge import Session
from monitor.review.timeline import LANES, marks


def clock(seconds: float | None) -> str:
    """'1:02:03.4' / '2:03.4'."""
    if seconds is None:
        return "-"
    whole = int(seconds)
    h, m, s = whole // 3600, whole // 60 % 60, seconds - whole + whole % 60
    return f"{h}:{m:02d}:{s:04.1f}" if h else f"{m}:{s:04.1f}"


def money(cents: int | None) -> str:
    return "-" if cents is None else f"${cents / 100:,.2f}".replace(".00", "")


def _events(out: Path, key: str) -> list[dict[str, Any]]:
    path = out / "files" / key / "events.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def render_html(session: Session, out: Path) -> Path:
    env = Environment(loader=FileSystemLoader(Path(__file__).with_name("templates")),
                      autoescape=select_autoescape(["html"]))
    events = {f["key"]: _events(out, f["key"]) for f in session.files}
    alerts_by_id = {a["id"]: a for a in session.alerts}
    hands = []
    for h in session.hands:
        hist = h["history"]
        begin, end = float(hist["media_begin"]), float(hist["media_end"])
        span = max(end - begin, 1e-6)
        in_hand = []
        for aid in hist.get("alerts", []):
            a = alerts_by_id.get(aid)
            if a is not None and a.get("media"):
                t = float(a["media"]["trigger"])
                x = min(1.0, max(0.0, (t - begin) / span))
                in_hand.append({"id": aid, "code": a["code"], "t": t, "x": x})
        hands.append({"hand": h, "marks": marks(events[h["file_key"]], begin, end), "alerts": in_hand})
    html = env.get_template("report.html").render(
        s=session.to_json(), hands=hands, lanes=LANES, clock=clock, money=money,
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    path = out / "report.html"
    path.write_text(html, encoding="utf-8")
    return path
