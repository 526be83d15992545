"""An ensemble's cascade: crops its first members read surely are decided by them alone, unread by the
rest; the others are read by every member as before. And its fit on val."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from monitor.perception.calibration import softmax_t
from monitor.perception.errors import ModelFileError
from monitor.perception.identity import CardEnsemble
from monitor.perception.labels import IDENTITY_CLASSES, NOT_ONE_CARD
from monitor.training.cascade_fit import fit_cascade
from tests.support.paths import TABLE_1080P
from tests.support.tiny_models import tiny_reader

BRIGHT = np.full((96, 96, 3), 255, np.uint8)  # the first member reads this as the As, surely (0.9935)
GREY = np.full((96, 96, 3), 128, np.uint8)  # and this as the As, unsurely (0.63)
SPEC: dict[str, Any] = {"members": ["cards.onnx", "cards_corner.onnx"], "temperature": 1.3, "threshold": 0.9}
CASCADE = {"first": [0], "temperature": 1.0, "threshold": 0.99}


class _Counting:
    """A member's backend that counts the crops it is shown."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.crops = inner, 0

    def run(self, x: npt.NDArray[np.float32]) -> Any:
        self.crops += len(x)
        return self.inner.run(x)


def _ensemble(tmp_path: Path, **extra: Any) -> CardEnsemble:
    tiny_reader(tmp_path / "cards.onnx", list(IDENTITY_CLASSES), card="As", strength=3.0)
    tiny_reader(tmp_path / "cards_corner.onnx", list(IDENTITY_CLASSES), card="Kd", strength=1.0)
    (tmp_path / "cards_ensemble.json").write_text(json.dumps({**SPEC, **extra}))
    return CardEnsemble(tmp_path / "cards_ensemble.json", "onnxruntime")


def test_a_crop_the_first_member_reads_surely_is_never_shown_to_the_rest(tmp_path: Path) -> None:
    plain = _ensemble(tmp_path)
    ens = _ensemble(tmp_path, cascade=CASCADE)
    counting = _Counting(ens.members[1].backend)
    ens.members[1].backend = counting  # type: ignore[assignment]
    lp, none = ens.raw_read([BRIGHT, GREY, BRIGHT])
    assert counting.crops == 1 and none is None  # only the grey crop went on
    # the unsure crop is read by both members, exactly as without the cascade
    assert np.allclose(lp[1], plain.raw_read([GREY])[0][0])
    # a decided crop's probabilities are the first member's own calibrated ones, given back by the
    # ensemble's temperature
    first = ens.members[0].raw_read([BRIGHT])[0]
    assert np.allclose(softmax_t(lp[[0]], ens.temperature), softmax_t(first, 1.0), atol=1e-9)
    bright, grey, _ = ens.classify([BRIGHT, GREY, BRIGHT])
    assert bright.label == "As" and bright.confidence == pytest.approx(0.9935, abs=1e-3)
    assert grey.label == plain.classify([GREY])[0].label
    # an ensemble threshold over the first pass's (0.995 > 0.99) holds it too: a decided crop is named
    strict = _ensemble(tmp_path, threshold=0.995, cascade=CASCADE)
    strict.members[1].backend = counting = _Counting(strict.members[1].backend)  # type: ignore[assignment]
    strict.raw_read([BRIGHT])
    assert counting.crops == 1
    # nothing decided at a threshold no crop reaches: every crop read by both, as the plain ensemble
    ens = _ensemble(tmp_path, cascade={**CASCADE, "threshold": 1.0})
    assert np.allclose(ens.raw_read([BRIGHT, GREY])[0], plain.raw_read([BRIGHT, GREY])[0])


def test_a_malformed_cascade_is_refused_saying_which_file(tmp_path: Path) -> None:
    for bad in ({"first": [2], "temperature": 1.0, "threshold": 0.99},  # no such member
                {"first": [0, 1], "temperature": 1.0, "threshold": 0.99},  # all of them: nothing to skip
                {"first": [0, 0], "temperature": 1.0, "threshold": 0.99},
                {"first": [0], "temperature": 0.0, "threshold": 0.99},
                {"first": [0], "temperature": 1.0, "threshold": 0.0},
                {"first": [0], "temperature": 1.0},
                {"first": "x", "temperature": 1.0, "threshold": 0.99}):
        with pytest.raises(ModelFileError, match=r"cards_ensemble\.json.*cascade"):
            _ensemble(tmp_path, cascade=bad)


def test_a_cascade_may_not_skip_a_member_that_says_not_one_card(tmp_path: Path) -> None:
    tiny_reader(tmp_path / "cards.onnx", list(IDENTITY_CLASSES))
    tiny_reader(tmp_path / "cards_corner.onnx", [*IDENTITY_CLASSES, NOT_ONE_CARD], none_bias=10.0)
    (tmp_path / "cards_ensemble.json").write_text(json.dumps({**SPEC, "cascade": CASCADE}))
    with pytest.raises(ModelFileError, match="cascade skips members taught"):
        CardEnsemble(tmp_path / "cards_ensemble.json", "onnxruntime")


def _logp(rows: list[tuple[int, float]], n: int = 5) -> npt.NDArray[np.float64]:
    """Log-probabilities putting probability p on class k of n, the rest shared."""
    out = np.full((len(rows), n), 0.0)
    for i, (k, p) in enumerate(rows):
        out[i] = (1 - p) / (n - 1)
        out[i, k] = p
    return np.asarray(np.log(out), np.float64)


def test_the_fit_decides_no_val_crop_wrongly_and_counts_what_it_saves() -> None:
    labels = np.array([0, 1, 2, 3, 4, 0, 1, 2])
    # member 0 reads all but the last surely right, and the last wrongly at 0.9; member 1 reads half
    # right and half wrong, each as surely
    m0 = _logp([(0, .99), (1, .99), (2, .99), (3, .99), (4, .99), (0, .99), (1, .99), (1, .9)])
    m1 = _logp([(int(k) if i % 2 else (int(k) + 1) % 5, .5) for i, k in enumerate(labels)])
    fit = fit_cascade([m0, m1], labels, [1.0, 1.0], floor=0.5)
    assert fit is not None and fit.cascade.first == (0,)
    q = softmax_t(m0, fit.cascade.temperature)
    decided = q.max(axis=1) >= fit.cascade.threshold
    assert not decided[-1] and decided[:-1].all()  # the wrong read is left to both members
    assert fit.decided_share == pytest.approx(7 / 8)
    assert fit.cost_share == pytest.approx((1 + 1 / 8) / 2)
    # the floor (the ensemble's threshold) bounds it from below: a decided crop is named
    assert fit_cascade([m0, m1], labels, [1.0, 1.0], floor=0.999999) is None
    # member 0 costing ten times member 1, deciding by it saves only member 1's reads
    dear = fit_cascade([m0, m1], labels, [1.0, 1.0], floor=0.5, costs=[10.0, 1.0])
    assert dear is not None and dear.cost_share == pytest.approx((10 + 1 / 8) / 11)


def _crops(root: Path, label: str, crop: npt.NDArray[np.uint8], n: int) -> None:
    import cv2

    (root / label).mkdir(parents=True, exist_ok=True)
    for i in range(n):
        cv2.imwrite(str(root / label / f"{label}_{root.name}_{i}.png"), crop)


def test_fit_cascade_fits_on_val_checks_held_out_and_writes(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from monitor.cli import app

    models, data = tmp_path / "models", tmp_path / "data"
    models.mkdir()
    _ensemble(models)
    for split in ("val", "test"):
        _crops(data / split, "As", BRIGHT, 12)  # the first member reads these right and surely
        _crops(data / split, "Kd", GREY, 3)  # and these wrongly (As), unsurely: left to both members
    args = ["fit-cascade", "--data", str(data), "--models", str(models), "--threads", "1"]
    res = CliRunner().invoke(app, [*args, "--write", "--out", str(tmp_path / "eval")])
    assert res.exit_code == 0, res.output
    assert "first pass: cards.onnx" in res.output and "decides 0.800 of val" in res.output
    # the cascaded reader's metrics as `train ensemble` writes them
    metrics = json.loads((tmp_path / "eval" / "cards_metrics.json").read_text())
    assert metrics["cascade"]["first"] == [0] and metrics["test"]["n"] == 15 and metrics["val"]["n"] == 15
    assert (tmp_path / "eval" / "cards_confusion_test.png").exists()
    assert "First pass: cards.onnx alone decides" in (tmp_path / "eval" / "cards_report.md").read_text()
    written = json.loads((models / "cards_ensemble.json").read_text())
    assert written["cascade"]["first"] == [0] and written["cascade_from"]["splits"]["test"]["decided"] == 0.8
    ens = CardEnsemble(models / "cards_ensemble.json", "onnxruntime")
    assert ens.cascade is not None and ens.cascade.threshold >= ens.threshold
    # an unreadable crop: said which, no traceback
    (data / "val" / "As" / "broken.png").write_bytes(b"not a png")
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and "broken.png" in res.output and "Traceback" not in res.output
    # no ensemble in the folder: said so, nothing else run
    (models / "cards_ensemble.json").unlink()
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and "needs an ensemble" in res.output


def test_fit_cascade_raises_the_first_pass_until_whole_frames_name_no_more_falsely(tmp_path: Path) -> None:
    import shutil

    from typer.testing import CliRunner

    from monitor.cli import app
    from monitor.perception.pipeline import DEFAULT_MODELS

    models, data = tmp_path / "models", tmp_path / "data"
    models.mkdir()
    _ensemble(models)
    for name in ("detector.onnx", "detector.json"):
        shutil.copy(DEFAULT_MODELS / name, models / name)
    for split in ("val", "test"):
        _crops(data / split, "As", BRIGHT, 12)
        _crops(data / split, "Kd", GREY, 3)
    frame = TABLE_1080P
    args = ["fit-cascade", "--data", str(data), "--models", str(models), "--threads", "1"]
    res = CliRunner().invoke(app, [*args, "--frames", str(frame), "--write"])
    # the tiny members read every pale card as the As: on a real frame they name faces falsely, the
    # first member alone (surer) more than both together until its threshold rises
    said = r"first pass at ([0-9.]+): (\d+) faces named falsely on the frames \(all members: (\d+)\)"
    tried = [(float(m[1]), int(m[2]), int(m[3])) for m in re.finditer(said, res.output)]
    assert tried and [t for t, _, _ in tried] == sorted(t for t, _, _ in tried), res.output
    assert all(found > reference for _, found, reference in tried[:-1])  # raised past each that named more
    written = json.loads((models / "cards_ensemble.json").read_text())
    if res.exit_code == 0:
        assert tried[-1][1] <= tried[-1][2]
        assert written["cascade"]["threshold"] == pytest.approx(tried[-1][0], abs=1e-4)
    else:  # raised so far that it decides nothing, or never named as few falsely: nothing written
        assert res.exit_code == 1 and "stays as it is" in res.output and "cascade" not in written
    # a frame with no truth beside it is refused, saying which
    bare = tmp_path / "frame.jpg"
    shutil.copy(frame, bare)
    res = CliRunner().invoke(app, [*args, "--frames", str(bare)])
    assert res.exit_code == 2 and "no truth frame.json" in res.output


def test_the_shipped_reader_names_the_sample_frame_as_all_its_members_do() -> None:
    from monitor.perception.imageio import load_image
    from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver

    perceiver = Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1)
    reader = perceiver.classifier
    assert isinstance(reader, CardEnsemble) and reader.cascade is not None
    assert reader.cascade.first == (0,) and reader.cascade.threshold >= reader.threshold
    frame = load_image(TABLE_1080P)
    first = sorted(str(d.identity) for d in perceiver.perceive(frame).cards if d.is_known_card)
    reader.cascade = None
    every = sorted(str(d.identity) for d in perceiver.perceive(frame).cards if d.is_known_card)
    assert first == every and len(first) == 18
