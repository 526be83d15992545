"""The review's small parts: the raster zone lookup, the sampled motion gate, frames handed out at a
stride, checkpoints, sidecars and the session pin."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.calibration import load_table
from monitor.events.outside import EventLogError, read_outside_events
from monitor.review.gate import SampledMotionGate
from monitor.review.jobs import FileJob, FileResult, GateSettings
from monitor.review.report_html import clock, money
from monitor.review.session import ReviewOptions, ReviewSetupError, build_jobs, pin_session
from monitor.review.sidecars import find_sidecars
from monitor.review.zones import RasterCalibration
from monitor.sources.frame import Frame
from monitor.sources.status import utc_now
from monitor.sources.video_source import SourceOptions, open_source
from tests.support.paths import TABLE_FILE


def test_raster_zones_agree_with_the_polygons_but_at_their_edges() -> None:
    cal = load_table(TABLE_FILE)
    fast = RasterCalibration.of(cal)
    p = np.random.default_rng(3).uniform([-1300, -700], [1300, 900], (40_000, 2))
    exact, got = cal.zone_index(p), fast.zone_index(p)
    differ = p[exact != got]
    assert len(differ) < 0.01 * len(p)
    polygons = [cal.outline.array, *(z.array for z in cal.zones.values())]
    for x, y in differ:  # every disagreement is within a cell's diagonal of some zone's edge
        d = min(abs(cv2.pointPolygonTest(q.astype(np.float32).reshape(-1, 1, 2), (float(x), float(y)), True))
                for q in polygons)
        assert d <= 1.5
    assert fast.zones_at(np.array([[5000.0, 5000.0]])) == ["off_table"]


def _frame(image: np.ndarray, t: float) -> Frame:
    return Frame(image, int(t * 30), t, utc_now(), "test")


def test_sampled_gate_sees_a_card_land_and_skips_a_still_table() -> None:
    felt = np.full((1080, 1920, 3), (40, 110, 30), np.uint8)
    gate = SampledMotionGate()
    assert gate.keep(_frame(felt, 0.0))  # the first frame
    still = [gate.keep(_frame(felt, 1.0 + i / 30)) for i in range(20)]
    assert not any(still)
    card = felt.copy()
    cv2.rectangle(card, (900, 500), (950, 570), (240, 240, 240), -1)  # ~50 x 70 px: a card at 1080p
    assert gate.keep(_frame(card, 1.8))
    assert gate.keep(_frame(card, 3.9))  # the keep-alive: at most 2 s blind


def test_source_hands_out_every_nth_frame(tmp_path: Path) -> None:
    path = tmp_path / "count.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30, (64, 48))
    for i in range(20):
        writer.write(np.full((48, 64, 3), i * 12, np.uint8))
    writer.release()
    with open_source(str(path), SourceOptions(realtime=False, deliver_every=3, start_frame=4)) as source:
        frames = list(source.frames())
    assert [f.index for f in frames] == [6, 9, 12, 15, 18]
    assert [round(f.media_time_s * 30) for f in frames] == [6, 9, 12, 15, 18]
    assert [round(float(f.image.mean()) / 12) for f in frames] == [6, 9, 12, 15, 18]


def test_checkpoint_round_trip_and_other_video(tmp_path: Path) -> None:
    from monitor.review import checkpoint

    video = tmp_path / "a.mp4"
    video.write_bytes(b"x")
    job = FileJob(0, str(video), str(TABLE_FILE), str(tmp_path))
    r = FileResult(str(video), 0, job.key, next_frame=120, hands=[{"round_id": "r0"}],
                   identity=checkpoint.video_identity(video))
    checkpoint.save(job, r)
    assert checkpoint.load(job) == r
    video.write_bytes(b"xy")  # the recording changed since: its checkpoint does not apply
    assert checkpoint.load(job) is None
    (job.folder / checkpoint.NAME).write_text("{not json")
    with pytest.raises(ValueError, match=r"checkpoint .* is unreadable"):
        checkpoint.load(job)


def test_sidecars_and_bad_log(tmp_path: Path) -> None:
    (tmp_path / "video.mp4").write_bytes(b"")
    (tmp_path / "video.truth.jsonl.gz").write_bytes(b"")
    log = tmp_path / "events.jsonl"
    log.write_text(json.dumps({"type": "bets_closed", "media_time": 2.0, "source": "operator"}) + "\n"
                   + json.dumps({"type": "bet_placed", "media_time": 1.0, "source": "vision"}) + "\n"
                   + json.dumps({"type": "dice_rolled", "media_time": 1.5, "source": "dice_reader"}) + "\n")
    side = find_sidecars(tmp_path / "video.mp4")
    assert side.truth == tmp_path / "video.truth.jsonl.gz" and side.events == log
    assert [e["type"] for e in read_outside_events(log)] == ["dice_rolled", "bets_closed"]  # not vision
    log.write_text('{"type": "bets_closed"}\n')
    with pytest.raises(EventLogError, match=r"events.jsonl line 1: not an event"):
        read_outside_events(log)


def test_a_folder_holds_one_session(tmp_path: Path) -> None:
    a, b = tmp_path / "a.mp4", tmp_path / "b.mp4"
    a.write_bytes(b"1")
    b.write_bytes(b"2")
    out = tmp_path / "out"
    opts = ReviewOptions(videos=[a], table=TABLE_FILE, out=out)
    pin_session(opts, build_jobs(opts, "t:review:x"))
    pin_session(opts, build_jobs(opts, "t:review:x"))  # the same again: a resume
    other = ReviewOptions(videos=[a, b], table=TABLE_FILE, out=out)
    with pytest.raises(ReviewSetupError, match="holds a review of other recordings"):
        pin_session(other, build_jobs(other, "t:review:x"))
    other.restart = True
    pin_session(other, build_jobs(other, "t:review:x"))
    with pytest.raises(ReviewSetupError, match="oracle perception needs the ground truth"):
        build_jobs(ReviewOptions(videos=[a], table=TABLE_FILE, out=out, perception="oracle"), "t")
    with pytest.raises(ReviewSetupError, match="does not exist"):
        build_jobs(ReviewOptions(videos=[tmp_path / "none.mp4"], table=TABLE_FILE, out=out), "t")


def test_report_formats() -> None:
    assert clock(62.45) == "1:02.5" and clock(3723.0) == "1:02:03.0" and clock(None) == "-"
    assert money(1500) == "$15" and money(1250) == "$12.50" and money(None) == "-"


@pytest.mark.parametrize(("fps", "stride"), [(30.0, 2), (29.97, 2), (25.0, 1), (15.0, 1), (10.0, 1),
                                             (60.0, 4), (59.94, 4), (50.0, 3)])
def test_the_default_stride_perceives_fifteen_frames_a_second_or_more(fps: float, stride: int) -> None:
    got = GateSettings().stride_for(fps)
    assert got == stride
    assert fps / got >= min(fps, 15.0) - 0.1  # never fewer than the proven rate (29.97 -> 14.985)
    assert fps / (got + 1) < 15.0  # and the largest stride that keeps it


def test_an_explicit_stride_wins_over_the_frame_rate() -> None:
    assert GateSettings(stride=1).stride_for(30.0) == 1
    assert GateSettings(stride=3).stride_for(15.0) == 3
    assert GateSettings(perceive_fps=30.0).stride_for(30.0) == 1


def test_the_review_runtime_is_chosen_and_named_in_the_detections_cache_key() -> None:
    from monitor.perception.pipeline import DEFAULT_MODELS
    from monitor.pipeline.perceive import ModelPerception

    ort = ModelPerception(DEFAULT_MODELS, threads=1, backend="onnxruntime")
    assert ort.perceiver.detector is not None and ort.perceiver.detector.backend.name == "onnxruntime"
    assert ort.cache_mode.endswith("onnxruntime")  # a cache made by one runtime is not replayed for another
    assert ModelPerception(DEFAULT_MODELS, threads=1).cache_mode == ort.cache_mode  # the default runtime
    # the caches recorded when OpenVINO was the default keep their key, and are replayed only for it
    assert "openvino" not in ModelPerception(DEFAULT_MODELS, threads=1, backend="openvino").cache_mode


def test_review_runs_onnx_runtime_on_one_thread_by_default_and_live_keeps_its_own() -> None:
    from monitor.perception.backends import DEFAULT_BACKEND
    from monitor.review.jobs import REVIEW_BACKEND, REVIEW_THREADS, FileJob
    from monitor.review.session import ReviewOptions

    # the faster runtime for throughput (`bench review`, docs/benchmarks.md), the one default; live keeps
    # its two threads
    assert (REVIEW_BACKEND, REVIEW_THREADS) == (DEFAULT_BACKEND, 1) == ("onnxruntime", 1)
    opts = ReviewOptions(videos=[Path("v.mp4")], table=TABLE_FILE, out=Path("o"))
    assert (opts.backend, opts.threads) == (REVIEW_BACKEND, REVIEW_THREADS)
    job = FileJob(index=0, video="v.mp4", table=str(TABLE_FILE), out="o")
    assert (job.backend, job.threads) == (REVIEW_BACKEND, REVIEW_THREADS)
    import typer

    from monitor.cli import app

    for name in ("review", "bench-review"):  # the commands' own defaults
        params = {p.name: p.default for p in typer.main.get_command(app).commands[name].params}  # type: ignore[attr-defined]
        assert (params["backend"], params["threads"]) == (REVIEW_BACKEND, REVIEW_THREADS), name


def test_an_unknown_runtime_is_refused_before_anything_runs(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app

    video = tmp_path / "v.mp4"
    video.write_bytes(b"\x00" * 64)
    result = CliRunner().invoke(app, ["review", str(video), "--table", str(TABLE_FILE),
                                      "--out", str(tmp_path / "o"), "--backend", "tensorflow", "--no-store"])
    assert result.exit_code == 2
    flat = " ".join(result.output.replace("│", " ").split())  # the error box wraps its lines
    assert "'tensorflow' is not one of 'onnxruntime', 'openvino'" in flat
    assert not (tmp_path / "o").exists()
