"""The dice line protocol parser on its own: framing, checksums, fields."""

from __future__ import annotations

import pytest

from monitor.sources.dice_protocol import (
    MAX_BODY,
    DiceLineParser,
    DiceMessage,
    DiceOutOfRange,
    HeartbeatMessage,
    HelloMessage,
    LineError,
    StatusMessage,
    checksum,
    format_line,
)


def feed_all(*chunks: bytes) -> tuple[list[object], DiceLineParser]:
    parser = DiceLineParser()
    out: list[object] = []
    for chunk in chunks:
        out.extend(parser.feed(chunk))
    return out, parser


def test_every_sentence_round_trips() -> None:
    bodies = ("HELLO,fw-2.1,RDR42", "HB,,3", "DICE,65535,6,5,4", "HB,65535,9", "STAT,OK,ready")
    data = b"".join(format_line(b) for b in bodies)
    out, parser = feed_all(data)
    assert out == [
        HelloMessage("fw-2.1", "RDR42"),
        HeartbeatMessage(None, 3),
        DiceMessage(65535, (6, 5, 4)),
        HeartbeatMessage(65535, 9),
        StatusMessage("OK", "ready"),
    ]
    assert parser.garbage_bytes == 0


def test_line_split_byte_by_byte_and_bare_lf() -> None:
    line = format_line("DICE,12,1,2,3").replace(b"\r\n", b"\n")
    out, _ = feed_all(*[bytes([b]) for b in line])
    assert out == [DiceMessage(12, (1, 2, 3))]


def test_lowercase_checksum_accepted() -> None:
    body = "DICE,1,2,3,4"
    out, _ = feed_all(f"${body}*{checksum(body):02x}\r\n".encode())
    assert out == [DiceMessage(1, (2, 3, 4))]


@pytest.mark.parametrize(
    ("raw", "kind", "detail"),
    [
        (b"$DICE,1,2,3,4\r\n", "framing", "no '*XX' checksum"),
        (b"$DICE,1,2,3,4*7\r\n", "framing", "no '*XX' checksum"),
        (b"$DICE,1,2,3,4*ZZ\r\n", "framing", "not protocol ASCII"),
        (b"$DI\xe9E,1*00\r\n", "framing", "not protocol ASCII"),
        (format_line("DICE,1,2,3"), "syntax", "needs 4 fields"),
        (format_line("DICE,x,2,3,4"), "syntax", "sequence number 'x'"),
        (format_line("DICE,70000,2,3,4"), "syntax", "0..65535"),
        (format_line("DICE,1,2,three,4"), "syntax", "die 2 value 'three'"),
        (format_line("HB,1"), "syntax", "HB needs 2 fields"),
        (format_line("STAT,bad code,x"), "syntax", "STAT needs a code"),
        (format_line("ROLL,1,2,3,4"), "unknown", "unknown sentence type 'ROLL'"),
    ],
)
def test_rejected_lines_say_why(raw: bytes, kind: str, detail: str) -> None:
    out, _ = feed_all(raw)
    assert len(out) == 1 and isinstance(out[0], LineError)
    assert out[0].kind == kind and detail in out[0].detail


def test_out_of_range_is_distinct_from_syntax() -> None:
    out, _ = feed_all(format_line("DICE,9,1,-1,7"))
    assert out == [DiceOutOfRange(9, (1, -1, 7))]


def test_overlong_line_resynchronises() -> None:
    out, parser = feed_all(b"$" + b"A" * (MAX_BODY + 20) + format_line("DICE,2,1,1,1"))
    assert isinstance(out[0], LineError) and out[0].kind == "framing"
    assert out[-1] == DiceMessage(2, (1, 1, 1))
    assert parser.garbage_bytes > MAX_BODY


def test_format_line_refuses_framing_characters() -> None:
    with pytest.raises(ValueError, match="not a valid line body"):
        format_line("DICE,1*2")
