"""The live process's heap kept out of the garbage collector's full passes.

A full (oldest generation) collection walks every object the process holds: the models' sessions,
the modules, the API, what earlier runs left. On this machine it took 50-290 ms, and one landing
during a deal held the live chain back a frame: a stub alert 655 ms instead of 366
(``bench-pipeline`` over the fault recordings, traced with ``gc.callbacks``). So a live run, once warm,
collects what is garbage and freezes the rest (``gc.freeze``): later passes walk only what it made
since. The last run to stop thaws it, so what those runs held can be collected again.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_holders = 0


def freeze() -> None:
    """A run warmed up: the heap so far is left out of later collections (until every run thawed)."""
    global _holders
    with _lock:
        if _holders == 0:
            gc.collect()  # garbage frozen would never be collected
            gc.freeze()
        _holders += 1


def thaw() -> None:
    """A run stopped; the last one returns the frozen heap to the collector."""
    global _holders
    with _lock:
        if _holders == 0:
            return
        _holders -= 1
        if _holders == 0:
            gc.unfreeze()
