"""``table-monitor fit-cascade``: let the card reader's cheapest members decide the crops they read surely."""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rich.table import Table

    from monitor.perception.identity import CardClassifier, CardEnsemble, Cascade

TIMING_CROPS = 64  # val crops each member is timed on, to weigh what skipping it saves


def register(app: typer.Typer) -> None:
    @app.command("fit-cascade")
    def fit_cascade_cmd(
        data: Annotated[Path, typer.Option(help="whole-card crop set ROOT/{val,test...}/CLASS/*.jpg")],
        models: Annotated[Path | None, typer.Option(
            help="models folder with cards_ensemble.json (default: the shipped models, or "
                 "TABLE_MONITOR_MODELS)")] = None,
        test_splits: Annotated[str, typer.Option(help="comma-separated held-out splits to check")] = "test",
        crop_manifest: Annotated[list[Path] | None, typer.Option(
            help="`render crops` manifests giving each crop's quad aspect (read as the runtime reads "
                 "them; repeatable)")] = None,
        max_first: Annotated[int, typer.Option(min=1, help="most members in the first pass")] = 1,
        threads: Annotated[int, typer.Option(min=1)] = 2,
        frames: Annotated[list[Path] | None, typer.Option(
            help="rendered whole frames (each with its truth IMAGE.json; repeatable): the first pass's "
                 "threshold is raised, never lowered, until these frames, as photos and as video, name "
                 "no more faces falsely than every member reading every box does")] = None,
        write: Annotated[bool, typer.Option(help="write the cascade into cards_ensemble.json")] = False,
        out: Annotated[Path | None, typer.Option(
            help="write the cascaded reader's metrics here as `train ensemble` writes them "
                 "(cards_metrics.json, cards_report.md, a confusion picture a held-out split)")] = None,
    ) -> None:
        """Fit the ensemble's first pass on val (the members whose reads cut the cost most, at a
        threshold no val crop they decide is wrong at), then read val and each held-out split with and
        without it, printing top-1, named, false identity, the share decided by the first pass and the
        reading time."""
        from rich.console import Console

        from monitor.perception.errors import PerceptionError
        from monitor.perception.identity import ENSEMBLE_FILE, CardEnsemble
        from monitor.perception.models_home import models_home
        from monitor.training.cascade_fit import cost_of, fit_cascade
        from monitor.training.evaluate_cards import list_split, load_crop_aspects, raw_log_probs
        from monitor.training.report import cards_report

        folder = models or models_home()
        spec = folder / ENSEMBLE_FILE
        if not spec.exists():
            typer.echo(f"error: {spec} not found: a cascade needs an ensemble reader", err=True)
            raise typer.Exit(2)
        try:
            ens = CardEnsemble(spec, "onnxruntime", threads)
            aspects = load_crop_aspects(crop_manifest) if crop_manifest else None
        except (PerceptionError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        untruthed = [p for p in frames or [] if not p.with_suffix(".json").exists()]
        if untruthed:
            typer.echo(f"error: {untruthed[0]}: no truth {untruthed[0].with_suffix('.json').name} beside it "
                       "(rendered frames only)", err=True)
            raise typer.Exit(2)
        ens.cascade = None  # fitted afresh on the members alone
        classes = list(ens.classes)
        if not (data / "val").is_dir():
            typer.echo(f"error: {data / 'val'} not found", err=True)
            raise typer.Exit(2)
        vpaths, vlabels = list_split(data / "val", classes)
        try:
            member_lp = [raw_log_probs(m, vpaths, desc=f"val {m.path.name}", tta=None) for m in ens.members]
            costs = [_cost_a_crop(m, vpaths[:TIMING_CROPS]) for m in ens.members]
        except (PerceptionError, ValueError) as exc:  # an unreadable crop
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        fit = fit_cascade(member_lp, vlabels, ens.weights, ens.threshold, costs, max_first)
        cost_text = ", ".join(f"{m.path.name} {c:.2f}" for m, c in zip(ens.members, costs, strict=True))
        typer.echo(f"each member's ms a crop (this machine, {threads} threads): {cost_text}")
        if fit is None:
            typer.echo("no first pass saves anything on val: the ensemble stays as it is")
            raise typer.Exit(1)
        names = "+".join(ens.members[k].path.name for k in fit.cascade.first)
        typer.echo(f"first pass: {names}, T {fit.cascade.temperature:.3f}, threshold "
                   f"{fit.cascade.threshold:.6f}; decides {fit.decided_share:.3f} of val, expected cost "
                   f"{fit.cost_share:.3f} of every member reading every crop")
        if frames:
            try:
                chosen = _raised_on_frames(folder, fit.cascade, frames, threads)
            except (PerceptionError, ValueError) as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(2) from exc
            if chosen is None:
                typer.echo("no first-pass threshold names as few faces falsely on the frames: the ensemble "
                           "stays as it is")
                raise typer.Exit(1)
            if chosen.threshold != fit.cascade.threshold:
                fit = cost_of(chosen, member_lp, ens.weights, costs)
                typer.echo(f"raised on {len(frames)} whole frames to {chosen.threshold:.4f}: decides "
                           f"{fit.decided_share:.3f} of val, expected cost {fit.cost_share:.3f}")
                if fit.decided_share == 0.0 or fit.cost_share >= 1.0:
                    typer.echo("so raised, the first pass saves nothing: the ensemble stays as it is")
                    raise typer.Exit(1)
        splits = ["val", *(s for s in test_splits.split(",") if s)]
        try:
            table, figures, metrics = _compare(ens, fit.cascade, data, splits, aspects, out)
        except ValueError as exc:  # an unreadable crop
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        Console().print(table)
        if out is not None:
            result = {"temperature": ens.temperature, "threshold": ens.threshold,
                      "members": [m.path.name for m in ens.members], "weights": ens.weights,
                      "turn_aspect": ens.turn_aspect, "aspects_known": len(aspects or {}),
                      "cascade": fit.cascade.to_json(), **metrics}
            out.mkdir(parents=True, exist_ok=True)
            (out / "cards_metrics.json").write_text(json.dumps(result, indent=1))
            (out / "cards_report.md").write_text(cards_report(result, tuple(splits[1:])))
            typer.echo(f"metrics written into {out}")
        if write:
            raw = json.loads(spec.read_text())
            raw["cascade"] = fit.cascade.to_json()
            raw["cascade_from"] = {"data": str(data), "val_decided": fit.decided_share,
                                   "member_ms": costs, "splits": figures, "frames": len(frames or [])}
            spec.write_text(json.dumps(raw, indent=2))
            typer.echo(f"written into {spec}")


def _cost_a_crop(member: CardClassifier, paths: list[Path]) -> float:
    """Milliseconds a crop for ``member`` on ``paths`` (median of three reads after a warm-up)."""
    from monitor.perception.imageio import load_image

    crops = [load_image(p) for p in paths]
    member.raw_read(crops)
    times = []
    for _ in range(3):
        t = time.perf_counter()
        member.raw_read(crops)
        times.append((time.perf_counter() - t) * 1000 / max(1, len(crops)))
    return statistics.median(times)


# First-pass thresholds tried on whole frames, in order, after the one fitted on crops
FRAME_GRID = (0.99, 0.993, 0.995, 0.997, 0.998, 0.999)


def _raised_on_frames(folder: Path, cascade: Cascade, frames: list[Path], threads: int) -> Cascade | None:
    """The cascade with the least first-pass threshold, the fitted one or over (``FRAME_GRID``), at
    which ``frames`` read as photos and as video name no more faces falsely than with no first pass.
    A box over two cards reads as a third card, which crops of single cards cannot show."""
    from dataclasses import replace

    from tqdm import tqdm

    from monitor.perception.identity import CardEnsemble
    from monitor.perception.imageio import load_image
    from monitor.perception.pipeline import Perceiver
    from monitor.perception.scoring import face_verdicts, load_truth

    truths = []
    for path in frames:
        truths.append((load_image(path), load_truth(path.with_suffix(".json"))))
    perceivers = [Perceiver.from_models(folder, "onnxruntime", threads, video=video)
                  for video in (False, True)]
    for p in perceivers:
        p.cache = None  # separate frames

    def false_faces(c: Cascade | None) -> int:
        n = 0
        for p in perceivers:
            assert isinstance(p.classifier, CardEnsemble)
            p.classifier.cascade = c
            for frame, truth in tqdm(truths, desc=f"frames, first pass {c.threshold if c else 'off'}",
                                     unit="frame"):
                n += sum(not right for _, right in face_verdicts(p.perceive(frame), truth))
        return n

    reference = false_faces(None)
    for t in (cascade.threshold, *(t for t in FRAME_GRID if t > cascade.threshold)):
        candidate = replace(cascade, threshold=t)
        found = false_faces(candidate)
        typer.echo(f"first pass at {t:.4f}: {found} faces named falsely on the frames (all members: "
                   f"{reference})")
        if found <= reference:
            return candidate
    return None


def _compare(ens: CardEnsemble, cascade: Cascade, data: Path, splits: list[str],
             aspects: Mapping[str, float] | None, out: Path | None,
             ) -> tuple[Table, dict[str, dict[str, float]], dict[str, Any]]:
    """Each split read through the runtime's path without the first pass and with it: a table of
    both, the cascade's figures by split, and its metrics by split (with a confusion picture a
    held-out split in ``out``)."""
    import numpy as np
    from rich.table import Table

    from monitor.perception.calibration import softmax_t
    from monitor.training.evaluate_cards import card_metrics, list_split, plot_confusion, raw_log_probs

    classes = list(ens.classes)
    table = Table(title=f"reader with and without the first pass (thr {ens.threshold:.4f})")
    for col in ("split", "n", "reader", "top-1", "named", "false", "decided", "read s"):
        table.add_column(col, justify="right")
    figures: dict[str, dict[str, float]] = {}
    metrics: dict[str, Any] = {}
    for split in splits:
        if not (data / split).is_dir():
            typer.echo(f"warning: {data / split} not found: skipped", err=True)
            continue
        paths, labels = list_split(data / split, classes)
        for label, first in (("all members", None), ("cascade", cascade)):
            ens.cascade = first
            t = time.perf_counter()
            lp = raw_log_probs(ens, paths, desc=f"{split} {label}", tta=None, aspects=aspects)
            seconds = time.perf_counter() - t
            m = card_metrics(softmax_t(lp, ens.temperature), labels, classes, ens.threshold)
            decided = "-"
            if first is not None:
                z = np.sum([ens.weights[k] * raw_log_probs(ens.members[k], paths, desc=f"{split} first",
                                                           tta=None) for k in first.first], axis=0)
                sure = max(first.threshold, ens.threshold)
                share = float(np.mean(softmax_t(z, first.temperature).max(axis=1) >= sure))
                decided = f"{share:.3f}"
                figures[split] = {"top1": m.top1, "named": m.accepted_share, "false": m.false_identity_rate,
                                  "decided": share}
                metrics[split] = m.to_dict()
                if out is not None and split != "val":
                    out.mkdir(parents=True, exist_ok=True)
                    plot_confusion(m.confusion, classes, out / f"cards_confusion_{split}.png",
                                   f"card identity (ensemble, cascade), held-out split '{split}' "
                                   f"(n={m.n}, top-1 {m.top1:.4f})")
            table.add_row(split, str(m.n), label, f"{m.top1:.4f}", f"{m.accepted_share:.3f}",
                          f"{m.false_identity_rate:.2%}", decided, f"{seconds:.1f}")
    return table, figures, metrics
