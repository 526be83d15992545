"""A dice reader simulator that speaks hardware/PROTOCOL.md on a real pseudo-terminal.

The product then runs end to end with no hardware: ``DiceReader`` opens the
simulator's device path exactly as it would open ``/dev/ttyUSB0``. Faults can
be injected (garbage bytes, bad checksums, out-of-range values, lost lines,
silence, unplug and replug), which is how the reader's tests exercise it.

With ``link`` the simulator keeps a symlink to its current pty, so that after an
``unplug()``/``replug()`` (a new pty, often with a new number) the reader finds
it again by the same path, like ``/dev/serial/by-id/...`` for a real adapter.
"""

from __future__ import annotations

import errno
import os
import random
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

from monitor.sources.dice_protocol import SEQ_MODULUS, checksum, format_line

FIRMWARE = "sim-1.0"


class DiceSimulator:
    def __init__(
        self,
        link: str | Path | None = None,
        heartbeat_s: float = 1.0,
        roll_every_s: float | None = None,
        seed: int | None = None,
        device_id: str = "SIM0001",
    ) -> None:
        self.link = Path(link) if link is not None else None
        self.heartbeat_s = heartbeat_s
        self.roll_every_s = roll_every_s
        self.device_id = device_id
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_name = ""
        self._seq = 0
        self._last_sent: int | None = None
        self._booted_at = time.monotonic()
        self._silent = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._script: list[tuple[float, tuple[int, int, int]]] = []
        self._template: list[tuple[float, tuple[int, int, int]]] = []
        self._repeat: float | None = None
        self._passes = 0
        self._clock: Callable[[], float] | None = None
        self.unsent_bytes = 0  # dropped because nobody read the port and its buffer filled

    @property
    def device_path(self) -> str:
        """What a reader should open: the stable link if there is one, else the pty's own name."""
        return str(self.link) if self.link is not None else self._slave_name

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def start(self) -> DiceSimulator:
        self._plug()
        self._thread = threading.Thread(target=self._tick, name="dice-sim", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self.unplug()

    def __enter__(self) -> DiceSimulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the device's normal speech ------------------------------------------------------

    def roll(
        self, values: tuple[int, int, int] | None = None, bad_checksum: bool = False
    ) -> tuple[int, tuple[int, int, int]]:
        """Send one settled roll with the next sequence number; returns (seq, values).

        Values are sent as given, so a faulty sensor (0 or 7) can be simulated too.
        """
        dice = values or (self._rng.randint(1, 6), self._rng.randint(1, 6), self._rng.randint(1, 6))
        with self._lock:
            seq = self._seq
            self._seq = (self._seq + 1) % SEQ_MODULUS
            self._last_sent = seq
            self.send_line(f"DICE,{seq},{dice[0]},{dice[1]},{dice[2]}", bad_checksum=bad_checksum)
        return seq, dice

    def play(
        self,
        script: list[tuple[float, tuple[int, int, int]]],
        clock: Callable[[], float],
        repeat_every_s: float | None = None,
    ) -> None:
        """Roll each (time, dice) of ``script`` when ``clock()`` reaches its time.

        With the camera source's ``media_time_now`` as the clock, a scripted recording and its
        dice stay in step however fast or slow the video plays (the demo). ``repeat_every_s``
        (the recording's length) plays the script again on each loop of a looping video, whose
        media time keeps counting up.
        """
        if repeat_every_s is not None and repeat_every_s <= 0:
            raise ValueError(f"repeat_every_s must be positive, got {repeat_every_s}")
        with self._lock:
            self._script = sorted(script, key=lambda item: item[0])
            self._template = list(self._script)
            self._repeat = repeat_every_s
            self._passes = 0
            self._clock = clock

    @property
    def script_left(self) -> int:
        return len(self._script)

    def heartbeat(self) -> None:
        last = "" if self._last_sent is None else str(self._last_sent)
        self.send_line(f"HB,{last},{int(time.monotonic() - self._booted_at)}")

    def status(self, code: str, text: str) -> None:
        self.send_line(f"STAT,{code},{text}")

    # -- fault injection ---------------------------------------------------------------

    def send_line(self, body: str, bad_checksum: bool = False) -> None:
        if bad_checksum:
            self.send_raw(f"${body}*{checksum(body) ^ 0x5A:02X}\r\n".encode("ascii"))
        else:
            self.send_raw(format_line(body))

    def send_raw(self, data: bytes) -> None:
        with self._lock:
            if self._master is None:
                return
            try:
                os.write(self._master, data)
            except BlockingIOError:
                self.unsent_bytes += len(data)
            except OSError as exc:
                if exc.errno not in (errno.EIO, errno.EAGAIN):
                    raise
                self.unsent_bytes += len(data)

    def lose_rolls(self, n: int) -> None:
        """Rolls that happen but whose lines never arrive (the heartbeat still names the last one)."""
        with self._lock:
            self._seq = (self._seq + n) % SEQ_MODULUS
            self._last_sent = (self._seq - 1) % SEQ_MODULUS

    def silence(self, silent: bool = True) -> None:
        """A hung device: the port stays open but nothing is sent."""
        self._silent = silent

    def unplug(self) -> None:
        """Pull the cable: the pty goes away and the reader's port fails."""
        with self._lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None
            if self.link is not None and self.link.is_symlink():
                self.link.unlink()

    def replug(self) -> None:
        """Plug it back in: a fresh pty, and the device boots again (HELLO, numbering from 0)."""
        self.unplug()
        self._plug()

    # -- internals ----------------------------------------------------------------------

    def _plug(self) -> None:
        with self._lock:
            master, slave = os.openpty()
            tty.setraw(slave)  # bytes exactly as sent: no echo, no CR/LF translation
            os.set_blocking(master, False)  # a reader that is not reading must not block the device
            self._master, self._slave = master, slave
            self._slave_name = os.ttyname(slave)
            if self.link is not None:
                tmp = self.link.with_name(self.link.name + ".tmp")
                if tmp.is_symlink() or tmp.exists():
                    tmp.unlink()
                tmp.symlink_to(self._slave_name)
                os.replace(tmp, self.link)
            self._seq = 0
            self._last_sent = None
            self._booted_at = time.monotonic()
            self.send_line(f"HELLO,{FIRMWARE},{self.device_id}")

    def _tick(self) -> None:
        next_beat = time.monotonic()
        next_roll = time.monotonic() + (self.roll_every_s or 0)
        while not self._stop.is_set():
            now = time.monotonic()
            if not self._silent and self.plugged:
                if now >= next_beat:
                    self.heartbeat()
                    next_beat = now + self.heartbeat_s
                if self.roll_every_s and now >= next_roll:
                    self.roll()
                    next_roll = now + self.roll_every_s
                self._play_due()
            self._stop.wait(0.05)

    def _play_due(self) -> None:
        with self._lock:
            if not self._script or self._clock is None:
                return
            now = self._clock()
            while self._script and self._script[0][0] <= now:
                _, dice = self._script.pop(0)
                self.roll(dice)
                if not self._script and self._repeat is not None and self._template:
                    self._passes += 1
                    shift = self._passes * self._repeat
                    self._script = [(t + shift, d) for t, d in self._template]


def load_script(path: str | Path) -> list[tuple[float, tuple[int, int, int]]]:
    """A dice script: YAML or JSON list of ``{t: seconds, dice: [d1, d2, d3]}``.

    Values outside 1..6 are allowed on purpose (to play a faulty reader); the shape is checked.
    """
    import yaml

    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"dice script {p}: cannot read it: {exc}") from None
    if not isinstance(data, list):
        raise ValueError(f"dice script {p}: expected a list of {{t: seconds, dice: [d1, d2, d3]}}")
    out = []
    for i, item in enumerate(data):
        ok = (
            isinstance(item, dict)
            and isinstance(item.get("t"), int | float)
            and item["t"] >= 0
            and isinstance(item.get("dice"), list)
            and len(item["dice"]) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item["dice"])
        )
        if not ok:
            want = "{t: seconds >= 0, dice: [3 integers]}"
            raise ValueError(f"dice script {p}: item {i} must be {want}, got {item!r}")
        d = item["dice"]
        out.append((float(item["t"]), (d[0], d[1], d[2])))
    return out


def script_from_events(path: str | Path) -> list[tuple[float, tuple[int, int, int]]]:
    """The dice of every ``dice_rolled`` event in an events JSONL file (e.g. a rendered recording's
    true events), at its media time: the simulator then rolls what the video shows, when it shows it."""
    from monitor.events.jsonl import RejectedLine, read_events
    from monitor.events.schema import DiceRolled

    out = []
    for item in read_events(path):
        if isinstance(item, RejectedLine):
            raise ValueError(f"{item.location}: {item.field}: {item.problem}")
        if isinstance(item, DiceRolled) and len(item.values) == 3:
            v = item.values
            out.append((float(item.media_time), (v[0], v[1], v[2])))
    return out
