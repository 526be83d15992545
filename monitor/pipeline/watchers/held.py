"""A reading that must hold a while before it is believed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Held:
    """A value and since when (time, frame) it has read so; ``held`` once it has for long enough."""

    value: Any = None
    since: float = 0.0
    since_frame: int = 0

    def update(self, value: Any, now: float, frame: int = 0) -> None:
        if value != self.value:
            self.value, self.since, self.since_frame = value, now, frame

    def held(self, now: float, for_s: float) -> bool:
        return now - self.since >= for_s - 1e-9
