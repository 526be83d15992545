"""``DiceReader``: reads the dice reader's serial line (hardware/PROTOCOL.md) with pyserial.

A capture thread opens the port, frames and checks every line, and reports
readings and faults as ``DiceEvent`` values. It never raises into the caller:
an unplugged reader (the port errors or disappears) or a silent one (no line
within the heartbeat timeout) is ``ReaderLost``; the port is reopened with
exponential backoff and the first good line after that is ``ReaderRecovered``.
The reader uses the same life cycle as video sources (``SourceState``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import serial  # type: ignore[import-untyped]

from monitor.sources.backoff import Backoff
from monitor.sources.dice_events import (
    BadLine,
    DeviceReported,
    DeviceRestarted,
    DiceEvent,
    DiceRolled,
    InvalidDice,
    ReaderConnected,
    ReaderFailed,
    ReaderLost,
    ReaderRecovered,
    SequenceGap,
    SequenceRepeat,
    SequenceRestarted,
)
from monitor.sources.dice_protocol import (
    DiceLineParser,
    DiceMessage,
    DiceOutOfRange,
    HeartbeatMessage,
    HelloMessage,
    LineError,
    ParseResult,
    StatusMessage,
)
from monitor.sources.dice_sequence import SequenceTracker
from monitor.sources.policy import BoundedBuffer, ConsumePolicy, FillPolicy
from monitor.sources.state import READ_ALLOWED, START_ALLOWED, SourceState, StateMachine

log = logging.getLogger(__name__)

DiceHandler = Callable[[DiceEvent], None]
SerialFactory = Callable[[str, int, float], Any]


def open_serial(port: str, baudrate: int, timeout: float) -> serial.Serial:
    # exclusive: a second process reading the same reader would steal half the lines
    return serial.Serial(port, baudrate=baudrate, timeout=timeout, exclusive=True)


@dataclass(frozen=True, slots=True)
class DiceMetrics:
    port: str
    state: SourceState
    readings: int
    lines_ok: int
    bad_lines: int
    garbage_bytes: int
    gaps: int
    missing_readings: int
    repeats: int
    reconnects: int
    # seconds since the last well-formed line (a heartbeat or a roll); None before the first one
    silent_s: float | None = None


class DiceReader:
    """Reads dice from a serial port on a thread; ``get()`` returns rolls, handlers get every event."""

    def __init__(
        self,
        port: str,
        baudrate: int = 9600,
        heartbeat_timeout_s: float = 3.5,
        backoff: Backoff | None = None,
        handlers: list[DiceHandler] | None = None,
        serial_factory: SerialFactory = open_serial,
        poll_s: float = 0.1,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.heartbeat_timeout_s = heartbeat_timeout_s
        self.backoff = backoff or Backoff(initial_s=0.25, factor=2.0, maximum_s=5.0)
        self._handlers = list(handlers or [])
        self._serial_factory = serial_factory
        self._poll_s = poll_s
        self._machine = StateMachine(f"dice:{port}", lambda old, new: None)
        # rolls are rare; a consumer that stalls for 64 of them has bigger problems than the oldest roll
        self._readings: BoundedBuffer[DiceRolled] = BoundedBuffer(
            64, FillPolicy.DROP_OLDEST, ConsumePolicy.LAZY
        )
        self._sequence = SequenceTracker()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(
            ("readings", "lines_ok", "bad_lines", "garbage_bytes", "gaps", "missing_readings", "repeats",
             "reconnects"),
            0,
        )
        self._lost_at: float | None = None
        self._last_line_at: float | None = None  # monotonic time of the last well-formed line
        self._fresh = True
        self._attempts = 0
        self.error: str | None = None

    # -- public API -------------------------------------------------------------------

    @property
    def state(self) -> SourceState:
        return self._machine.state

    def add_handler(self, handler: DiceHandler) -> None:
        self._handlers.append(handler)

    def start(self) -> DiceReader:
        self._machine.require("start", START_ALLOWED)
        self._machine.move(SourceState.CONNECTING)
        self._thread = threading.Thread(target=self._run, name=f"dice-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 5.0) -> None:
        self._stop.set()
        self._machine.try_move(SourceState.ENDED)
        self._readings.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def get(self, timeout: float | None = None) -> DiceRolled | None:
        """The next roll, oldest first; None on timeout or after stop."""
        self._machine.require("read", READ_ALLOWED)
        return self._readings.get(timeout)

    def metrics(self) -> DiceMetrics:
        with self._lock:
            c = dict(self._counts)
            last = self._last_line_at
        silent = None if last is None else max(0.0, time.monotonic() - last)
        return DiceMetrics(port=self.port, state=self.state, silent_s=silent, **c)

    def __enter__(self) -> DiceReader:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- reader thread ------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._loop()
        except Exception as exc:  # a bug must not take the monitor down: report it as a device fault
            log.exception("dice reader %s crashed", self.port)
            self.error = f"internal error: {exc!r}"
            if self._machine.try_move(SourceState.ERROR):
                self._emit(ReaderFailed(port=self.port, reason=self.error))
        finally:
            self._readings.close()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                port = self._serial_factory(self.port, self.baudrate, self._poll_s)
            except (serial.SerialException, OSError, ValueError) as exc:
                reason = f"cannot open {self.port}: {_short(exc)}"
            else:
                try:
                    reason = self._read(port)
                finally:
                    with contextlib.suppress(serial.SerialException, OSError):
                        port.close()
            if self._stop.is_set():
                return
            if self.state in (SourceState.RUNNING, SourceState.CONNECTING):
                self._lost_at = time.monotonic()
                self._attempts = 0
                self._emit(ReaderLost(port=self.port, reason=reason))
                self._machine.try_move(SourceState.RECONNECTING)
            if self.backoff.exhausted(self._attempts + 1):
                self.error = f"gave up after {self._attempts + 1} attempts: {reason}"
                if self._machine.try_move(SourceState.ERROR):
                    self._emit(ReaderFailed(port=self.port, reason=self.error))
                return
            self._stop.wait(self.backoff.delay(self._attempts))
            self._attempts += 1

    def _read(self, port: Any) -> str:
        """Read until the port fails or falls silent; return why."""
        parser = DiceLineParser()  # a half line from before a replug must not join a new one
        # opening the port flushes its input, so a replugged device's HELLO is usually gone: a numbering
        # restart seen first thing after a reconnect is expected (the outage was already reported)
        self._fresh = True
        last_good = time.monotonic()
        garbage_seen = 0
        while not self._stop.is_set():
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError) as exc:
                return f"serial port error: {_short(exc)}"
            now = time.monotonic()
            if data:
                results = parser.feed(data)
                if parser.garbage_bytes != garbage_seen:
                    self._count("garbage_bytes", parser.garbage_bytes - garbage_seen)
                    garbage_seen = parser.garbage_bytes
                for result in results:
                    if self._handle(result, now):
                        last_good = now
                        with self._lock:
                            self._last_line_at = now
            if now - last_good > self.heartbeat_timeout_s:
                return f"no heartbeat for {self.heartbeat_timeout_s:.1f} s"
        return "stopped"

    def _handle(self, result: ParseResult, now: float) -> bool:
        """Report one parse result; return True if it was a well-formed line (the device is alive)."""
        if isinstance(result, LineError):
            self._count("bad_lines")
            self._emit(BadLine(port=self.port, monotonic_s=now, kind=result.kind, detail=result.detail,
                               raw=result.raw))
            return False
        self._count("lines_ok")
        self._connected(now)
        if isinstance(result, DiceMessage):
            previous = self._sequence.last
            verdict = self._sequence.on_roll(result.seq)
            if verdict == "repeat":
                self._count("repeats")
                self._emit(SequenceRepeat(port=self.port, monotonic_s=now, seq=result.seq))
                return True
            if verdict == "back" and previous is not None:
                self._restarted(previous, result.seq, now)
            elif isinstance(verdict, tuple):
                self._gap(verdict[1], result.seq, verdict[2], "DICE", now)
            rolled = DiceRolled(port=self.port, monotonic_s=now, seq=result.seq, values=result.values)
            self._count("readings")
            self._readings.put(rolled)
            self._emit(rolled)
            self._fresh = False
        elif isinstance(result, DiceOutOfRange):
            self._sequence.on_roll(result.seq)  # the line arrived; only its values are bad
            self._emit(InvalidDice(port=self.port, monotonic_s=now, seq=result.seq, values=result.values))
        elif isinstance(result, HeartbeatMessage):
            previous = self._sequence.last
            verdict_hb = self._sequence.on_heartbeat(result.last_seq)
            if verdict_hb == "back" and previous is not None:
                self._restarted(previous, result.last_seq, now)
            elif isinstance(verdict_hb, tuple) and result.last_seq is not None:
                self._gap(verdict_hb[1], result.last_seq, verdict_hb[2], "HB", now)
            self._fresh = False
        elif isinstance(result, StatusMessage):
            self._emit(DeviceReported(port=self.port, monotonic_s=now, code=result.code, text=result.text))
        elif isinstance(result, HelloMessage):
            self._sequence.reset()
            self._emit(DeviceRestarted(port=self.port, monotonic_s=now, firmware=result.firmware,
                                       device_id=result.device_id))
        return True

    def _restarted(self, previous: int, got: int | None, now: float) -> None:
        if not self._fresh:
            self._emit(SequenceRestarted(port=self.port, monotonic_s=now, previous=previous, got=got))

    def _gap(self, expected: int, got: int, missing: int, seen_in: str, now: float) -> None:
        self._count("gaps")
        self._count("missing_readings", missing)
        self._emit(SequenceGap(port=self.port, monotonic_s=now, expected=expected, got=got, missing=missing,
                               seen_in=seen_in))

    def _connected(self, now: float) -> None:
        if self.state is SourceState.CONNECTING and self._machine.try_move(SourceState.RUNNING):
            self._emit(ReaderConnected(port=self.port, monotonic_s=now))
        elif self.state is SourceState.RECONNECTING and self._machine.try_move(SourceState.RUNNING):
            self._count("reconnects")
            downtime = now - (self._lost_at if self._lost_at is not None else now)
            self._emit(ReaderRecovered(port=self.port, monotonic_s=now, downtime_s=downtime,
                                       attempts=self._attempts))

    def _count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._counts[name] += n

    def _emit(self, event: DiceEvent) -> None:
        for handler in self._handlers:
            try:
                handler(event)
            except Exception:  # a broken handler must not stop reading
                log.exception("dice reader %s: handler %r failed", self.port, handler)


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:200]
