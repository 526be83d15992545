"""The reorder buffer: sequence order restored, resends recognised, gaps given up, memory bounded."""

from __future__ import annotations

from monitor.events.schema import Event, parse_event
from monitor.procedure.reorder import Problem, Reorderer, SequenceProblem


def ev(seq: int, n: int = 4) -> Event:
    return parse_event({"type": "stub_counted", "table_id": "T", "seq": seq, "media_time": seq,
                        "wall_time": "2026-01-01T00:00:00Z", "source": "file", "n": n})


def push_all(r: Reorderer, seqs: list[int]) -> tuple[list[int], list[SequenceProblem]]:
    out: list[Event] = []
    problems: list[SequenceProblem] = []
    for s in seqs:
        r.push(ev(s), out, problems)
    return [e.seq for e in out], problems


def test_in_order_stream_is_released_at_once() -> None:
    released, problems = push_all(Reorderer(window=4), [0, 1, 2, 3])
    assert released == [0, 1, 2, 3] and problems == []


def test_out_of_order_is_held_until_the_gap_fills() -> None:
    r = Reorderer(window=4)
    released, _ = push_all(r, [0, 2, 3])
    assert released == [0] and r.held == 2
    released, _ = push_all(r, [1])
    assert released == [1, 2, 3] and r.held == 0


def test_gap_is_given_up_when_the_window_overflows() -> None:
    gaps: list[int] = []
    r = Reorderer(window=2, on_gap=lambda: gaps.append(1))
    released, _ = push_all(r, [0, 2, 3, 4])
    assert released == [0, 2, 3, 4] and r.gaps == 1 and gaps == [1]
    _, problems = push_all(r, [1])
    assert [p.kind for p in problems] == [Problem.LATE]


def test_resend_is_silent_and_conflict_is_reported() -> None:
    r = Reorderer()
    out: list[Event] = []
    problems: list[SequenceProblem] = []
    r.push(ev(0), out, problems)
    r.push(ev(0), out, problems)
    assert [e.seq for e in out] == [0] and problems == []
    r.push(ev(0, n=5), out, problems)
    assert [p.kind for p in problems] == [Problem.CONFLICT]


def test_joining_a_running_stream_starts_from_the_lowest_seq_seen() -> None:
    r = Reorderer(window=3)
    released, problems = push_all(r, [102, 100, 101, 103])
    assert released == [100, 101, 102, 103] and problems == [] and r.gaps == 0


def test_skipped_seq_is_not_waited_for() -> None:
    r = Reorderer(window=64)
    out: list[Event] = []
    problems: list[SequenceProblem] = []
    for s in (0, 2, 3):
        r.push(ev(s), out, problems)
    r.skip(1, out)
    assert [e.seq for e in out] == [0, 2, 3] and r.gaps == 0


def test_released_memory_is_bounded() -> None:
    r = Reorderer(memory=10)
    push_all(r, list(range(1000)))
    assert 10 <= r.remembered <= 20
