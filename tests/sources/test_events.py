"""Source and dice events become contract events: rolls, and one device_lost/recovered per outage."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from monitor.events.schema import Device, DeviceLost, DeviceRecovered, DiceRolled, Source
from monitor.sources.backoff import Backoff
from monitor.sources.dice_events import DiceEvent, InvalidDice, ReaderFailed, ReaderLost, ReaderRecovered
from monitor.sources.dice_events import DiceRolled as DiceReading
from monitor.sources.dice_reader import DiceReader
from monitor.sources.dice_simulator import DiceSimulator
from monitor.sources.state import SourceState
from monitor.sources.status import SourceFailed, SourceLost, SourceRecovered, VideoBroken
from monitor.sources.to_events import SourceEventMapper


def test_rolls_and_one_event_per_outage() -> None:
    mapper = SourceEventMapper("t1", media_now=lambda: 12.5)
    rolled = mapper.from_dice(DiceReading(port="/dev/x", seq=4, values=(2, 5, 6)))
    assert isinstance(rolled, DiceRolled) and rolled.values == [2, 5, 6]
    assert rolled.media_time == 12.5 and rolled.source is Source.DICE_READER and rolled.table_id == "t1"
    impossible = mapper.from_dice(InvalidDice(port="/dev/x", seq=5, values=(0, 7, 300)))
    assert isinstance(impossible, DiceRolled) and impossible.values == [0, 7, 100]
    lost = mapper.from_dice(ReaderLost(port="/dev/x", reason="serial port error"))
    assert isinstance(lost, DeviceLost) and lost.device is Device.DICE_READER and "serial" in lost.detail
    assert mapper.from_dice(ReaderFailed(port="/dev/x", reason="gave up")) is None  # same outage
    back = mapper.from_dice(ReaderRecovered(port="/dev/x", downtime_s=3.0, attempts=2))
    assert isinstance(back, DeviceRecovered)
    assert mapper.from_dice(ReaderRecovered(port="/dev/x", downtime_s=1.0, attempts=1)) is None
    assert [e.seq for e in (rolled, impossible, lost, back)] == [0, 1, 2, 3]


def test_camera_statuses() -> None:
    mapper = SourceEventMapper("t1", media_now=lambda: 1.0)
    lost = mapper.from_source(SourceLost(source_id="usb:0", reason="no frame", last_frame_index=9))
    assert isinstance(lost, DeviceLost) and lost.device is Device.CAMERA and lost.name == "usb:0"
    assert mapper.from_source(SourceFailed(source_id="usb:0", reason="gave up")) is None
    assert isinstance(mapper.from_source(SourceRecovered(source_id="usb:0", attempts=1, downtime_s=2)),
                      DeviceRecovered)
    broken = mapper.from_source(
        VideoBroken(source_id="a.mp4", path="a.mp4", frame_index=35, expected_frames=60, detail="x")
    )
    assert isinstance(broken, DeviceLost) and "frame 35 of 60" in broken.detail


def test_live_dice_reader_to_events(tmp_path: Path) -> None:
    events: list[object] = []
    got = threading.Event()
    mapper = SourceEventMapper("t1", media_now=lambda: 0.0)

    def handle(event: DiceEvent) -> None:
        mapped = mapper.from_dice(event)
        if mapped is not None:
            events.append(mapped)
            got.set()

    with DiceSimulator(link=tmp_path / "dice", heartbeat_s=0.1) as sim:
        reader = DiceReader(sim.device_path, backoff=Backoff(0.02, 2, 0.1), handlers=[handle], poll_s=0.02)
        with reader:
            deadline = time.monotonic() + 10
            while reader.state is not SourceState.RUNNING and time.monotonic() < deadline:
                time.sleep(0.01)  # opening the port flushes it: roll once the reader listens
            sim.roll((1, 3, 5))
            assert reader.get(timeout=5) is not None
            assert got.wait(5)
    assert isinstance(events[0], DiceRolled) and events[0].values == [1, 3, 5]
