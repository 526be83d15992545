"""Sequence-number bookkeeping for dice readings: gaps (lost lines) and repeats (resent lines).

>>> t = SequenceTracker()
>>> t.on_roll(5), t.on_roll(6), t.on_roll(6), t.on_roll(9)
('new', 'new', 'repeat', ('gap', 7, 2))
>>> t.on_heartbeat(11)  # the device says it sent roll 11: rolls 10 and 11 never arrived
('gap', 10, 2)
>>> t.on_roll(3)  # far behind: the device restarted without us seeing its HELLO
'back'
>>> t.on_heartbeat(None)  # "no roll since I booted": another restart
'back'
>>> u = SequenceTracker()
>>> u.on_roll(65535), u.on_roll(0)  # numbering wraps after 65535
('new', 'new')
"""

from __future__ import annotations

from typing import Literal

from monitor.sources.dice_protocol import SEQ_MODULUS

Verdict = Literal["new", "repeat", "back"] | tuple[Literal["gap"], int, int]
# a step this large "forward" is really the numbering going backwards (a restart whose HELLO was lost)
BACKWARDS = SEQ_MODULUS // 2


class SequenceTracker:
    def __init__(self) -> None:
        self.last: int | None = None

    def reset(self) -> None:
        """The device restarted (HELLO): its numbering starts again."""
        self.last = None

    def on_roll(self, seq: int) -> Verdict:
        """'new'; 'repeat' (same seq again: ignore the roll); 'back' (numbering restarted: accept it);
        or ('gap', expected, missing) and accept it."""
        if self.last is None:
            self.last = seq
            return "new"
        step = (seq - self.last) % SEQ_MODULUS
        if step == 0:
            return "repeat"
        expected = (self.last + 1) % SEQ_MODULUS
        self.last = seq
        if step > BACKWARDS:
            return "back"
        if step == 1:
            return "new"
        return ("gap", expected, step - 1)

    def on_heartbeat(self, last_seq: int | None) -> tuple[Literal["gap"], int, int] | Literal["back"] | None:
        """A heartbeat names the device's last roll (None: none since it booted).

        If we never got that roll, those rolls were lost: ('gap', expected, missing).
        If the device is behind us, it restarted: 'back' (and its count is adopted).
        """
        if self.last is None:
            self.last = last_seq  # first contact mid-session: adopt the device's count
            return None
        if last_seq is None:
            self.last = None
            return "back"
        step = (last_seq - self.last) % SEQ_MODULUS
        if step == 0:
            return None
        self.last, previous = last_seq, self.last
        if step > BACKWARDS:
            return "back"
        return ("gap", (previous + 1) % SEQ_MODULUS, step)
