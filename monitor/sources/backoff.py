"""Exponential backoff for reconnecting cameras and serial readers."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delays ``initial * factor**n`` capped at ``maximum``; ``max_attempts=None`` retries forever.

    >>> [Backoff(initial_s=0.5, factor=2.0, maximum_s=3.0).delay(n) for n in range(5)]
    [0.5, 1.0, 2.0, 3.0, 3.0]
    """

    initial_s: float = 0.5
    factor: float = 2.0
    maximum_s: float = 10.0
    max_attempts: int | None = None

    def __post_init__(self) -> None:
        if self.initial_s < 0 or self.maximum_s < self.initial_s or self.factor < 1.0:
            raise ValueError(
                f"backoff needs 0 <= initial ({self.initial_s}) <= maximum ({self.maximum_s}) "
                f"and factor >= 1 ({self.factor})"
            )
        if self.max_attempts is not None and self.max_attempts < 1:
            raise ValueError(f"backoff max_attempts must be at least 1 or None, got {self.max_attempts}")

    def delay(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        return float(min(self.maximum_s, self.initial_s * self.factor**attempt))

    def exhausted(self, attempts: int) -> bool:
        return self.max_attempts is not None and attempts >= self.max_attempts
