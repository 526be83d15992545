"""The one settings object of the API, read from ``TABLE_MONITOR_*`` environment variables.

Secrets (tokens, webhook secrets) come from the environment or files and are never part of
the settings' printable form (``SecretStr``).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import AnyHttpUrl, BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from monitor.alerts.model import Severity
from monitor.store.db import DEFAULT_DB_URL


class WebhookFormat(StrEnum):
    JSON = "json"
    MILESTONE = "milestone"  # Milestone XProtect analytics event (XML)


class WebhookTarget(BaseModel):
    """Where alerts go out: a URL, a payload format, and which severities it wants."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
    url: AnyHttpUrl
    format: WebhookFormat = WebhookFormat.JSON
    severities: list[Severity] | None = Field(default=None, description="None: every severity")
    secret: SecretStr | None = Field(default=None, description="HMAC-SHA256 signing key")
    timeout_s: float = Field(default=5.0, gt=0, le=60)
    # Milestone: the camera (as named in XProtect) whose recording the bookmark belongs to, per table.
    camera_by_table: dict[str, str] = Field(default_factory=dict)
    default_camera: str | None = None
    event_type: str = Field(default="table-monitor alert", description="analytics event name in XProtect")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TABLE_MONITOR_", extra="ignore", frozen=True)

    db_url: str = DEFAULT_DB_URL
    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 8080
    tokens: SecretStr | None = Field(
        default=None, description="name:role:token entries, comma-separated (hashed on load)")
    tokens_file: Path | None = Field(default=None, description="file of 'name role sha256:HEX' lines")
    cors_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_body_bytes: Annotated[int, Field(ge=1024)] = 1_048_576
    max_batch_events: Annotated[int, Field(ge=1, le=100_000)] = 5_000
    ingest_batch_max: Annotated[int, Field(ge=1)] = 2_000
    live_queue_size: Annotated[int, Field(ge=16)] = 10_000
    table_push_interval_s: Annotated[float, Field(gt=0)] = 0.25
    snapshot_dir: Path | None = None
    webhooks: list[WebhookTarget] = Field(default_factory=list)
    webhooks_file: Path | None = None
    replay_on_start: bool = True

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        # "https://a.example, https://b.example" in the environment; a list in code.
        return [v.strip() for v in value.split(",") if v.strip()] if isinstance(value, str) else value

    def all_webhooks(self) -> list[WebhookTarget]:
        """Targets from the environment plus those of ``webhooks_file`` (JSON or YAML list)."""
        targets = list(self.webhooks)
        if self.webhooks_file is not None:
            import yaml

            raw = yaml.safe_load(self.webhooks_file.read_text(encoding="utf-8")) or []
            if not isinstance(raw, list):
                raise ValueError(f"{self.webhooks_file}: expected a list of webhook targets")
            targets.extend(WebhookTarget.model_validate(item) for item in raw)
        names = [t.name for t in targets]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"webhook target names must be unique; repeated: {', '.join(duplicates)}")
        return targets
