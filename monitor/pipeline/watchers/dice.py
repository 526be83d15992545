"""Dice: three dice resting in the dice area, read alike for ``stable_s``: ``dice_rolled`` from
video, a cross-check of the dice reader (seed 000 rule 8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from monitor.events.schema import EventBase
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.held import Held
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.view import FrameView

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings


class DiceWatcher:
    def __init__(self, settings: ExtractorSettings, rest: RestWatcher, out: Outbox) -> None:
        self.s, self.rest, self.out = settings, rest, out
        self.dice = Held()
        self.reported: tuple[int, ...] | None = None

    def reset(self) -> None:
        """A new round or a misdeal: the same throw read again is a new roll."""
        self.dice, self.reported = Held(), None

    def frame(self, view: FrameView) -> list[EventBase]:
        now = view.media_time
        dice = sorted((o for o in view.present.values() if o.kind == "die" and o.zone == "dice"),
                      key=lambda o: o.x)
        if not dice or any(not self.rest.at_rest(o) or not 1 <= o.value <= 6 for o in dice):
            self.dice.update(None, now)
            return self.out.take()
        values = tuple(o.value for o in dice)
        self.dice.update(values, now)
        if len(values) == 3 and self.dice.held(now, self.s.stable_s) and values != self.reported:
            self.reported = values
            self.out.emit("dice_rolled", min(o.confidence for o in dice), values=list(values))
        return self.out.take()
