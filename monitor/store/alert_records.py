"""The procedure monitor's :class:`~monitor.alerts.model.Alert` as store rows and back."""

from __future__ import annotations

from datetime import datetime, timedelta

from monitor.alerts.model import Alert
from monitor.store.repository import NewAlert


def _wall(alert: Alert, media_time: float | None) -> datetime | None:
    """Wall time of a media instant, anchored on the trigger's wall time (the clock the VMS records by)."""
    if alert.wall_time is None or alert.media is None or media_time is None:
        return None
    trigger = datetime.fromisoformat(alert.wall_time.replace("Z", "+00:00"))
    return trigger + timedelta(seconds=media_time - alert.media.trigger)


def new_alert(alert: Alert) -> NewAlert:
    media = alert.media
    return NewAlert(
        id=alert.id,
        table_id=alert.table_id,
        code=alert.code,
        severity=alert.severity.value,
        message=alert.message,
        game=alert.game.value if alert.game else None,
        round_ref=alert.round_id,
        rule=alert.rule.citation,
        evidence=[e.model_dump(mode="json") for e in alert.evidence],
        media_begin=media.begin if media else None,
        media_trigger=media.trigger if media else None,
        media_end=media.end if media else None,
        wall_begin=_wall(alert, media.begin if media else None),
        wall_trigger=_wall(alert, media.trigger if media else None),
        wall_end=_wall(alert, media.end if media else None),
        snapshot=alert.snapshot_path,
        payload=alert.model_dump(mode="json"),
    )


def stored_alert(payload: dict[str, object]) -> Alert:
    """The procedure's Alert as it was stored (validated again: the store is not trusted blindly)."""
    return Alert.model_validate(payload)
