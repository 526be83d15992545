"""The reader's naming threshold checked on whole frames: raised (never lowered) until the faces named
on rendered frames are false within a budget; `calibrate-reader` does it on frames with their truth."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from monitor.perception.detections import Detection, Detections
from monitor.perception.reader_threshold import frame_threshold, sweep
from monitor.perception.scoring import face_verdicts
from tests.support.paths import TABLE_1080P

READS = [(0.99, True), (0.985, False), (0.98, True), (0.97, False), (0.96, True)]


def test_the_threshold_rises_just_over_the_surest_false_read_and_never_falls() -> None:
    assert frame_threshold(READS, 0.0, 0.975) == 0.99  # the 0.985 false read must drop; 0.99 stays
    assert frame_threshold(READS, 0.0, 0.995) == 0.995  # never under the reader's own
    assert frame_threshold(READS, 0.5, 0.95) == 0.95  # 2 false of 5 is within a half
    assert frame_threshold([], 0.0, 0.979) == 0.979
    surest_false = frame_threshold([(0.99, False), (0.9, True)], 0.0, 0.9)
    assert surest_false > 0.99 and surest_false == math.nextafter(0.99, 1.0)
    with pytest.raises(ValueError, match="budget"):
        frame_threshold(READS, 1.0, 0.9)
    assert sweep(READS, [0.95, 0.98, 0.99]) == [(0.95, 3, 2), (0.98, 2, 1), (0.99, 1, 0)]


def _card(x: float, identity: str, conf: float) -> Detection:
    corners = ((x, 0.0), (x + 50, 0.0), (x + 50, 70.0), (x, 70.0))
    return Detection("card_face_up", 0.9, corners, identity, conf)


def test_a_face_is_right_where_a_card_under_its_box_is_that_card() -> None:
    truth = [{"kind": "card", "polygon": [[x, 0], [x + 50, 0], [x + 50, 70], [x, 70]], "identity": i,
              "face_up": True, "visible_share": v} for x, i, v in ((0, "As", 0.5), (30, "Kd", 1.0))]
    dets = Detections(1920, 1080, (_card(0, "As", 0.99), _card(15, "7c", 0.985), _card(500, "2h", 0.98),
                                   _card(30, "unknown", 0.6)))
    assert face_verdicts(dets, truth) == [(0.99, True), (0.985, False), (0.98, False)]


def test_calibrate_reader_prints_and_writes_a_threshold_no_lower_than_the_readers(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app
    from monitor.perception.pipeline import DEFAULT_MODELS

    models = tmp_path / "models"
    shutil.copytree(DEFAULT_MODELS, models, ignore=shutil.ignore_patterns("*.pt", "*.png", "*.md"))
    own = json.loads((models / "cards_ensemble.json").read_text())["threshold"]
    res = CliRunner().invoke(app, ["calibrate-reader", str(TABLE_1080P), "--models", str(models),
                                   "--threads", "1", "--budget", "0", "--write"])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith("threshold:"))
    chosen = float(line.split()[1])
    assert chosen >= own - 1e-4
    written = json.loads((models / "cards_ensemble.json").read_text())
    assert written["threshold"] == pytest.approx(chosen, abs=1e-4)  # written only where it rose
    bare = tmp_path / "frame.jpg"
    shutil.copy(TABLE_1080P, bare)  # no truth beside it
    res = CliRunner().invoke(app, ["calibrate-reader", str(bare), "--models", str(models)])
    assert res.exit_code == 2 and "no truth" in res.output
