"""Waiting for a state instead of sleeping a fixed time."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], bool], timeout: float = 60.0, every: float = 0.05) -> bool:
    """True as soon as ``predicate()`` is; False once ``timeout`` seconds passed without it (a bound for a
    hung test, never a measurement)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return False
