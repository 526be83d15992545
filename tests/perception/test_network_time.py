"""The networks' own time in a frame (``network_time``, shown by ``bench-perception``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from monitor.perception.imageio import load_image
from monitor.perception.network_time import TimedBackend, time_networks
from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver
from tests.support.paths import TABLE_1080P


class Doubles:
    name, path = "fake", Path("fake.onnx")

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        return [x * 2]


def test_a_timed_backend_answers_as_its_runtime_and_adds_up_its_calls() -> None:
    timed = TimedBackend(Doubles())
    x = np.ones((1, 3, 4, 4), np.float32)
    assert np.array_equal(timed.run(x)[0], x * 2)
    timed.run(x)
    assert timed.calls == 2 and timed.ms > 0 and (timed.name, timed.path) == ("fake", Path("fake.onnx"))
    timed.reset()
    assert (timed.calls, timed.ms) == (0, 0.0)


def test_every_network_of_the_shipped_perceiver_is_timed_and_the_detections_are_the_same() -> None:
    frame = load_image(TABLE_1080P)
    plain = Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1, overlap=False)
    timed = Perceiver.from_models(DEFAULT_MODELS, "onnxruntime", 1, overlap=False)
    timers = time_networks(timed)
    # the detector and the reader's three members, each once: timing it again adds no second timer
    names = sorted(t.path.name for t in timers)
    assert names == ["cards.onnx", "cards_corner.onnx", "cards_corner_2.onnx", "detector.onnx"]
    assert [id(t) for t in time_networks(timed)] == [id(t) for t in timers]
    want, got = plain.perceive(frame), timed.perceive(frame)
    assert [(d.kind, d.identity, d.corners) for d in got.items] == \
        [(d.kind, d.identity, d.corners) for d in want.items]
    assert all(t.calls >= 1 and t.ms > 0 for t in timers)
    assert sum(t.ms for t in timers) < got.timings_ms["total"]


def test_bench_perception_reports_each_networks_own_time_beside_the_frames(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from monitor.cli import app

    out = tmp_path / "bench.json"
    res = CliRunner().invoke(app, ["bench-perception", "--runs", "1", "--threads", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    figures = json.loads(out.read_text())["median_ms"]
    for backend in ("onnxruntime", "openvino"):
        row = figures[backend]
        nets = [row[f"network {n}.onnx"] for n in ("detector", "cards", "cards_corner", "cards_corner_2")]
        assert all(ms > 0 for ms in nets)
        assert row["networks alone"] == pytest.approx(sum(nets)) and row["networks alone"] < row["total"]
    assert "budget 50 ms" in res.output and "networks alone" in res.output


def test_the_cpus_vector_units_are_read_from_its_flags(tmp_path: Path) -> None:
    from monitor.commands.bench_perception import cpu_vector_units

    def units(flags: str) -> str:
        info = tmp_path / "cpuinfo"
        info.write_text(f"processor\t: 0\nmodel name\t: test\nflags\t\t: {flags}\n")
        return cpu_vector_units(info)

    assert units("fpu sse2 avx avx2 fma") == "AVX2"
    assert units("avx2 avx512f avx512bw") == "AVX-512"
    assert units("avx2 avx512f avx512_vnni") == "AVX-512 + VNNI"
    assert units("sse2") == "no AVX2"
    assert cpu_vector_units(tmp_path / "missing") == "unknown"
