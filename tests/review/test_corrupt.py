"""A corrupt or truncated recording gives a clear message and keeps what was reviewed; the other
recordings of the session are reviewed as usual."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from monitor.cli import app
from monitor.render.rounds.sample import sample_recording_dir
from tests.support.paths import TABLE_FILE

SAMPLE = sample_recording_dir()

pytestmark = pytest.mark.skipif(not (SAMPLE / "video.mp4").exists(), reason="sample recording not shipped")


def test_truncated_and_garbage_files(tmp_path: Path) -> None:
    # the sample cut at 30% of its bytes (H.264 with the index first: it opens, then stops decoding
    # early), with its ground truth and console log beside it
    cut = tmp_path / "cut"
    cut.mkdir()
    data = (SAMPLE / "video.mp4").read_bytes()
    (cut / "video.mp4").write_bytes(data[: int(len(data) * 0.3)])
    for name in ("truth.jsonl.gz", "events.jsonl"):
        shutil.copy(SAMPLE / name, cut / name)
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(b"\x00not a video\xff" * 4096)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["review", str(garbage), str(cut), "--table", str(TABLE_FILE),
                                      "--out", str(out), "--no-store"])
    assert result.exit_code == 1, result.output  # reviewed, with files in error
    assert f"ERROR: video file {garbage} cannot be opened: not a readable video" in result.output
    assert "nothing in it could be reviewed" in result.output
    assert f"ERROR: video file {cut / 'video.mp4'} is corrupt or truncated: decoding broke at frame" \
        in result.output
    assert "the review keeps what it saw up to frame" in result.output

    data = json.loads((out / "review.json").read_text())
    bad, short = data["files"]
    assert bad["error"] and bad["frames_read"] == 0 and bad["hands"] == 0
    assert "decoder" in short["error"] or "no frame" in short["error"]
    assert 300 < short["frames_read"] < short["frames_total"] == 3466
    # what was seen before the break is kept: the first hand, cut short by the end of the video
    hands = data["hands"]
    (hand,) = hands
    assert hand["history"]["complete"] is False and hand["history"]["banker"]["seat"] == 4
    assert hand["file"].endswith("cut/video.mp4")
    events = (out / "files" / short["key"] / "events.jsonl").read_text().splitlines()
    kinds = [json.loads(e)["type"] for e in events]
    assert kinds.count("bet_placed") == 5 and "device_lost" in kinds  # the break, as a camera fault
    assert "cut/video.mp4" in (out / "report.html").read_text()
    assert data["summary"]["files_with_errors"] == 2


def test_check_rendered_counts_a_round_whose_video_broke_as_an_error(tmp_path: Path) -> None:
    # a review that stopped part-way would compare as a short round: faults after the break look
    # missed and false alerts absent, so the round must not count as "exactly right"
    cut = tmp_path / "cut"
    cut.mkdir()
    data = (SAMPLE / "video.mp4").read_bytes()
    (cut / "video.mp4").write_bytes(data[: int(len(data) * 0.3)])
    for name in ("truth.jsonl.gz", "events.jsonl", "check.json", "alerts.jsonl"):
        shutil.copy(SAMPLE / name, cut / name)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["check-rendered", str(cut), "--out", str(out),
                                      "--perception", "oracle"])
    assert result.exit_code == 1, result.output
    assert f"error: {cut}:" in result.output and "corrupt or truncated" in result.output
    assert "0/0 rounds exactly right" in result.output
    assert json.loads((out / "results.json").read_text()) == []
