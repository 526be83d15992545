"""Many recordings fanned out over a local Dask cluster (2 worker processes) give the same session as
the single-process review, merged into one report with one timeline."""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

import pytest

from monitor.pipeline.oracle import read_truth
from monitor.render.rounds.sample import sample_recording_dir
from monitor.review.session import ReviewOptions, run_review
from tests.support.paths import TABLE_FILE

pytest.importorskip("dask.distributed")
SAMPLE = sample_recording_dir()
SECONDS = 6.0

pytestmark = pytest.mark.skipif(not (SAMPLE / "video.mp4").exists(), reason="sample recording not shipped")


@functools.cache
def short_truth() -> str:
    rows = []
    for row in read_truth(SAMPLE / "truth.jsonl.gz"):
        if row["time"] > SECONDS + 1:
            break
        rows.append(json.dumps(row) + "\n")
    return "".join(rows)


def short_recording(folder: Path) -> Path:
    """The first seconds of the sample recording, with its truth and console log cut to match."""
    folder.mkdir(parents=True)
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(SAMPLE / "video.mp4"), "-t", str(SECONDS), "-c",
                    "copy", str(folder / "video.mp4")], check=True)
    (folder / "truth.jsonl").write_text(short_truth())
    lines = (SAMPLE / "events.jsonl").read_text().splitlines()
    events = [e for e in lines if json.loads(e)["media_time"] <= SECONDS]
    (folder / "events.jsonl").write_text("\n".join(events) + "\n")
    return folder


def test_two_workers_match_one_process(tmp_path: Path) -> None:
    videos = [short_recording(tmp_path / "part1"), short_recording(tmp_path / "part2")]
    serial = run_review(ReviewOptions(videos=videos, table=TABLE_FILE, out=tmp_path / "serial", name="s",
                                      progress=False, clips=False))
    fanned = run_review(ReviewOptions(videos=videos, table=TABLE_FILE, out=tmp_path / "dask", name="s",
                                      progress=False, clips=False, workers=2))
    for out in ("serial", "dask"):
        assert len(list((tmp_path / out / "files").glob("*/events.jsonl"))) == 2
    logs = {out: sorted(p.read_text() for p in (tmp_path / out / "files").glob("*/events.jsonl"))
            for out in ("serial", "dask")}
    assert logs["serial"] == logs["dask"]
    for outcome in (serial, fanned):
        s = outcome.session
        assert [f["error"] for f in s.files] == [None, None]
        # one timeline: the second recording starts where the first ends
        assert s.files[1]["offset_s"] == pytest.approx(s.files[0]["duration_s"], abs=0.05)
        assert len(s.hands) == 2 and not any(h["history"]["complete"] for h in s.hands)
        assert s.hands[1]["session_begin"] == pytest.approx(s.files[0]["duration_s"], abs=0.05)
        for h in s.hands:  # the players' four bets seen in each part before the video ends
            assert h["history"]["banker"]["seat"] == 4
            assert sorted(w["amount"] for seat in h["history"]["seats"] for w in seat["wagers"]) == \
                [1500, 2500, 4000, 10000]
    # files of one session never share sequence numbers (they become one table in the store)
    seqs = [json.loads(line)["seq"] for text in logs["dask"] for line in text.splitlines()]
    assert len(seqs) == len(set(seqs))
    assert (tmp_path / "dask" / "report.html").exists()


def test_a_running_cluster_by_its_address(tmp_path: Path) -> None:
    """``--scheduler ADDRESS``: the path for a cluster across machines (here one worker on this one)."""
    from dask.distributed import LocalCluster

    video = short_recording(tmp_path / "part1")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        outcome = run_review(ReviewOptions(videos=[video], table=TABLE_FILE, out=tmp_path / "out",
                                           progress=False, clips=False,
                                           scheduler=cluster.scheduler_address))
    (result,) = outcome.results
    assert result.done and result.error is None and result.next_frame == result.frames_total
    assert len(outcome.session.hands) == 1
    assert (tmp_path / "out" / "files" / result.key / "progress.json").exists()  # the bars' source
