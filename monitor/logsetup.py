"""Logging for every ``table-monitor`` command: one handler on stderr, text or JSON lines.

The root callback of the CLI calls :func:`configure` before any command runs, so the project's own
loggers (``monitor.*``), uvicorn's (served without its own logging config) and Python warnings
(``logging.captureWarnings``) all come out in one format at one level. ``--log-json`` writes one JSON
object a line for a log collector:

    {"ts": "2026-12-02T01:02:03.456Z", "level": "warning", "logger": "monitor.sources.camera",
     "message": "camera 0 lost", "camera": "0"}

``ts`` is UTC with milliseconds; fields passed as ``extra={...}`` are added as keys; an exception
adds ``exc_type`` and ``exc`` (its formatted traceback).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, TextIO

# the attributes every LogRecord has: anything else on a record came from ``extra=``
# (uvicorn adds ``color_message``: its message with terminal colours)
_RECORD_KEYS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "color_message"}
LEVELS = ("debug", "info", "warning", "error")
TEXT_FORMAT = "%(asctime)s.%(msecs)03dZ %(levelname)s %(name)s: %(message)s"
TEXT_DATE_FORMAT = "%Y-%m-%dT%H:%M:%S"
# INFO lines nobody operating the room needs (every HTTP call of the webhook deliveries, Alembic's
# plugin set-up on each start): quiet unless the level is debug
_CHATTY = ("httpx", "httpcore", "alembic.runtime.plugins")
_HANDLER_NAME = "table-monitor"


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        doc: dict[str, Any] = {
            "ts": f"{ts}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_KEYS and key not in doc and not key.startswith("_"):
                doc[key] = value
        if record.exc_info:
            doc["exc_type"] = record.exc_info[0].__name__ if record.exc_info[0] else None
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str, ensure_ascii=False)


def configure(level: str = "info", json_lines: bool = False, stream: TextIO | None = None) -> logging.Handler:
    """Send every log record at ``level`` or above to ``stream`` (stderr) as text or JSON lines.

    Called again, it replaces the handler it installed before (tests, or a command run twice in one
    process) and leaves handlers others installed alone.
    """
    name = level.lower()
    if name not in LEVELS:
        raise ValueError(f"unknown log level {level!r}: one of {', '.join(LEVELS)}")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
        old.close()
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.set_name(_HANDLER_NAME)
    if json_lines:
        handler.setFormatter(JsonLinesFormatter())
    else:
        formatter = logging.Formatter(TEXT_FORMAT, TEXT_DATE_FORMAT)
        formatter.converter = time.gmtime
        handler.setFormatter(formatter)
    root.addHandler(handler)
    root.setLevel(name.upper())
    for chatty in _CHATTY:
        logging.getLogger(chatty).setLevel(logging.DEBUG if name == "debug" else logging.WARNING)
    logging.captureWarnings(True)  # warnings.warn(...) as records of the 'py.warnings' logger
    return handler
