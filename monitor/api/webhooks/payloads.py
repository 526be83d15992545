"""Webhook bodies: generic JSON, and a Milestone XProtect analytics event (XML).

The Milestone body follows the ``AnalyticsEvent`` document of the ``urn:milestone-systems``
namespace that the XProtect Event Server accepts on its analytics-events port: the header's
``Timestamp`` is the trigger, ``StartTime`` / ``EndTime`` bound the clip, so an alarm or a
bookmark rule in XProtect covers exactly the evidence.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any
from xml.etree import ElementTree as ET

from monitor.api.settings import WebhookTarget
from monitor.rules.references import CitationError, parse_legacy
from monitor.store.models import AlertRow

MILESTONE_NS = "urn:milestone-systems"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
_ID_NAMESPACE = uuid.UUID("6f0d8a4e-3c55-4b8e-9d0b-7a61c0de7ab1")


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def cited(row: AlertRow) -> str | None:
    """The alert's rule as a person reads it ('Livermore Casino Pai Gow Poker, rule 55'), else its key."""
    try:
        return parse_legacy(row.rule).text if row.rule else None
    except CitationError:
        return row.rule


def json_body(row: AlertRow) -> dict[str, Any]:
    """The generic JSON payload: the alert's facts, its bookmark times and the full alert."""
    return {
        "kind": "table-monitor.alert",
        "alert_id": row.id,
        "table_id": row.table_id,
        "game": row.game,
        "round_id": row.round_id,
        "code": row.code,
        "rule": row.rule,
        "citation": cited(row),
        "severity": row.severity,
        "message": row.message,
        "raised_at": _iso(row.raised_at),
        "media": {"begin": row.media_begin, "trigger": row.media_trigger, "end": row.media_end},
        "bookmark": {
            "begin": _iso(row.wall_begin), "trigger": _iso(row.wall_trigger), "end": _iso(row.wall_end),
        },
        "snapshot": row.snapshot,
        "alert": row.payload,
    }


def milestone_event_id(alert_id: str) -> str:
    """A stable GUID per alert, so the VMS sees a resend as the same event."""
    return str(uuid.uuid5(_ID_NAMESPACE, alert_id))


def milestone_body(row: AlertRow, target: WebhookTarget) -> str:
    ET.register_namespace("", MILESTONE_NS)
    ET.register_namespace("i", XSI_NS)

    def q(tag: str) -> str:  # a namespaced tag
        return f"{{{MILESTONE_NS}}}{tag}"

    trigger = row.wall_trigger or row.raised_at
    root = ET.Element(q("AnalyticsEvent"))
    header = ET.SubElement(root, q("EventHeader"))
    ET.SubElement(header, q("ID")).text = milestone_event_id(row.id)
    ET.SubElement(header, q("Timestamp")).text = _iso(trigger)
    ET.SubElement(header, q("Type")).text = target.event_type
    ET.SubElement(header, q("Message")).text = f"[{row.severity}] {row.table_id}: {row.message}"[:255]
    ET.SubElement(header, q("CustomTag")).text = row.id
    source = ET.SubElement(header, q("Source"))
    camera = target.camera_by_table.get(row.table_id, target.default_camera or row.table_id)
    ET.SubElement(source, q("Name")).text = camera
    description = f"{cited(row) or ''} | {row.code} | round {row.round_id or '-'} | alert {row.id}"
    ET.SubElement(root, q("Description")).text = description
    ET.SubElement(root, q("StartTime")).text = _iso(row.wall_begin or trigger)
    ET.SubElement(root, q("EndTime")).text = _iso(row.wall_end or trigger)
    ET.SubElement(root, q("Location")).text = f"table {row.table_id}"
    vendor = ET.SubElement(root, q("Vendor"))
    ET.SubElement(vendor, q("Name")).text = "table-monitor"
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode")


def render(row: AlertRow, target: WebhookTarget) -> tuple[str, str]:
    """(content type, body) of ``row`` for ``target``."""
    if target.format.value == "milestone":
        return "text/xml; charset=utf-8", milestone_body(row, target)
    return "application/json", json.dumps(json_body(row), separators=(",", ":"), ensure_ascii=False)


def idempotency_key(alert_id: str, target: str) -> str:
    return f"{alert_id}:{target}"
