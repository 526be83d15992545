"""What the dice reader reports: readings, and typed status events for device alerts.

``DiceRolled`` is the reading the monitor turns into a ``dice_rolled`` event;
everything with ``is_fault`` becomes a device alert (Livermore rule 8: the dice
decide which seat gets which pile, so a doubtful reading must be flagged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from monitor.sources.status import utc_now


@dataclass(frozen=True, slots=True, kw_only=True)
class DiceEvent:
    port: str
    wall_time: datetime = field(default_factory=utc_now)
    monotonic_s: float = 0.0

    @property
    def is_fault(self) -> bool:
        return False

    @property
    def message(self) -> str:
        return f"dice reader {self.port}: {type(self).__name__}"


@dataclass(frozen=True, slots=True, kw_only=True)
class DiceRolled(DiceEvent):
    seq: int
    values: tuple[int, int, int]

    @property
    def total(self) -> int:
        return sum(self.values)

    @property
    def message(self) -> str:
        return f"dice {self.values[0]}-{self.values[1]}-{self.values[2]} (total {self.total}, seq {self.seq})"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderConnected(DiceEvent):
    @property
    def message(self) -> str:
        return f"dice reader {self.port} connected"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderLost(DiceEvent):
    reason: str

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        return f"dice reader {self.port} lost: {self.reason}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderRecovered(DiceEvent):
    downtime_s: float
    attempts: int

    @property
    def message(self) -> str:
        return f"dice reader {self.port} recovered after {self.downtime_s:.1f} s ({self.attempts} attempts)"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderFailed(DiceEvent):
    reason: str

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        return f"dice reader {self.port} failed: {self.reason}"


@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceGap(DiceEvent):
    """Readings were lost on the line: ``missing`` rolls between ``expected`` and ``got``."""

    expected: int
    got: int
    missing: int
    seen_in: str  # "DICE" or "HB" (a heartbeat announcing a roll we never received)

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        return (
            f"dice reader {self.port}: {self.missing} reading(s) lost "
            f"(expected seq {self.expected}, {self.seen_in} says {self.got})"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceRepeat(DiceEvent):
    """The same sequence number again: a resent line, ignored so one roll is never counted twice."""

    seq: int

    @property
    def message(self) -> str:
        return f"dice reader {self.port}: reading seq {self.seq} repeated, ignored"


@dataclass(frozen=True, slots=True, kw_only=True)
class BadLine(DiceEvent):
    kind: str
    detail: str
    raw: bytes

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        return f"dice reader {self.port}: rejected line ({self.kind}: {self.detail}): {self.raw[:60]!r}"


@dataclass(frozen=True, slots=True, kw_only=True)
class InvalidDice(DiceEvent):
    """A checksummed roll whose values are not 1..6 (Livermore rule 8: the roll cannot be used)."""

    seq: int
    values: tuple[int, ...]

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        return f"dice reading out of range {self.values} (seq {self.seq}): each die must be 1..6"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceReported(DiceEvent):
    code: str
    text: str

    @property
    def is_fault(self) -> bool:
        return self.code != "OK"

    @property
    def message(self) -> str:
        return f"dice reader {self.port} reports {self.code}: {self.text}"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceRestarted(DiceEvent):
    firmware: str
    device_id: str

    @property
    def message(self) -> str:
        return f"dice reader {self.port} started: device {self.device_id}, firmware {self.firmware}"


@dataclass(frozen=True, slots=True, kw_only=True)
class SequenceRestarted(DiceEvent):
    """The numbering jumped back without a HELLO: the device restarted and its greeting was lost."""

    previous: int
    got: int | None  # None: a heartbeat saying "no roll since boot"

    @property
    def is_fault(self) -> bool:
        return True

    @property
    def message(self) -> str:
        got = "no roll since boot" if self.got is None else self.got
        return (
            f"dice reader {self.port}: sequence went back from {self.previous} to {got} "
            "(device restarted unannounced; readings in between may be lost)"
        )
