"""The live run's heap freeze (monitor.pipeline.heap): held from the first run's start to the last
run's stop, garbage collected before freezing."""

from __future__ import annotations

import gc
import weakref

from monitor.pipeline import heap


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_heap_is_frozen_while_a_run_holds_it_and_thawed_by_the_last() -> None:
    assert gc.get_freeze_count() == 0
    garbage = _Cycle()
    gone = weakref.ref(garbage)
    del garbage  # a cycle: only the collector frees it, and it must not be frozen with the heap
    try:
        heap.freeze()
        frozen = gc.get_freeze_count()
        assert frozen > 0
        assert gone() is None  # collected, not frozen
        heap.freeze()  # a second table's run: already frozen, nothing collected again
        assert gc.get_freeze_count() == frozen
        heap.thaw()
        assert gc.get_freeze_count() == frozen  # one run still holds it
    finally:
        heap.thaw()
    assert gc.get_freeze_count() == 0
    heap.thaw()  # an unmatched thaw is harmless
    assert gc.get_freeze_count() == 0
