"""The widened oracle gate: the fault set and clean rounds on every layout, dealt with every habit.

Each variation is a layout (the built-in table, a smaller one, another arrangement of seats and
pile slots: ``calibration/layouts/``) and a dealing habit (:mod:`monitor.render.rounds.habits`). On
each, the shipped Pai Gow scripts and ``clean`` random clean rounds are played into timelines, turned
into oracle detections (:mod:`monitor.lab.timeline_truth`: no render) and judged by the chain
(:func:`monitor.lab.scripted_check.check_rounds`) with the variation's table file. Per variation it
reports which scripted faults were alerted within 1 s of the truth, the false alerts per 100 clean
rounds, and every round that could not be judged, with the reason.
"""

from __future__ import annotations

import json
import multiprocessing as mp
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# layout name -> (layout file, table file), relative to the repository; None: the built-in table
LAYOUTS: dict[str, tuple[str | None, str | None]] = {
    "default": (None, None),
    "small": ("calibration/layouts/small-6ft.yaml", "calibration/layouts/small-6ft.table.yaml"),
    "crescent": ("calibration/layouts/crescent.yaml", "calibration/layouts/crescent.table.yaml"),
}
ON_TIME_S = 1.0  # issue 8: an alert within a second of the truth's
# event types a camera must see (the console's and the dice reader's are replayed as they come)
SEEN_TYPES = ("bet_placed", "bet_changed", "card_dealt", "piles_complete", "stub_counted",
              "exposed_card_replaced", "pile_delivered", "dead_hand_collected", "hand_set",
              "banker_hand_exposed", "banker_hand_set", "hand_opened", "payout")


@dataclass(frozen=True)
class Job:
    layout: str
    habit: str
    round: str  # a shipped script's name, or "clean:SEED" for a random clean round
    stride: int = 2


@dataclass
class RoundResult:
    layout: str
    habit: str
    round: str
    kind: str  # "fault" or "clean"
    judged: bool = True
    reason: str = ""  # why it could not be judged
    expected: list[str] = field(default_factory=list)
    raised: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    false: list[str] = field(default_factory=list)
    late: list[tuple[str, float]] = field(default_factory=list)  # (code, seconds off) beyond ON_TIME_S
    seen: str = ""  # camera event counts where the chain's differ from the truth's: "stub_counted 0/1"

    @property
    def on_time(self) -> bool:
        """A fault round: every expected alert raised within ON_TIME_S of the truth's."""
        return self.judged and not self.missed and not self.late

    def how(self) -> str:
        parts = []
        if self.missed:
            parts.append(f"missed {', '.join(self.missed)}")
        if self.late:
            parts.append("late " + ", ".join(f"{c} {d:+.2f} s" for c, d in self.late))
        if self.false:
            parts.append(f"also raised {', '.join(self.false)}")
        if self.seen:
            parts.append(f"seen {self.seen}")
        return "; ".join(parts)


def jobs_for(layouts: Iterable[str], habits: Iterable[str], scripts: list[str], clean: int, seed: int,
             stride: int = 2) -> list[Job]:
    """Round by round across every variation: a run cut short has judged each variation on the same
    rounds."""
    rounds = scripts + [f"clean:{seed + k}" for k in range(clean)]
    return [Job(lay, hab, r, stride) for r in rounds for lay in layouts for hab in habits]


def fault_scripts() -> list[str]:
    from monitor.render.rounds.script import shipped_scripts

    return [n for n in shipped_scripts() if n.startswith("paigow")]


def _room(layout: str) -> Any:
    from monitor.render.rounds.room import load_room

    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r}: unknown (known: {', '.join(LAYOUTS)})")
    lay, tab = LAYOUTS[layout]
    return load_room(str(REPO / lay) if lay else None, str(REPO / tab) if tab else None, f"layout {layout}")


def _script(name: str) -> tuple[Any, str]:
    from monitor.render.rounds.generate import random_script
    from monitor.render.rounds.script import load_script, shipped_scripts

    if name.startswith("clean:"):
        return random_script(int(name.removeprefix("clean:"))), f"{name}.yaml"
    return load_script(shipped_scripts()[name]), f"{name}.yaml"


def _seen(true_events: list[dict[str, Any]], events: list[Any]) -> str:
    truth = Counter(str(e["type"]) for e in true_events)
    got = Counter(str(e.type) for e in events)
    return ", ".join(f"{t} {got[t]}/{truth[t]}" for t in SEEN_TYPES if got[t] != truth[t])


def judge_job(job: Job) -> RoundResult:
    """One round of one variation, played, perceived by the oracle and judged (never raises)."""
    from monitor.lab.scripted_check import check_rounds
    from monitor.pipeline.extract import ExtractorSettings
    from monitor.pipeline.oracle import OracleOptions
    from monitor.render.rounds.habits import habit, habit_profiles, with_habits
    from monitor.render.rounds.play import judge, play_script

    kind = "clean" if job.round.startswith("clean:") or job.round == "paigow_clean" else "fault"
    res = RoundResult(job.layout, job.habit, job.round, kind)
    try:
        room = _room(job.layout)
        script, source = _script(job.round)
        script = with_habits(script, [job.habit])
        dealt, carried = habit_profiles([job.habit], room.profile)
        rnd = play_script(script, source, layout=room.layout, profile=dealt)
    except (ValueError, KeyError) as e:  # ScriptError, RoomError, a layout the play cannot use
        return replace(res, judged=False, reason=f"cannot be played: {e}")
    res.expected = list(script.expect_alerts)
    truth = judge(rnd.events, script, source, dealt)
    if not truth.ok:
        why = f"the script's fault does not hold here: the true events raise {truth.got or 'nothing'}"
        return replace(res, judged=False, reason=f"{why}, it expects {truth.expected}")
    try:
        cal = replace(room.table, profile=carried)
        room_habit = habit(job.habit)
        # a room without a console: rounds open and close from vision; the dice reader still reports
        settings = None if room_habit.console else ExtractorSettings(round_from_vision=True)
        oracle = OracleOptions(unseen=frozenset(room_habit.unseen)) if room_habit.unseen else None
        c = check_rounds([rnd], cal, job.round, stride=job.stride, profile=carried, settings=settings,
                         oracle=oracle, console=room_habit.console)
    except Exception as e:
        return replace(res, judged=False, reason=f"the chain failed: {type(e).__name__}: {e}")
    res.raised = list(c.got)
    res.missed = sorted((Counter(c.expected) - Counter(c.got)).elements())
    res.false = sorted((Counter(c.got) - Counter(c.expected)).elements())
    res.late = [(code, round(d, 2)) for code, d in c.timing if abs(d) > ON_TIME_S]
    res.seen = _seen(rnd.events, c.events)
    return res


def run_jobs(jobs: list[Job], workers: int = 2,
             done: Callable[[RoundResult], None] | None = None) -> list[RoundResult]:
    """Every job, ``workers`` processes side by side (spawned: the chain's runtimes hold threads)."""
    if workers <= 1:
        out = []
        for j in jobs:
            out.append(judge_job(j))
            if done is not None:
                done(out[-1])
        return out
    results: list[RoundResult] = []
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
        for r in pool.map(judge_job, jobs, chunksize=1):
            results.append(r)
            if done is not None:
                done(r)
    return results


@dataclass
class VariationRow:
    layout: str
    habit: str
    faults: int = 0  # fault rounds judged
    on_time: int = 0
    failed: list[str] = field(default_factory=list)  # "script: how"
    clean: int = 0  # clean rounds judged
    false_alerts: int = 0
    false_codes: Counter[str] = field(default_factory=Counter)
    not_judged: list[str] = field(default_factory=list)  # "round: reason"

    @property
    def per_100(self) -> float:
        return 100.0 * self.false_alerts / self.clean if self.clean else 0.0


def summarise(results: list[RoundResult]) -> list[VariationRow]:
    rows: dict[tuple[str, str], VariationRow] = {}
    for r in results:
        row = rows.setdefault((r.layout, r.habit), VariationRow(r.layout, r.habit))
        if not r.judged:
            row.not_judged.append(f"{r.round}: {r.reason}")
        elif r.kind == "fault":
            row.faults += 1
            row.on_time += r.on_time
            if not r.on_time or r.false:
                row.failed.append(f"{r.round}: {r.how()}")
        else:
            row.clean += 1
            row.false_alerts += len(r.raised)
            row.false_codes.update(r.raised)
    return list(rows.values())


def markdown(rows: list[VariationRow]) -> str:
    """The results table for docs/benchmarks.md, and under it what failed and how."""
    lines = ["| layout | habit | faults alerted within 1 s | false alerts / 100 clean rounds | not judged |",
             "| --- | --- | --- | --- | --- |"]
    for w in rows:
        codes = ", ".join(f"{c} x{n}" for c, n in w.false_codes.most_common())
        false = f"{w.per_100:.0f} ({w.false_alerts} over {w.clean}{': ' + codes if codes else ''})"
        lines.append(f"| {w.layout} | {w.habit} | {w.on_time}/{w.faults} | {false} | {len(w.not_judged)} |")
    detail = []
    for w in rows:
        for f in w.failed:
            detail.append(f"- {w.layout} / {w.habit}: {f}")
        for n in w.not_judged:
            detail.append(f"- {w.layout} / {w.habit}: not judged: {n}")
    return "\n".join(lines + (["", *detail] if detail else [])) + "\n"


def results_json(results: list[RoundResult]) -> list[dict[str, Any]]:
    return [{**asdict(r), "on_time": r.on_time} for r in results]


def result_line(r: RoundResult, stride: int) -> str:
    """One round as a line of ``rounds.jsonl`` (written as each round ends, so a run can resume)."""
    return json.dumps({**asdict(r), "stride": stride}, separators=(",", ":")) + "\n"


def read_results(path: Path) -> dict[Job, RoundResult]:
    """The rounds a run already judged (a line cut off by a stopped run is dropped)."""
    out: dict[Job, RoundResult] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            stride = int(row.pop("stride"))
            row["late"] = [(str(c), float(d)) for c, d in row["late"]]
            r = RoundResult(**row)
        except (ValueError, KeyError, TypeError):
            continue
        out[Job(r.layout, r.habit, r.round, stride)] = r
    return out
