"""The dice reader's serial line protocol (hardware/PROTOCOL.md): formatting and a framing parser.

Pure code, no I/O: the parser takes whatever bytes the serial port returned
(half lines, several lines, line noise) and returns the messages and the
errors it found, counting every byte it had to skip.

>>> format_line("DICE,7,3,5,6")
b'$DICE,7,3,5,6*0C\\r\\n'
>>> parser = DiceLineParser()
>>> parser.feed(b"\\x00\\xff$DICE,7,3,5,6*0C\\r\\n$HB,7,12*")
[DiceMessage(seq=7, values=(3, 5, 6))]
>>> parser.garbage_bytes
2
>>> parser.feed(b"4F\\r\\n")
[LineError(kind='checksum', detail='checksum is 4F but the line sums to 3E', raw=b'$HB,7,12*4F')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

SEQ_MODULUS = 65536  # sequence numbers run 0..65535 and wrap
MAX_BODY = 80  # bytes between '$' and '*' (NMEA's limit); longer means lost framing
DIE_FACES = range(1, 7)

ErrorKind = Literal["checksum", "framing", "syntax", "range", "unknown"]


def checksum(body: str | bytes) -> int:
    """NMEA-style XOR of every byte between '$' and '*'."""
    data = body.encode("ascii") if isinstance(body, str) else body
    value = 0
    for byte in data:
        value ^= byte
    return value


def format_line(body: str) -> bytes:
    """A complete protocol line for ``body`` (without '$', '*', checksum or line end)."""
    if "$" in body or "*" in body or len(body) > MAX_BODY:
        raise ValueError(f"not a valid line body: {body!r}")
    return f"${body}*{checksum(body):02X}\r\n".encode("ascii")


@dataclass(frozen=True, slots=True)
class DiceMessage:
    """``$DICE,<seq>,<d1>,<d2>,<d3>``: one settled roll."""

    seq: int
    values: tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class HeartbeatMessage:
    """``$HB,<last_dice_seq>,<uptime_s>``: the device is alive; last_dice_seq is empty before any roll."""

    last_seq: int | None
    uptime_s: int


@dataclass(frozen=True, slots=True)
class StatusMessage:
    """``$STAT,<code>,<text>``: the device reports a condition (e.g. NOREAD: dice could not be read)."""

    code: str
    text: str


@dataclass(frozen=True, slots=True)
class HelloMessage:
    """``$HELLO,<firmware>,<device_id>``: sent once after power-up; the sequence restarts at 0."""

    firmware: str
    device_id: str


@dataclass(frozen=True, slots=True)
class LineError:
    """A line (or fragment) that was rejected, and why. ``raw`` is what arrived, for the evidence."""

    kind: ErrorKind
    detail: str
    raw: bytes


@dataclass(frozen=True, slots=True)
class DiceOutOfRange:
    """A well-formed, correctly summed roll whose values are not die faces (a sensor fault)."""

    seq: int
    values: tuple[int, ...]


Message = DiceMessage | HeartbeatMessage | StatusMessage | HelloMessage
ParseResult = Message | LineError | DiceOutOfRange

_INT = re.compile(r"^(0|[1-9][0-9]{0,4})$")
_FIELD = re.compile(r"^[A-Za-z0-9 ._:/-]{0,40}$")


def _seq(text: str, what: str) -> int:
    if not _INT.match(text) or int(text) >= SEQ_MODULUS:
        raise ValueError(f"{what} {text!r} is not an integer 0..{SEQ_MODULUS - 1}")
    return int(text)


def parse_body(body: str, raw: bytes) -> ParseResult:
    """Interpret a checksummed body. Unknown sentence types are errors of kind ``unknown``."""
    fields = body.split(",")
    kind = fields[0]
    try:
        if kind == "DICE":
            if len(fields) != 5:
                raise ValueError(f"DICE needs 4 fields (seq and three dice), got {len(fields) - 1}")
            seq = _seq(fields[1], "sequence number")
            values = []
            for i, f in enumerate(fields[2:], start=1):
                if not re.fullmatch(r"-?[0-9]{1,3}", f):
                    raise ValueError(f"die {i} value {f!r} is not a number")
                values.append(int(f))
            if any(v not in DIE_FACES for v in values):
                return DiceOutOfRange(seq, tuple(values))
            return DiceMessage(seq, (values[0], values[1], values[2]))
        if kind == "HB":
            if len(fields) != 3:
                raise ValueError(f"HB needs 2 fields (last dice seq, uptime), got {len(fields) - 1}")
            last = None if fields[1] == "" else _seq(fields[1], "last dice sequence number")
            if not re.fullmatch(r"[0-9]{1,10}", fields[2]):
                raise ValueError(f"uptime {fields[2]!r} is not a whole number of seconds")
            return HeartbeatMessage(last, int(fields[2]))
        if kind == "STAT":
            if len(fields) != 3 or not re.fullmatch(r"[A-Z0-9_]{1,12}", fields[1]):
                raise ValueError("STAT needs a code (A-Z, 0-9, _) and a text")
            if not _FIELD.match(fields[2]):
                raise ValueError(f"STAT text {fields[2]!r} has characters outside the protocol's set")
            return StatusMessage(fields[1], fields[2])
        if kind == "HELLO":
            if len(fields) != 3 or not all(_FIELD.match(f) for f in fields[1:]):
                raise ValueError("HELLO needs a firmware version and a device id")
            return HelloMessage(fields[1], fields[2])
    except ValueError as exc:
        return LineError("syntax", str(exc), raw)
    return LineError("unknown", f"unknown sentence type {kind!r}", raw)


class DiceLineParser:
    """Incremental framing: '$' starts a line, '*XX' and CR LF (or LF) end it.

    Bytes outside a line are skipped and counted in ``garbage_bytes``; a line that
    overruns ``MAX_BODY`` or is cut by a new '$' is a framing error, and parsing
    resynchronises at the next '$'.
    """

    def __init__(self) -> None:
        self._line = bytearray()
        self._in_line = False
        self.garbage_bytes = 0

    def feed(self, data: bytes) -> list[ParseResult]:
        out: list[ParseResult] = []
        for byte in data:
            if byte == 0x24:  # '$'
                if self._in_line:
                    cut = bytes(self._line)
                    out.append(LineError("framing", "line cut off by the start of another", cut))
                self._line = bytearray(b"$")
                self._in_line = True
                continue
            if not self._in_line:
                if byte not in (0x0D, 0x0A):  # stray line ends between lines are not garbage
                    self.garbage_bytes += 1
                continue
            if byte == 0x0A:
                out.append(self._finish())
                continue
            self._line.append(byte)
            if len(self._line) > MAX_BODY + 6:
                out.append(LineError("framing", f"no line end within {MAX_BODY} bytes", bytes(self._line)))
                self.garbage_bytes += len(self._line)
                self._line = bytearray()
                self._in_line = False
        return out

    def _finish(self) -> ParseResult:
        raw = bytes(self._line).rstrip(b"\r")
        self._line = bytearray()
        self._in_line = False
        star = raw.rfind(b"*")
        if star < 0 or len(raw) - star != 3:
            return LineError("framing", "line has no '*XX' checksum at its end", raw)
        body, given = raw[1:star], raw[star + 1 :]
        try:
            text = body.decode("ascii")
            expected = int(given.decode("ascii"), 16)
        except (UnicodeDecodeError, ValueError):
            return LineError("framing", "line holds bytes that are not protocol ASCII", raw)
        actual = checksum(body)
        if expected != actual:
            detail = f"checksum is {given.decode()} but the line sums to {actual:02X}"
            return LineError("checksum", detail, raw)
        return parse_body(text, raw)
