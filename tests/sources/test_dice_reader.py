"""The dice reader against the simulator on a real pseudo-terminal: no mocks between them."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from monitor.sources.backoff import Backoff
from monitor.sources.dice_events import (
    BadLine,
    DeviceReported,
    DiceEvent,
    InvalidDice,
    ReaderConnected,
    ReaderLost,
    ReaderRecovered,
    SequenceGap,
    SequenceRepeat,
    SequenceRestarted,
)
from monitor.sources.dice_reader import DiceReader
from monitor.sources.dice_simulator import DiceSimulator
from monitor.sources.state import SourceState, SourceStateError


class Events:
    def __init__(self) -> None:
        self.items: list[DiceEvent] = []
        self.cond = threading.Condition()

    def __call__(self, event: DiceEvent) -> None:
        with self.cond:
            self.items.append(event)
            self.cond.notify_all()

    def of(self, kind: type) -> list:
        with self.cond:
            return [e for e in self.items if isinstance(e, kind)]

    def wait_for(self, kind: type, count: int = 1, timeout: float = 10.0) -> list:
        with self.cond:
            ok = self.cond.wait_for(lambda: len([e for e in self.items if isinstance(e, kind)]) >= count,
                                    timeout)
        assert ok, f"no {kind.__name__} within {timeout} s; got {[type(e).__name__ for e in self.items]}"
        return self.of(kind)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[DiceSimulator, DiceReader, Events]]:
    sim = DiceSimulator(link=tmp_path / "dice", heartbeat_s=0.1, seed=1).start()
    events = Events()
    reader = DiceReader(
        sim.device_path,
        heartbeat_timeout_s=2.0,  # generous: a loaded CI machine may stall the simulator briefly
        backoff=Backoff(initial_s=0.02, factor=2.0, maximum_s=0.1),
        handlers=[events],
        poll_s=0.02,
    ).start()
    events.wait_for(ReaderConnected)
    yield sim, reader, events
    reader.stop()
    sim.stop()


def test_good_readings(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, events = rig
    assert reader.state is SourceState.RUNNING
    sim.roll((3, 4, 5))
    sim.roll((6, 6, 1))
    first, second = reader.get(timeout=5), reader.get(timeout=5)
    assert first is not None and second is not None
    assert (first.seq, first.values, first.total) == (0, (3, 4, 5), 12)
    assert (second.seq, second.values) == (1, (6, 6, 1))
    assert first.wall_time.tzinfo is not None
    m = reader.metrics()
    assert m.readings == 2 and m.bad_lines == 0 and m.gaps == 0
    assert not [e for e in events.items if e.is_fault]


def test_garbage_bytes_are_skipped_and_counted(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, _ = rig
    sim.send_raw(b"\x00\xff\xfeline noise")
    sim.roll((2, 2, 2))
    reading = reader.get(timeout=5)
    assert reading is not None and reading.values == (2, 2, 2)
    assert reader.metrics().garbage_bytes == 13


def test_bad_checksum_is_rejected(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, events = rig
    sim.send_line("DICE,0,1,2,3", bad_checksum=True)
    bad = events.wait_for(BadLine)
    assert bad[0].kind == "checksum" and b"DICE,0,1,2,3" in bad[0].raw and bad[0].is_fault
    sim.roll((1, 2, 3))
    reading = reader.get(timeout=5)
    assert reading is not None and reading.seq == 0  # the corrupt line was not taken as a roll


def test_truncated_line_is_a_framing_error(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, events = rig
    sim.send_raw(b"$DICE,4,1,")  # cut off mid-line, then the next line starts
    sim.roll((5, 5, 6))
    assert events.wait_for(BadLine)[0].kind == "framing"
    reading = reader.get(timeout=5)
    assert reading is not None and reading.values == (5, 5, 6)


def test_values_out_of_range(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, events = rig
    sim.send_line("DICE,0,0,7,3")
    invalid = events.wait_for(InvalidDice)
    assert invalid[0].values == (0, 7, 3) and invalid[0].is_fault
    assert "out of range" in invalid[0].message
    assert reader.get(timeout=0.2) is None
    sim.status("NOREAD", "dice stacked")
    report = events.wait_for(DeviceReported)[0]
    assert report.code == "NOREAD" and report.is_fault


def test_sequence_gaps_and_repeats(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, events = rig
    sim.roll((1, 1, 1))
    sim.lose_rolls(2)
    sim.roll((2, 2, 2))
    sim.send_line("DICE,3,2,2,2")  # the same line sent again
    gap = events.wait_for(SequenceGap)[0]
    assert (gap.expected, gap.got, gap.missing, gap.seen_in) == (1, 3, 2, "DICE")
    events.wait_for(SequenceRepeat)
    readings = [reader.get(timeout=5), reader.get(timeout=0.3)]
    assert [r.seq for r in readings if r is not None] == [0, 3]
    assert reader.metrics().missing_readings == 2


def test_heartbeat_reveals_a_lost_roll(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, events = rig
    sim.roll((4, 4, 4))
    assert reader.get(timeout=5) is not None
    sim.lose_rolls(1)  # the roll's line is lost, the next heartbeat names it
    gap = events.wait_for(SequenceGap)[0]
    assert (gap.seen_in, gap.missing, gap.got) == ("HB", 1, 1)


def test_unplug_and_replug(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, events = rig
    sim.roll((1, 2, 3))
    assert reader.get(timeout=5) is not None
    sim.unplug()
    lost = events.wait_for(ReaderLost)[0]
    assert lost.is_fault and "lost" in lost.message
    assert reader.state is SourceState.RECONNECTING
    time.sleep(0.2)  # a few reopen attempts fail while the cable is out
    sim.replug()
    recovered = events.wait_for(ReaderRecovered)[0]
    assert recovered.attempts >= 1 and not recovered.is_fault
    assert reader.state is SourceState.RUNNING
    sim.roll((6, 5, 4))
    reading = reader.get(timeout=5)
    assert reading is not None and reading.values == (6, 5, 4) and reading.seq == 0
    # the device rebooted on replug; the outage was already reported, so no second fault for that
    assert not events.of(SequenceRestarted)
    assert reader.metrics().reconnects == 1


def test_silent_device_is_lost_then_recovers(rig: tuple[DiceSimulator, DiceReader, Events]) -> None:
    sim, reader, events = rig
    sim.silence(True)
    lost = events.wait_for(ReaderLost)[0]
    assert "no heartbeat" in lost.reason
    sim.silence(False)
    events.wait_for(ReaderRecovered)
    assert reader.state is SourceState.RUNNING


def test_reader_started_before_device_exists(tmp_path: Path) -> None:
    events = Events()
    link = tmp_path / "later"
    reader = DiceReader(str(link), backoff=Backoff(initial_s=0.02, maximum_s=0.05), handlers=[events],
                        poll_s=0.02)
    with pytest.raises(SourceStateError, match="not_started"):
        reader.get(timeout=0)
    reader.start()
    try:
        lost = events.wait_for(ReaderLost)[0]
        assert "cannot open" in lost.reason and str(link) in lost.reason
        with DiceSimulator(link=link, heartbeat_s=0.1) as sim:
            events.wait_for(ReaderRecovered)
            sim.roll((3, 3, 3))
            reading = reader.get(timeout=5)
            assert reading is not None and reading.values == (3, 3, 3)
    finally:
        reader.stop()
    assert reader.state is SourceState.ENDED


Rig = tuple[DiceSimulator, DiceReader, Events]


def test_scripted_rolls_follow_the_clock(rig: Rig, tmp_path: Path) -> None:
    from monitor.sources.dice_simulator import load_script

    sim, reader, _ = rig
    script_file = tmp_path / "dice.yaml"
    script_file.write_text(
        "- {t: 2.0, dice: [6, 6, 6]}\n- {t: 1.0, dice: [1, 2, 3]}\n- {t: 9.0, dice: [4, 4, 4]}\n"
    )
    clock = [0.0]
    sim.play(load_script(script_file), clock=lambda: clock[0])
    assert reader.get(timeout=0.3) is None  # media time 0: nothing due yet
    clock[0] = 2.5
    got = [reader.get(timeout=5), reader.get(timeout=5)]
    assert [r.values for r in got if r is not None] == [(1, 2, 3), (6, 6, 6)]
    assert sim.script_left == 1


def test_bad_dice_script_is_named(tmp_path: Path) -> None:
    from monitor.sources.dice_simulator import load_script

    bad = tmp_path / "bad.yaml"
    bad.write_text("- {t: 1.0, dice: [1, 2]}\n")
    with pytest.raises(ValueError, match=r"bad.yaml: item 0 must be"):
        load_script(bad)


def test_script_from_a_recordings_events(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from monitor.events.jsonl import write_events
    from monitor.events.schema import DiceRolled, RoundStarted, Source
    from monitor.sources.dice_simulator import script_from_events

    common = {"table_id": "t1", "wall_time": datetime.now(UTC), "source": Source.FILE}
    events = [
        RoundStarted(seq=0, media_time=0.0, **common),  # type: ignore[call-arg]
        DiceRolled(seq=1, media_time=7.25, values=[3, 4, 6], **common),
    ]
    path = tmp_path / "events.jsonl"
    with path.open("w") as fh:
        write_events(events, fh)
    assert script_from_events(path) == [(7.25, (3, 4, 6))]
    path.write_text('{"type": "dice_rolled"}\n')
    with pytest.raises(ValueError, match=r"events\.jsonl line 1"):
        script_from_events(path)


def test_script_repeats_with_a_looping_video(rig: Rig) -> None:
    sim, reader, _ = rig
    clock = [0.0]
    sim.play([(1.0, (2, 2, 3))], clock=lambda: clock[0], repeat_every_s=10.0)
    clock[0] = 1.5
    first = reader.get(timeout=5)
    clock[0] = 11.2  # second pass of a 10 s video
    second = reader.get(timeout=5)
    assert first is not None and second is not None
    assert (first.values, second.values, second.seq) == ((2, 2, 3), (2, 2, 3), first.seq + 1)
    with pytest.raises(ValueError, match="repeat_every_s must be positive"):
        sim.play([], clock=lambda: 0.0, repeat_every_s=0)
