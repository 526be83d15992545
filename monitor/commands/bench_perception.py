"""``table-monitor bench-perception``: one 1080p frame through detection and identity, per backend.

ONNX Runtime and OpenVINO run the same ONNX files on the same frame in the same process, one after
the other, so their ratio is meaningful on a shared machine; medians over ``--runs`` repetitions.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, DEFAULT_CLASSICAL, Backend, Classical

DEFAULT_FRAME = Path("tests/data/perception/table_1080p.jpg")
BUDGET_MS = 50.0  # issue 7: a 1080p frame with ~20 cards through detection and identity on 2 cores
CPUINFO = Path("/proc/cpuinfo")


def cpu_vector_units(cpuinfo: Path = CPUINFO) -> str:
    """The CPU's widest vector instructions the runtimes use ("AVX-512 + VNNI", "AVX2", ...): the same
    networks took 3.3 times as long on an AVX2 machine as on an AVX-512 one (`bench perception`), so a
    frame's time says little without it. "unknown" where the system does not tell."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return "unknown"
    lines = text.splitlines()
    flags = next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), [])
    if "avx512f" in flags:
        return "AVX-512 + VNNI" if "avx512_vnni" in flags else "AVX-512"
    if "avx2" in flags:
        return "AVX2 + VNNI" if "avx_vnni" in flags else "AVX2"
    return "no AVX2" if flags else "unknown"


def _time_detector(path: Path, backend: str, threads: int, frame: object, runs: int) -> float:
    import time

    from monitor.perception.detector import Detector

    det = Detector(path, backend, threads)
    for _ in range(3):
        det.detect(frame)  # type: ignore[arg-type]
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        det.detect(frame)  # type: ignore[arg-type]
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def register(app: typer.Typer) -> None:
    @app.command("bench-perception")
    def bench_perception(
        image: Annotated[Path, typer.Option(help="a 1080p frame with ~20 visible cards")] = DEFAULT_FRAME,
        models: Annotated[Path | None, typer.Option(help="folder with detector.onnx and cards.onnx")] = None,
        runs: Annotated[int, typer.Option(min=1)] = 30,
        threads: Annotated[int, typer.Option(min=1)] = 2,
        classical: Annotated[Classical, typer.Option(
            help="the classical card finder beside the detector (as for detect)")] = DEFAULT_CLASSICAL,
        out: Annotated[Path | None, typer.Option(help="write the figures as JSON")] = None,
        time_detector: Annotated[Path | None, typer.Option(
            help="also time this detector .onnx alone on the frame (e.g. one not yet shipped)")] = None,
        video: Annotated[Path | None, typer.Option(
            help="instead: the first --frames frames of this video, perceived whole and where they "
                 "changed (the live default), one backend (--backend)")] = None,
        frames: Annotated[int, typer.Option(min=2, help="frames of --video")] = 400,
        backend: Annotated[Backend, typer.Option(
            help="--video: the models' inference runtime (the live default; without --video both are "
                 "timed)")] = DEFAULT_BACKEND,
        snap_edges: Annotated[bool, typer.Option(
            help="the detector's boxes moved onto the cards' edges before reading (the runtime's way; "
                 "--no-snap-edges measures without)")] = True,
        pile_tops: Annotated[bool, typer.Option(
            help="each pile's top card read as a card (the runtime's way for photos)")] = True,
        tiles: Annotated[bool, typer.Option(
            help="a 4K frame whose cards the detector saw small also detected in tiles (the runtime's way "
                 "for photos)",
        )] = True,
        split_merged: Annotated[bool, typer.Option(
            help="a box holding two cards searched for the card on top (the runtime's way for photos)",
        )] = True,
        second_look: Annotated[bool, typer.Option(
            help="card boxes scored under the detector's threshold read, kept where surely cards (the "
                 "runtime's way for photos)",
        )] = True,
        drop_strays: Annotated[bool, typer.Option(
            help="card boxes in which no face is named that are no card dropped: over bare felt, or a "
                 "blob much smaller than a card (the runtime's way)",
        )] = True,
        overlap: Annotated[bool, typer.Option(
            help="the classical finder and the chips on a second thread beside the detector and the "
                 "card reader (the runtime's way; --no-overlap measures one thread after the other)",
        )] = True,
    ) -> None:
        """Time detection + rectification + identity on one frame with ONNX Runtime and OpenVINO."""
        import os
        import time

        if video is not None:
            _bench_video(video, frames, models, backend.value, threads, out)
            return

        from rich.console import Console
        from rich.table import Table
        from tqdm import tqdm

        from monitor.perception.errors import PerceptionError
        from monitor.perception.imageio import load_image
        from monitor.perception.models_home import models_home
        from monitor.perception.network_time import time_networks
        from monitor.perception.pipeline import Perceiver

        try:
            frame = load_image(image)
        except PerceptionError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        results: dict[str, dict[str, float]] = {}
        counts: dict[str, int] = {}
        for runtime in Backend:
            name = runtime.value
            perceiver = Perceiver.from_models(models or models_home(), name, threads, classical.value,
                                              snap_edges=snap_edges, pile_tops=pile_tops, tiles=tiles,
                                              split_merged=split_merged, second_look=second_look,
                                              drop_strays=drop_strays, overlap=overlap)
            for _ in range(3):  # warm-up: first runs compile kernels and fill caches
                perceiver.perceive(frame)
            timers = time_networks(perceiver)
            samples: dict[str, list[float]] = {}
            # CPU time of this process (all threads) per frame: on a shared machine it shows the work a
            # frame costs, where wall time also shows how long other jobs held the cores.
            cpu0 = time.process_time()
            for _ in tqdm(range(runs), desc=name, unit="frame"):
                for timer in timers:
                    timer.reset()
                dets = perceiver.perceive(frame)
                for k, v in dets.timings_ms.items():
                    samples.setdefault(k, []).append(v)
                # each network's own time in the frame, and theirs together: the floor no image work
                # saved can go under on this CPU
                for timer in timers:
                    samples.setdefault(f"network {timer.path.name}", []).append(timer.ms)
                samples.setdefault("networks alone", []).append(sum(t.ms for t in timers))
            cpu_ms = (time.process_time() - cpu0) * 1000 / runs
            results[name] = {k: statistics.median(v) for k, v in samples.items()}
            results[name]["cpu ms per frame (all threads)"] = cpu_ms
            if time_detector is not None:
                results[name]["detector model alone"] = _time_detector(time_detector, name, threads, frame,
                                                                       runs)
            results[name]["p90_total"] = sorted(samples["total"])[int(0.9 * (runs - 1))]
            counts[name] = sum(1 for d in dets.cards if d.is_known_card)
            counts[name + "_cards"] = len(dets.cards)
        load = os.getloadavg()[0]
        units = cpu_vector_units()
        table = Table(title=f"{image.name} {frame.shape[1]}x{frame.shape[0]}, {threads} threads, median ms "
                            f"(load average {load:.1f}; CPU {units})")
        table.add_column("stage")
        for b in results:
            table.add_column(b, justify="right")
        table.add_column("ORT / OV", justify="right")
        for stage in results["onnxruntime"]:
            ort, ov = results["onnxruntime"][stage], results["openvino"][stage]
            table.add_row(stage, f"{ort:.1f}", f"{ov:.1f}", f"{ort / ov:.2f}" if ov else "-")
        table.add_row("cards found / identified",
                      *(f"{counts[b + '_cards']} / {counts[b]}" for b in results), "")
        Console().print(table)
        best = min(results, key=lambda b: results[b]["total"])
        frame_ms, nets = results[best]["total"], results[best]["networks alone"]

        def verdict(ms: float) -> str:
            return "within" if ms <= BUDGET_MS else "over"

        typer.echo(f"budget {BUDGET_MS:.0f} ms on this CPU ({units}): the frame {frame_ms:.1f} ms ({best}), "
                   f"{verdict(frame_ms)}; its networks alone {nets:.1f} ms, {verdict(nets)}")
        if out is not None:
            out.write_text(json.dumps({"image": str(image), "threads": threads, "runs": runs, "load": load,
                                       "cpu": units, "median_ms": results, "cards": counts}, indent=1))


def _bench_video(video: Path, frames: int, models: Path | None, backend: str, threads: int,
                 out: Path | None) -> None:
    import os

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from monitor.lab.video_bench import read_frames, run_video
    from monitor.perception.models_home import models_home

    try:
        images = read_frames(video, frames)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    with Progress() as bar:
        tasks = {m: bar.add_task(m, total=len(images)) for m in ("whole frames", "changed regions")}
        runs = run_video(models or models_home(), backend, threads, images,
                         progress=lambda m, n: bar.update(tasks[m], completed=n))
    rows = [r.row() for r in runs]
    load = os.getloadavg()[0]
    table = Table(title=f"{video} ({len(images)} frames), {backend}, {threads} threads, ms per frame "
                        f"(load average {load:.1f})")
    for col in rows[0]:
        table.add_column(col, justify="left" if col == "mode" else "right")
    for r in rows:
        table.add_row(*(f"{v:.1f}" if isinstance(v, float) else str(v) for v in r.values()))
    Console(width=220).print(table)
    ratio = float(rows[0]["mean_ms"]) / float(rows[1]["mean_ms"])
    typer.echo(f"changed regions: {ratio:.2f}x faster than whole frames (mean ms per frame)")
    if out is not None:
        out.write_text(json.dumps({"video": str(video), "backend": backend, "threads": threads, "load": load,
                                   "runs": rows, "ratio": ratio}, indent=1))
