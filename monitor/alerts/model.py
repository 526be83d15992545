"""The alert: what the monitor tells the floor, surveillance and investigators.

An alert names the broken house rule (the room's rulebook and rule number: "Livermore Casino Pai Gow
Poker, rule 55", with the product's reference for it in ``monitor/rules/references/``), says in
one line what happened, carries the events behind it and the media time range to bookmark.
Its ``id`` is derived from what the alert is about (table, round, code, and a key such as
the seat or card), never from when it was sent, so a resend or a replay of the same events
gives the same id and a store can upsert on it.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, model_validator

from monitor.events.schema import Event, Game
from monitor.rules.references import Citation, CitationError, book_of_seed, cite

ALERT_SCHEMA_VERSION: Final = 1


class Severity(StrEnum):
    """How bad, and who acts (docs/events.md)."""

    MISDEAL = "misdeal"  # the hand is dead: no action, redeal (floor acts now)
    INTEGRITY = "integrity"  # money or cards handled against the rules: surveillance review
    PROCEDURE = "procedure"  # a procedure slip the dealer must correct
    DEVICE = "device"  # a camera or the dice reader failed or disagrees
    INFO = "info"  # worth a note, no rule broken
    DATA = "data"  # an input the monitor could not use (bad event line, impossible value)


class RuleRef(BaseModel):
    """A house rule: its rule document and number there, its text, and its rulebook by name."""

    # ``seed`` and ``rule`` are how the catalog keys it (the rule document and its number there); ``book``
    # and ``cited`` name it as a person reads it ("Livermore Casino Pai Gow Poker, rule 55"). An alert
    # stored before ``book`` and ``cited`` existed gets them filled in when it is read.
    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: str = Field(description="seed file, e.g. 000_3987c5033707fbb2.txt; '' for monitor rules")
    rule: str = Field(description="rule number in that file, e.g. '55', '48a', 'misdeal 4'")
    text: str = Field(description="the rule, quoted or closely paraphrased")
    book: str = Field(default="", description="rulebook id in monitor/rules/references, e.g. 'livermore'")
    cited: str = Field(default="", description="rulebook and rule: 'Livermore Casino Pai Gow Poker, rule 55'")

    @model_validator(mode="before")
    @classmethod
    def _name_the_rulebook(cls, data: Any) -> Any:
        if isinstance(data, dict) and not (data.get("book") and data.get("cited")):
            seed, rule = str(data.get("seed", "")), str(data.get("rule", ""))
            try:
                book = data.get("book") or book_of_seed(seed, rule)
                data = {**data, "book": book, "cited": data.get("cited") or cite(book, rule).text}
            except CitationError:
                pass  # a stored alert citing a rule the references lack keeps its seed citation
        return data

    @property
    def citation(self) -> str:
        """'seed 000 rule 55': the catalog's key for the rule (the store's ``rule`` column)."""
        if not self.seed:
            return f"monitor: {self.rule}"
        if self.rule[:1].isdigit():
            return f"seed {self.seed[:3]} rule {self.rule}"
        return f"seed {self.seed[:3]} {self.rule}"

    @property
    def display(self) -> str:
        """'Livermore Casino Pai Gow Poker, rule 55' (the seed citation where no reference holds it)."""
        return self.cited or self.citation

    def reference(self) -> Citation:
        """The product's reference entries for this rule; :class:`CitationError` if it has none."""
        return cite(self.book or book_of_seed(self.seed, self.rule), self.rule)


class MediaRange(BaseModel):
    """Where to look in the recording: from ``begin`` (first evidence) through ``end``; ``trigger``
    is the moment the rule broke."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    begin: float = Field(ge=0)
    trigger: float = Field(ge=0)
    end: float = Field(ge=0)


class Alert(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = ALERT_SCHEMA_VERSION
    id: Annotated[str, Field(min_length=16, max_length=64)]
    code: str = Field(description="catalog code, see monitor/alerts/catalog.py")
    table_id: str
    game: Game | None = None
    round_id: str | None = Field(default=None, description="the round the alert belongs to, if any")
    rule: RuleRef
    related_rules: list[RuleRef] = Field(default_factory=list)
    severity: Severity
    message: str = Field(description="one line a floor person understands")
    evidence_seqs: list[int] = Field(default_factory=list)
    evidence: list[Event] = Field(default_factory=list)
    # For data alerts: the input that could not be read (truncated), and where it was.
    raw_input: str | None = None
    location: str | None = Field(default=None, description="e.g. 'events.jsonl line 12'")
    media: MediaRange | None = None
    wall_time: str | None = Field(default=None, description="UTC ISO 8601 wall time of the trigger event")
    snapshot_path: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    # Which rule profile judged it (the table file's ``profile.name``); None on alerts stored before
    # alerts named their profile.
    profile: str | None = Field(default=None, description="name of the table's rule profile that judged it")

    @property
    def one_line(self) -> str:
        """'[misdeal] Livermore Casino Pai Gow Poker, rule 55: stub has 5 cards ...' for logs and the CLI."""
        return f"[{self.severity.value}] {self.rule.display}: {self.message}"


def alert_id(table_id: str, round_id: str | None, code: str, key: str = "") -> str:
    """Deterministic id: the same fault in the same round is the same alert, however often sent.

    >>> alert_id("T1", "r5", "stub_not_four") == alert_id("T1", "r5", "stub_not_four")
    True
    >>> alert_id("T1", "r5", "stub_not_four") != alert_id("T1", "r6", "stub_not_four")
    True
    """
    raw = "\x1f".join((table_id, round_id or "", code, key))
    return hashlib.blake2b(raw.encode(), digest_size=12).hexdigest()


def alerts_json_schema() -> dict[str, Any]:
    schema = Alert.model_json_schema()
    schema["$comment"] = (
        f"alert schema_version {ALERT_SCHEMA_VERSION}; generated by `table-monitor export-schema`"
    )
    return schema
