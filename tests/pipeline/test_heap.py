"""The live run's heap freeze (monitor.pipeline.heap): held from the first run's start to the last
run's stop, garbage collected before freezing."""

from __future__ import annotations

import gc
import weakref

import pytest

from monitor.pipeline import heap


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_heap_is_frozen_while_a_run_holds_it_and_thawed_by_the_last(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Counted calls, not only the frozen count: an object another thread frees (a worker of an earlier
    # test) leaves the frozen generation, so the count can fall by a few between two looks (seen in CI:
    # 1,008,543 -> 1,008,541), while a second freeze or an early thaw is a call.
    calls = {"collect": 0, "freeze": 0, "unfreeze": 0}
    for name in calls:
        real = getattr(gc, name)

        def counted(*args: object, _real=real, _name=name) -> object:
            calls[_name] += 1
            return _real(*args)

        monkeypatch.setattr(gc, name, counted)
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
        assert calls == {"collect": 1, "freeze": 1, "unfreeze": 0}
        assert 0 < gc.get_freeze_count() <= frozen
        heap.thaw()
        assert calls["unfreeze"] == 0 and gc.get_freeze_count() > 0  # one run still holds it
    finally:
        heap.thaw()
    assert calls["unfreeze"] == 1
    assert gc.get_freeze_count() == 0
    heap.thaw()  # an unmatched thaw is harmless
    assert calls["unfreeze"] == 1
    assert gc.get_freeze_count() == 0
