"""Request and response bodies of the REST API (the OpenAPI document is generated from these)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from monitor.alerts.model import Alert, Severity
from monitor.rules.references import CitationError, Rulebook, RuleEntry, anchor, parse_legacy
from monitor.store.models import AlertRow, AlertStatus, HandHistoryRow, RoundRow, TableRow

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int = Field(description="items matching the filter, over all pages")
    limit: int
    offset: int


class ErrorDetail(BaseModel):
    loc: list[str | int] = Field(default_factory=list, description="where in the request")
    msg: str
    type: str


class ErrorOut(BaseModel):
    """Every error answer: a message and, for invalid requests, what was wrong where."""

    detail: str | list[ErrorDetail]


class MediaTimes(BaseModel):
    begin: float | None
    trigger: float | None
    end: float | None


class WallTimes(BaseModel):
    begin: datetime | None
    trigger: datetime | None
    end: datetime | None


class RuleOut(BaseModel):
    """One rule of a rulebook as the product's references give it."""

    number: str = Field(description="the room's number ('32') or section ('misdeal 3', 'deal')")
    title: str
    checks: str = Field(description="what the monitor checks against it")
    href: str = Field(description="the rule on the product's reference page")

    @classmethod
    def of(cls, book: Rulebook, entry: RuleEntry) -> RuleOut:
        return cls(number=entry.number, title=entry.title, checks=entry.checks,
                   href=f"/rules/{book.id}#{anchor(entry.number)}")


class RulebookOut(BaseModel):
    id: str
    name: str = Field(description="room and game, e.g. 'Livermore Casino Pai Gow Poker'")
    room: str
    game: str
    href: str
    rules: list[RuleOut]

    @classmethod
    def of(cls, book: Rulebook) -> RulebookOut:
        return cls(id=book.id, name=book.name, room=book.room, game=book.game, href=f"/rules/{book.id}",
                   rules=[RuleOut.of(book, r) for r in book.rules])


class CitationOut(BaseModel):
    """An alert's rule as a person reads it, with the product's reference entries it opens."""

    text: str = Field(description="'Livermore Casino Pai Gow Poker, rule 55'")
    book: str = Field(description="rulebook id, e.g. 'livermore'")
    book_name: str
    href: str = Field(description="the first rule cited on the product's reference page")
    rules: list[RuleOut]

    @classmethod
    def parse(cls, rule: str | None) -> CitationOut | None:
        """From the stored citation ('seed 000 rule 55'); None where no reference holds it."""
        return _citation(rule) if rule else None


@lru_cache(maxsize=256)
def _citation(rule: str) -> CitationOut | None:
    # One answer per stored citation: every alert pushed or listed carries it (read only, never changed).
    try:
        c = parse_legacy(rule)
    except CitationError:
        return None
    return CitationOut(text=c.text, book=c.book.id, book_name=c.book.name, href=c.href,
                       rules=[RuleOut.of(c.book, e) for e in c.entries])


class AlertSummary(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    table_id: str
    game: str | None
    round_id: str | None
    code: str
    rule: str | None = Field(description="the rule's key, e.g. 'seed 000 rule 55' (rule document and number)")
    citation: CitationOut | None = Field(
        default=None, description="the rule by rulebook name and number, with the product's reference for it")
    severity: Severity
    message: str
    status: AlertStatus
    raised_at: datetime
    media: MediaTimes = Field(description="seconds into the recording: first evidence, trigger, last")
    bookmark: WallTimes = Field(description="the same instants as UTC wall times, for the VMS")
    has_snapshot: bool
    acknowledged_by: str | None
    acknowledged_at: datetime | None
    acknowledge_comment: str | None
    resolved_by: str | None
    resolved_at: datetime | None
    resolve_comment: str | None
    profile: str | None = Field(default=None,
                                description="the rule profile that judged it (None: not recorded)")

    @classmethod
    def of(cls, row: AlertRow) -> AlertSummary:
        return cls(
            id=row.id, table_id=row.table_id, game=row.game, round_id=row.round_id, code=row.code,
            rule=row.rule, citation=CitationOut.parse(row.rule), severity=Severity(row.severity),
            message=row.message,
            status=AlertStatus(row.status), raised_at=row.raised_at,
            media=MediaTimes(begin=row.media_begin, trigger=row.media_trigger, end=row.media_end),
            bookmark=WallTimes(begin=row.wall_begin, trigger=row.wall_trigger, end=row.wall_end),
            has_snapshot=bool(row.snapshot), acknowledged_by=row.acknowledged_by,
            acknowledged_at=row.acknowledged_at, acknowledge_comment=row.acknowledge_comment,
            resolved_by=row.resolved_by, resolved_at=row.resolved_at, resolve_comment=row.resolve_comment,
            profile=(row.payload or {}).get("profile"),
        )


class AuditEntryOut(BaseModel):
    seq: int
    recorded_at: str
    actor: str
    action: str
    hash: str


class AlertDetail(AlertSummary):
    """An alert with everything behind it: the monitor's full alert (rule text, evidence events)
    and its audit trail."""

    alert: Alert
    audit: list[AuditEntryOut]


Comment = Annotated[str, Field(min_length=1, max_length=2000)]


class AcknowledgeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    comment: Comment | None = None


class ResolveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    comment: Comment = Field(description="what was found and done (required to close an alert)")


SourceKind = Literal["camera", "dice_reader"]
SourceStateName = Literal["not_started", "connecting", "running", "reconnecting", "ended", "error"]
Count = Annotated[int, Field(ge=0, le=2**63 - 1)]


class SourceHealthIn(BaseModel):
    """One camera or dice reader as a table's run reports it to a central server (its /health row)."""

    model_config = ConfigDict(extra="ignore")  # a newer run may report more than this server knows

    source: str = Field(min_length=1, max_length=512, description="camera id (usb:0, a file, an RTSP URL "
                                                                  "without credentials) or serial port")
    kind: SourceKind = Field(description="'camera' or 'dice_reader'")
    state: SourceStateName = Field(
        description="not_started, connecting, running, reconnecting, ended or error")
    up: bool = Field(description="delivering (state running)")
    fps: Annotated[float, Field(ge=0, le=10_000)] | None = Field(
        None, description="camera: frames captured a second, over about the last 10 s")
    captured: Count | None = Field(None, description="camera: frames captured")
    dropped: Count | None = Field(None, description="camera: frames dropped for a slow consumer")
    reconnects: Count = Field(0, description="recoveries after a loss")
    bad_lines: Count | None = Field(None, description="dice reader: lines that failed their checks")
    missing_readings: Count | None = Field(None, description="dice reader: rolls lost (sequence gaps)")
    silent_s: Annotated[float, Field(ge=0, le=1e9)] | None = Field(
        None, description="dice reader: seconds since its last good line")


class SourceHealthOut(SourceHealthIn):
    table_id: str | None = Field(None, description="the table it watches, where known")
    age_s: float | None = Field(
        None, description="a central server: seconds since the table's run reported it (over 30: the run "
                          "is not reporting, and the source counts as down); none for this process's own")

    @classmethod
    def of(cls, row: Any) -> SourceHealthOut:  # a monitor.sources.prometheus.SourceHealth
        return cls(source=row.source, kind=row.kind, state=row.state.value, up=row.up and not row.stale,
                   fps=row.fps, captured=row.captured, dropped=row.dropped, reconnects=row.reconnects,
                   bad_lines=row.bad_lines, missing_readings=row.missing_readings, silent_s=row.silent_s,
                   table_id=row.table, age_s=row.age_s)


class SourcesIn(BaseModel):
    """A table's sources now, as its run reports them every few seconds (none: the run stopped)."""

    model_config = ConfigDict(extra="forbid")

    sources: list[SourceHealthIn] = Field(max_length=64)


class SourcesOut(BaseModel):
    table_id: str
    sources: list[SourceHealthOut]


class TableOut(BaseModel):
    id: str
    game: str | None
    updated_at: datetime
    open_alerts: int = Field(description="alerts not yet resolved")
    state: dict[str, Any] = Field(description="round phase, banker seat, seats, last dice, devices")
    sources: list[SourceHealthOut] = Field(
        default_factory=list, description="the table's camera and dice reader as its run last reported them")
    profile: dict[str, Any] | None = Field(
        default=None,
        description="the rule profile judging the table: its table file's profile section with every key "
                    "written out, and 'line', one line saying it (None: not known here)")

    @classmethod
    def of(cls, row: TableRow, open_alerts: int, sources: list[SourceHealthOut] | None = None) -> TableOut:
        return cls(id=row.id, game=row.game, updated_at=row.updated_at, open_alerts=open_alerts,
                   state=row.state, sources=sources or [], profile=(row.state or {}).get("profile"))


class RoundOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    table_id: str
    round_ref: str
    game: str | None
    phase: str | None
    started_at: datetime
    ended_at: datetime | None
    media_start: float | None
    media_end: float | None
    alert_count: int
    has_history: bool = False

    @classmethod
    def of(cls, row: RoundRow, has_history: bool) -> RoundOut:
        out = cls.model_validate(row)
        out.has_history = has_history
        return out


class HandHistoryOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    round_id: str
    table_id: str
    game: str | None
    recorded_at: datetime
    history: dict[str, Any] = Field(description="the procedure monitor's hand history of the round")

    @classmethod
    def of(cls, row: HandHistoryRow) -> HandHistoryOut:
        return cls.model_validate(row)


class RejectedEvent(BaseModel):
    index: int = Field(description="position in the batch (0 for a single event)")
    errors: list[ErrorDetail]


class IngestResult(BaseModel):
    """Sent only after the events and every alert they caused are committed to the store."""

    accepted: int = Field(description="events stored for the first time")
    duplicates: int = Field(description="events already stored (same table and sequence number)")
    alerts: list[str] = Field(description="ids of the alerts these events raised")


class HealthOut(BaseModel):
    status: str = Field(description="'ok'; 'degraded' when the database is unavailable (HTTP 503), a "
                                    "source is reconnecting or failed, or a table's run stopped "
                                    "reporting its sources (HTTP 200)")
    version: str
    database: str = Field(description="'ok' or 'unavailable'")
    sources: list[SourceHealthOut] = Field(
        default_factory=list,
        description="the cameras and dice readers of a live run served here (run, demo), and on a central "
                    "server those each table's run reports")


class AuditVerifyOut(BaseModel):
    ok: bool
    checked: int
    broken_seq: int | None
    reason: str | None
    head_hash: str
    alert_problems: list[str]


class WhoAmI(BaseModel):
    name: str
    role: str
    permissions: list[str]
