"""``table-monitor train cards|detector``: train, export to ONNX, calibrate and evaluate on held-out renders.

Training runs are resumable: each epoch leaves ``RUN/weights/last.pt`` and ``--resume`` continues from it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

train_app = typer.Typer(help="Train the perception models (needs the 'train' extra: torch + ultralytics).",
                        no_args_is_help=True)

MODELS_DIR = Path("models")


@train_app.command("cards")
def train_cards_cmd(
    data: Annotated[Path, typer.Option(help="crop dataset ROOT/{train,val,test}/CLASS/*.jpg")],
    name: Annotated[str, typer.Option(help="run name under --project")] = "cards",
    project: Annotated[Path, typer.Option(help="where runs and checkpoints go")] = Path("runs/cards"),
    epochs: Annotated[int, typer.Option(min=1)] = 20,
    imgsz: Annotated[int, typer.Option(min=32)] = 96,
    batch: Annotated[int, typer.Option(min=1)] = 128,
    threads: Annotated[int, typer.Option(min=1)] = 2,
    workers: Annotated[int, typer.Option(min=0, help="dataloader worker processes")] = 1,
    fraction: Annotated[float, typer.Option(min=0.01, max=1.0, help="share of the train split to use")] = 1.0,
    base: Annotated[str, typer.Option(help="model yaml, a .pt to fine-tune, or a shipped classifier's .onnx "
                                           "(models/fan_index.onnx: rebuilt from its weights)")]
    = "yolo11n-cls.yaml",
    lr0: Annotated[float, typer.Option()] = 0.002,
    resume: Annotated[bool, typer.Option(help="continue the run from RUN/weights/last.pt")] = False,
    evaluate_only: Annotated[bool, typer.Option(help="only export + evaluate")] = False,
    checkpoint: Annotated[str, typer.Option(help="which checkpoint to export: best or last")] = "best",
    test_splits: Annotated[str, typer.Option(help="comma-separated held-out splits to evaluate")] = "test",
    ship: Annotated[bool, typer.Option(help="copy results to models/")] = False,
    tta: Annotated[str, typer.Option(help="test-time augmentation: none, or rot180 (average both ways up)")]
    = "rot180",
    view: Annotated[str, typer.Option(help="what the model reads: card (the whole crop) or corner (the "
                                           "index; train on a set made by `train corners`)")] = "card",
    eval_data: Annotated[Path | None, typer.Option(help="whole-card crop set to calibrate and evaluate on "
                                                        "(default --data; a corner model needs the crops)")]
    = None,
) -> None:
    """Train the card-identity classifier, export ONNX, fit the temperature on val, evaluate held-out."""
    from monitor.training.cards import train_cards
    from monitor.training.evaluate_cards import calibrate_and_evaluate
    from monitor.training.export import export_onnx, model_names
    from monitor.training.runs import RunLog

    run = project / name
    if not evaluate_only:
        train_cards(data, project, name, epochs, imgsz, batch, threads, workers, resume, base, lr0, fraction)
    ckpt = run / "weights" / f"{checkpoint}.pt"
    if not ckpt.exists():
        raise typer.BadParameter(f"no checkpoint {ckpt}: train first (or pick --checkpoint last)")
    onnx_path = export_onnx(ckpt, run / "export" / "cards.onnx", imgsz)
    classes = model_names(ckpt)
    if tta not in ("none", "rot180"):
        raise typer.BadParameter(f"--tta {tta!r}: choose none or rot180")
    if view not in ("card", "corner"):
        raise typer.BadParameter(f"--view {view!r}: choose card or corner")
    result = calibrate_and_evaluate(onnx_path, classes, imgsz, eval_data or data, run / "eval",
                                    tuple(s for s in test_splits.split(",") if s), tta=tta, view=view)
    result["training_seconds"] = RunLog.total_seconds(project, name)
    result["checkpoint"] = str(ckpt)
    (run / "eval" / "cards_metrics.json").write_text(json.dumps(result, indent=1))
    from monitor.training.report import cards_report

    splits = tuple(s for s in test_splits.split(",") if s)
    (run / "eval" / "cards_report.md").write_text(cards_report(result, splits))
    for split in ("val", *test_splits.split(",")):
        if split in result:
            m = result[split]
            typer.echo(f"{split:>10}: n={m['n']} top-1={m['top1']:.4f} accepted={m['accepted_share']:.4f} "
                       f"false-identity={m['false_identity_rate']:.4f} critical={m['critical']}")
    _echo_not_one_card(result)
    typer.echo(f"temperature={result['temperature']:.3f} threshold={result['threshold']:.3f}")
    typer.echo(f"metrics and confusion matrices in {run / 'eval'}")
    if ship:
        MODELS_DIR.mkdir(exist_ok=True)
        shutil.copy(onnx_path, MODELS_DIR / "cards.onnx")
        shutil.copy(onnx_path.with_suffix(".json"), MODELS_DIR / "cards.json")
        shutil.copy(run / "eval" / "cards_metrics.json", MODELS_DIR / "cards_metrics.json")
        shutil.copy(run / "eval" / "cards_report.md", MODELS_DIR / "cards_report.md")
        shutil.copy(ckpt, MODELS_DIR / "cards.pt")  # the base that enroll-deck fine-tunes
        for png in (run / "eval").glob("*.png"):
            shutil.copy(png, MODELS_DIR / png.name)
        typer.echo(f"shipped to {MODELS_DIR}/cards.onnx")


def member_name(k: int) -> str:
    """The file name (no suffix) of an ensemble's ``k``-th corner member: cards_corner, cards_corner_2..."""
    return "cards_corner" if k == 0 else f"cards_corner_{k + 1}"


@train_app.command("ensemble")
def train_ensemble_cmd(
    card: Annotated[Path, typer.Option(help="the whole-card classifier (.onnx with its .json)")],
    corner: Annotated[list[Path], typer.Option(help=(
        "an index-corner classifier (.onnx + .json, view corner); repeatable: two corner members trained "
        "apart disagree on different crops (models/MODEL_CARD.md)"))],
    data: Annotated[Path, typer.Option(help="whole-card crop set ROOT/{val,test...}/CLASS/*.jpg")],
    out: Annotated[Path, typer.Option(help="folder for the ensemble (its members are copied in)")],
    test_splits: Annotated[str, typer.Option(help="comma-separated held-out splits to evaluate")] = "test",
    ship: Annotated[bool, typer.Option(help="copy the ensemble and its members to models/")] = False,
    fit_weights: Annotated[bool, typer.Option(
        help="weight the members' log-probabilities as fits val best (--no-fit-weights: equal)")] = True,
    turn_aspect: Annotated[float, typer.Option(
        help="quads this square (short/long side) or squarer are read turned 90 degrees too; 0: never "
             "(0.8: chosen on val crops, models/MODEL_CARD.md)")] = 0.8,
    max_false_rate: Annotated[float, typer.Option(min=0.0, max=0.05, help=(
        "the unknown-threshold names at most this share of val wrongly (0.0005: with "
        "val's labels right, 0.0025 named cards wrongly on whole frames, models/MODEL_CARD.md)"))] = 0.0005,
    crop_manifest: Annotated[list[Path] | None, typer.Option(
        help="`render crops` manifests giving each crop's quad aspect, so that val and the held-out "
             "splits are read as the runtime reads them (repeatable; crops not listed: card-shaped)")] = None,
) -> None:
    """Read cards with the whole-card and the index-corner classifiers together: fit the members'
    weights, the ensemble's temperature and threshold on val, evaluate the held-out splits, write
    cards_ensemble.json. Members are named cards.onnx, cards_corner.onnx, cards_corner_2.onnx..."""
    from monitor.perception.identity import ENSEMBLE_FILE
    from monitor.training.evaluate_cards import calibrate_and_evaluate_ensemble, load_crop_aspects
    from monitor.training.report import cards_report

    if not 0.0 <= turn_aspect <= 1.0 or 0.0 < turn_aspect <= 0.5:
        raise typer.BadParameter(f"--turn-aspect {turn_aspect}: 0 (never) or a share in (0.5, 1]")
    try:
        aspects = load_crop_aspects(crop_manifest) if crop_manifest else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    out.mkdir(parents=True, exist_ok=True)
    members = [(card, "cards")] + [(c, member_name(k)) for k, c in enumerate(corner)]
    for src, _ in members:
        for suffix in (".onnx", ".json"):
            if not src.with_suffix(suffix).exists():
                raise typer.BadParameter(f"{src.with_suffix(suffix)} does not exist")
    for src, name in members:
        for suffix in (".onnx", ".json"):
            if src.with_suffix(suffix).resolve() != (out / f"{name}{suffix}").resolve():
                shutil.copy(src.with_suffix(suffix), out / f"{name}{suffix}")
    ens = out / ENSEMBLE_FILE
    ens.write_text(json.dumps({"members": [f"{name}.onnx" for _, name in members]}, indent=2))
    splits = tuple(s for s in test_splits.split(",") if s)
    if turn_aspect and aspects is None:
        typer.echo("no --crop-manifest: the crops are read one way round (the runtime turns the squarest)")
    result = calibrate_and_evaluate_ensemble(ens, data, out / "eval", splits, fit_weights=fit_weights,
                                             max_false_rate=max_false_rate, turn_aspect=turn_aspect or None,
                                             aspects=aspects)
    (out / "eval" / "cards_report.md").write_text(cards_report(result, splits))
    for split in ("val", *splits):
        if split in result:
            m = result[split]
            typer.echo(f"{split:>10}: n={m['n']} top-1={m['top1']:.4f} accepted={m['accepted_share']:.4f} "
                       f"false-identity={m['false_identity_rate']:.4f} critical={m['critical']}")
    _echo_not_one_card(result)
    typer.echo(f"weights={result['weights']} temperature={result['temperature']:.3f} "
               f"threshold={result['threshold']:.3f}")
    if ship:
        MODELS_DIR.mkdir(exist_ok=True)
        for name in [f"{n}{suffix}" for _, n in members for suffix in (".onnx", ".json")] + [ENSEMBLE_FILE]:
            shutil.copy(out / name, MODELS_DIR / name)
        shutil.copy(out / "eval" / "cards_metrics.json", MODELS_DIR / "cards_ensemble_metrics.json")
        shutil.copy(out / "eval" / "cards_report.md", MODELS_DIR / "cards_ensemble_report.md")
        for png in (out / "eval").glob("*.png"):
            shutil.copy(png, MODELS_DIR / png.name.replace("cards_confusion", "cards_ensemble_confusion"))
        typer.echo(f"shipped to {MODELS_DIR}/{ENSEMBLE_FILE}")


@train_app.command("corners")
def train_corners_cmd(
    src: Annotated[Path, typer.Option(help="whole-card crop set ROOT/{train,val}/CLASS/*.jpg")],
    out: Annotated[Path, typer.Option(help="where the index-corner set goes")],
    size: Annotated[int, typer.Option(min=32, help="square side of each corner image (train at this imgsz)")]
    = 64,
) -> None:
    """Derive an index-corner training set (both corners of every crop) for `train cards --view corner`."""
    from monitor.training.corner_crops import derive_corner_set

    counts = derive_corner_set(src, out, size)
    typer.echo(f"{out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))


@train_app.command("index-crops")
def train_index_crops_cmd(
    data: Annotated[Path, typer.Option(help="`render indices` dataset (images, labels, identities)")],
    out: Annotated[Path, typer.Option(help="where the index-crop set goes (ROOT/SPLIT/CLASS/*.jpg)")],
    finder: Annotated[Path | None, typer.Option(help="index finder ONNX: its own quads are cut too, and "
                                                     "its finds of no index become 'back'")] = None,
    finder_conf: Annotated[float, typer.Option(min=0.01, max=0.99, help="finder score threshold")] = 0.25,
    size: Annotated[int, typer.Option(min=32, help="square side of each crop (train at this imgsz)")] = 64,
    splits: Annotated[str, typer.Option(help="comma-separated splits to cut")] = "train,val,test",
    limit: Annotated[int | None, typer.Option(help="at most this many windows per split")] = None,
    threads: Annotated[int, typer.Option(min=1)] = 2,
) -> None:
    """Cut every labeled index as the runtime cuts it (its true quad, the finder's quad or a jittered
    one, and the finder's false finds as 'back') for an index classifier: `train cards --data OUT`."""
    from monitor.perception.index_reader import IndexFinder
    from monitor.training.index_crops import derive_index_crops

    f = IndexFinder(finder, threads=threads, conf=finder_conf) if finder is not None else None
    wanted = tuple(s.strip() for s in splits.split(",") if s.strip())
    counts = derive_index_crops(data, out, f, size, splits=wanted, limit=limit)
    for split, c in counts.items():
        typer.echo(f"{split}: " + ", ".join(f"{k} {v}" for k, v in c.items()))


@train_app.command("fan-crops")
def train_fan_crops_cmd(
    data: Annotated[Path, typer.Option(help="`render indices` dataset with its cards/ records")],
    out: Annotated[Path, typer.Option(help="where the crop set goes (ROOT/SPLIT/CLASS/*.jpg)")],
    size: Annotated[int, typer.Option(min=32, help="square side of each crop (train at this imgsz)")] = 64,
    splits: Annotated[str, typer.Option(help="comma-separated splits to cut")] = "train,val,test",
    limit: Annotated[int | None, typer.Option(help="at most this many windows per split")] = None,
    view: Annotated[str, typer.Option(help="index: the index corners; card: each fanned card whole "
                                           "(at the whole-card size, --size 96)")] = "index",
) -> None:
    """Cut the index corners of every face-up card from its outline, true and moved as the detector's
    boxes are, covered corners and corners slid off the index as 'back': the fan reader's training
    set (`train cards --data OUT`). With --view card: each fanned card whole, from its outline true
    and moved."""
    from monitor.training.fan_crops import VIEWS, derive_fan_crops

    if view not in VIEWS:
        typer.echo(f"error: --view must be one of {', '.join(VIEWS)}, got {view!r}", err=True)
        raise typer.Exit(2)
    wanted = tuple(s.strip() for s in splits.split(",") if s.strip())
    for split, c in derive_fan_crops(data, out, size, splits=wanted, limit=limit, view=view).items():
        typer.echo(f"{split}: " + ", ".join(f"{k} {v}" for k, v in c.items()))


@train_app.command("fan-reader")
def train_fan_reader_cmd(
    reader: Annotated[Path, typer.Option(help="the fan-index classifier's ONNX (`train cards` on fan "
                                              "crops)")],
    data: Annotated[str, typer.Option(help="fan-crop sets, comma-separated (their val splits together fit, "
                                           "their test splits measure)")],
    out: Annotated[Path, typer.Option(help="folder for the fitted reader")] = Path("runs/fan_reader"),
    splits: Annotated[str, typer.Option(help="held-out splits to measure")] = "test",
    max_false_rate: Annotated[float, typer.Option(min=0.0, max=0.05, help="names: wrong ones over val "
                                                                          "crops")] = 0.001,
    max_false_rank_rate: Annotated[float, typer.Option(min=0.0, max=0.05,
                                                       help="ranks read unnamed")] = 0.0025,
    max_false_colour_rate: Annotated[float, typer.Option(min=0.0, max=0.05,
                                                         help="inks (red/black) read unnamed")] = 0.001,
    min_index: Annotated[float, typer.Option(min=0.01, max=0.99, help="how sure of an index a cut must be to "
                                                                       "count as a card at all")] = 0.95,
    members: Annotated[str, typer.Option(
        help="comma-separated ONNX classifiers over the same classes whose card reads are averaged in "
             "(e.g. models/cards_corner.onnx)")] = "",
    box_member: Annotated[Path | None, typer.Option(
        help="a classifier of the fanned card whole (`train cards` on `train fan-crops --view card`), read "
             "from the box of the card each index belongs to")] = None,
    box_data: Annotated[str, typer.Option(
        help="with --box-member: its whole-card crop sets, one per --data set, same order")] = "",
    box_max_false_rank_rate: Annotated[float | None, typer.Option(
        min=0.0, max=0.05,
        help="with --box-member: its ranks' budget (default: --max-false-rank-rate)")] = None,
    spread_rows: Annotated[str, typer.Option(
        help="rows of face-up cards found from a hand zone's picture and read along their edges: off, add "
             "(beside the detector's boxes) or first (boxes on a row found left out)")] = "off",
    spread_zones: Annotated[str, typer.Option(help="with --spread-rows: where (banker, front, back)")
                            ] = "banker,front,back",
    row_agree: Annotated[float, typer.Option(
        min=0.0, max=0.99, help="with --spread-rows and a box member: a row's read stands where the card "
                                "read whole gives its rank this much")] = 0.05,
    max_false_count_rate: Annotated[float | None, typer.Option(
        min=0.0, max=0.05, help="ranks sure enough to count a card for rule 60 (a third card of one rank "
                                "and ink is a duplicate): their budget (default: only names count)")] = None,
    ship: Annotated[bool, typer.Option(help="copy the reader's files to models/")] = False,
) -> None:
    """Fit the fan reader's name and rank thresholds as the runtime reads (shift peaks), measure the
    held-out crops, write fan_reader.json beside the classifier."""
    from monitor.perception.fan_reader import SPREAD_ROWS, SPREAD_ZONES
    from monitor.training.fan_reader_fit import BOX_NAME, READER_NAME, fit_fan_reader, member_files

    wanted = tuple(s.strip() for s in splits.split(",") if s.strip())
    extra = tuple(Path(m.strip()) for m in members.split(",") if m.strip())
    sets = tuple(Path(d.strip()) for d in data.split(",") if d.strip())
    missing = [d for d in sets if not (d / "val").is_dir()]
    if not sets or missing:
        raise typer.BadParameter(f"no val split in {', '.join(map(str, missing)) or 'no set given'}: "
                                 "`train fan-crops` makes a set")
    for m in (reader, *extra):
        if not m.exists() or not m.with_suffix(".json").exists():
            raise typer.BadParameter(f"{m}: need the ONNX and its JSON beside it (`train cards` writes both)")
    box_sets = tuple(Path(d.strip()) for d in box_data.split(",") if d.strip())
    if box_member is not None:
        if not box_member.exists() or not box_member.with_suffix(".json").exists():
            raise typer.BadParameter(f"{box_member}: need the ONNX and its JSON beside it")
        if len(box_sets) != len(sets) or any(not (d / "val").is_dir() for d in box_sets):
            raise typer.BadParameter("--box-data: one whole-card crop set (`train fan-crops --view card`) "
                                     "with a val split per --data set, in the same order")
    zones = [z.strip() for z in spread_zones.split(",") if z.strip()]
    if spread_rows not in SPREAD_ROWS or not zones or not set(zones) <= set(SPREAD_ZONES):
        raise typer.BadParameter(f"--spread-rows one of {', '.join(SPREAD_ROWS)}, --spread-zones of "
                                 f"{', '.join(SPREAD_ZONES)}")
    spread = None if spread_rows == "off" else {"spread_rows": spread_rows, "spread_zones": zones,
                                                "row_agree": row_agree}
    result = fit_fan_reader(reader, sets, out, wanted, min_index=min_index, max_false_rate=max_false_rate,
                            max_false_rank_rate=max_false_rank_rate, members=extra,
                            max_false_colour_rate=max_false_colour_rate, box_member=box_member,
                            box_data=box_sets, box_max_false_rank_rate=box_max_false_rank_rate,
                            spread=spread, max_false_count_rate=max_false_count_rate)
    typer.echo(f"threshold={result['threshold']:.4f} rank_threshold={result['rank_threshold']:.4f} "
               f"colour_threshold={result['colour_threshold']:.4f}"
               + (" box_thresholds=" + "/".join(f"{t:.4f}" for t in result["box_thresholds"])
                  if "box_thresholds" in result else "")
               + (f" count_threshold={result['count_threshold']:.4f}" if "count_threshold" in result else ""))
    for split in ("val", *wanted):
        if split in result:
            m = result[split]
            typer.echo(f"{split:>6}: indices {m['indices_shown']}, top-1 {m['top1_of_shown']:.3f}, named "
                       f"{m['named_of_shown']:.3f}, named or rank {m['named_or_rank_of_shown']:.3f}; "
                       f"false names {m['false_names']} ({m['false_name_rate']:.4f}), "
                       f"false ranks {m['false_ranks']} ({m['false_rank_rate']:.4f}); inks of the unnamed "
                       f"{m['colour_of_unnamed_shown']:.3f}, false inks {m['false_colours']} "
                       f"({m['false_colour_rate']:.4f}) of {m['crops']} crops")
            if "counted" in m:
                c = m["counted"]
                typer.echo(f"{'':>6}  counted for rule 60 (named or rank at the count threshold) "
                           f"{c['named_or_rank_of_shown']:.3f}, false ranks {c['false_ranks']} "
                           f"({c['false_rank_rate']:.4f})")
    if ship:
        MODELS_DIR.mkdir(exist_ok=True)
        names = [f"{READER_NAME}.onnx", f"{READER_NAME}.json", "fan_reader.json", "fan_reader_metrics.json"]
        for onnx in member_files(len(extra)) + ([f"{BOX_NAME}.onnx"] if box_member is not None else []):
            names += [onnx, str(Path(onnx).with_suffix(".json"))]
        for old in [*MODELS_DIR.glob("fan_member*"), *MODELS_DIR.glob(f"{BOX_NAME}.*")]:
            old.unlink()  # a reader shipped with more members before
        for name in names:
            shutil.copy(out / name, MODELS_DIR / name)
        typer.echo(f"shipped to {MODELS_DIR}/fan_reader.json")


@train_app.command("detector")
def train_detector_cmd(
    data: Annotated[Path, typer.Option(help="ultralytics dataset yaml (OBB or boxes)")],
    name: Annotated[str, typer.Option(help="run name under --project")] = "detector",
    project: Annotated[Path, typer.Option(help="where runs and checkpoints go")] = Path("runs/detector"),
    epochs: Annotated[int, typer.Option(min=1)] = 30,
    imgsz: Annotated[int, typer.Option(min=64)] = 640,
    batch: Annotated[int, typer.Option(min=1)] = 8,
    threads: Annotated[int, typer.Option(min=1)] = 2,
    workers: Annotated[int, typer.Option(min=0)] = 1,
    fraction: Annotated[float, typer.Option(min=0.01, max=1.0)] = 1.0,
    base: Annotated[str, typer.Option(help="model yaml or .pt")] = "yolo11n-obb.yaml",
    resume: Annotated[bool, typer.Option(help="continue the run from RUN/weights/last.pt")] = False,
    init: Annotated[Path | None, typer.Option(
        help="start from this checkpoint's matching layers: a .pt (e.g. the index finder's) "
             "or a shipped .onnx of the same family (models/detector.onnx)")] = None,
    evaluate_only: Annotated[bool, typer.Option(help="skip training; export + evaluate the run")] = False,
    checkpoint: Annotated[str, typer.Option(help="which checkpoint to export: best or last")] = "best",
    ship: Annotated[bool, typer.Option(help="copy results to models/")] = False,
    card_px: Annotated[float | None, typer.Option(min=8, max=1080, help=
        "the cards' long side in the 1920 x 1080 frames it learns from, written to its metadata, where it "
        "is not a table camera's 64 (`train real-detect --card-px`, `train zoom-detect`)")] = None,
) -> None:
    """Train the overhead detector (cards face up/down, piles, chips, dice), export ONNX, evaluate on test."""
    from monitor.training.detector import evaluate_detector, train_detector
    from monitor.training.export import export_onnx

    run = project / name
    if not evaluate_only:
        train_detector(data, project, name, epochs, imgsz, batch, threads, workers, resume, base, fraction,
                       init=init)
    ckpt = run / "weights" / f"{checkpoint}.pt"
    if not ckpt.exists():
        raise typer.BadParameter(f"no checkpoint {ckpt}: train first (or pick --checkpoint last)")
    from monitor.perception.detector import input_shape_for

    # A 16:9 whole frame (cameras are 1080p/4K: a third fewer pixels than a square), and dynamic axes:
    # video is perceived where it changed, a region at a time (monitor/perception/incremental.py).
    # Dynamic axes cost nothing at the full size (ONNX Runtime and OpenVINO, docs/benchmarks.md).
    input_hw = input_shape_for(1920, 1080, imgsz)
    onnx_path = export_onnx(ckpt, run / "export" / "detector.onnx", input_hw, dynamic=True)
    result = evaluate_detector(ckpt, onnx_path, data, imgsz, run / "eval", input_hw, card_px)
    typer.echo(json.dumps({k: v for k, v in result.items() if k != "per_class"}, indent=1))
    if ship:
        MODELS_DIR.mkdir(exist_ok=True)
        shutil.copy(onnx_path, MODELS_DIR / "detector.onnx")
        shutil.copy(onnx_path.with_suffix(".json"), MODELS_DIR / "detector.json")
        shutil.copy(run / "eval" / "detector_metrics.json", MODELS_DIR / "detector_metrics.json")
        typer.echo(f"shipped to {MODELS_DIR}/detector.onnx")


@train_app.command("indices")
def train_indices_cmd(
    data: Annotated[Path, typer.Option(help="pose dataset yaml made by `render indices`")],
    name: Annotated[str, typer.Option(help="run name under --project")] = "indices",
    project: Annotated[Path, typer.Option(help="where runs and checkpoints go")] = Path("runs/indices"),
    epochs: Annotated[int, typer.Option(min=1)] = 20,
    imgsz: Annotated[int, typer.Option(min=64)] = 416,
    batch: Annotated[int, typer.Option(min=1)] = 16,
    threads: Annotated[int, typer.Option(min=1)] = 2,
    workers: Annotated[int, typer.Option(min=0)] = 1,
    fraction: Annotated[float, typer.Option(min=0.01, max=1.0)] = 1.0,
    base: Annotated[str, typer.Option(help="model yaml or .pt")] = "yolo11n-pose.yaml",
    resume: Annotated[bool, typer.Option(help="continue the run from RUN/weights/last.pt")] = False,
    evaluate_only: Annotated[bool, typer.Option(help="skip training; export + evaluate the run")] = False,
    checkpoint: Annotated[str, typer.Option(help="which checkpoint to export: best or last")] = "best",
    ship: Annotated[bool, typer.Option(help="copy results to models/")] = False,
) -> None:
    """Train the index finder (each readable card index and its four corners, at full resolution),
    export ONNX, evaluate on the held-out design and tables."""
    from monitor.training.detector import INDEX_AUGMENT, evaluate_detector, train_detector
    from monitor.training.export import export_onnx

    run = project / name
    if not evaluate_only:
        train_detector(data, project, name, epochs, imgsz, batch, threads, workers, resume, base, fraction,
                       augment=INDEX_AUGMENT)
    ckpt = run / "weights" / f"{checkpoint}.pt"
    if not ckpt.exists():
        raise typer.BadParameter(f"no checkpoint {ckpt}: train first (or pick --checkpoint last)")
    # dynamic axes: the finder runs on windows cut around the hands, each its own size
    onnx_path = export_onnx(ckpt, run / "export" / "index_finder.onnx", (imgsz, imgsz), dynamic=True)
    result = evaluate_detector(ckpt, onnx_path, data, imgsz, run / "eval", (imgsz, imgsz))
    typer.echo(json.dumps({k: v for k, v in result.items() if k != "per_class"}, indent=1))
    if ship:
        MODELS_DIR.mkdir(exist_ok=True)
        shutil.copy(onnx_path, MODELS_DIR / "index_finder.onnx")
        shutil.copy(onnx_path.with_suffix(".json"), MODELS_DIR / "index_finder.json")
        shutil.copy(run / "eval" / "detector_metrics.json", MODELS_DIR / "index_finder_metrics.json")
        typer.echo(f"shipped to {MODELS_DIR}/index_finder.onnx")


@train_app.command("index-reader")
def train_index_reader_cmd(
    finder: Annotated[Path, typer.Option(help="index finder ONNX (`train indices`)")],
    data: Annotated[Path, typer.Option(help="`render indices` dataset (val to fit, held-out splits)")],
    reader: Annotated[Path, typer.Option(help="index-corner classifier ONNX (with its JSON)")]
    = Path("models/cards_corner.onnx"),
    out: Annotated[Path, typer.Option(help="folder for the fitted reader")] = Path("runs/index_reader"),
    test_splits: Annotated[str, typer.Option(help="comma-separated held-out splits to evaluate")] = "test",
    finder_conf: Annotated[float, typer.Option(min=0.01, max=0.99, help="finder score threshold")] = 0.4,
    max_false_rate: Annotated[float, typer.Option(min=0.0, max=0.1)] = 0.0025,
    limit: Annotated[int | None, typer.Option(help="at most this many windows per split")] = None,
    ship: Annotated[bool, typer.Option(help="copy the reader to models/")] = False,
) -> None:
    """Fit the index reader (finder + corner classifier) on val: temperature and "unknown" threshold
    for one index seen alone; measure finding and reading on the held-out splits."""
    from monitor.perception.index_reader import INDEX_READER_FILE, IndexReader
    from monitor.training.evaluate_indices import fit_and_evaluate, prepare_reader_dir

    path = prepare_reader_dir(out, finder, reader, finder_conf)
    splits = tuple(s.strip() for s in test_splits.split(",") if s.strip())
    result = fit_and_evaluate(IndexReader(path), data, out, splits, max_false_rate, limit)
    for split in ("val", *splits):
        if split in result:
            r = result[split]
            m = r["reading"]
            typer.echo(f"{split}: finder recall {r['finder_recall']:.3f}, precision "
                       f"{r['finder_precision']:.3f}; of {r['matched']} found: top-1 {m['top1']:.3f}, "
                       f"named {m['accepted_share']:.3f}, false identity {m['false_identity_rate']:.4f}, "
                       f"rank read {m['rank_read_share']:.3f}; spurious finds named {r['spurious_named']}")
    typer.echo(f"temperature {result['temperature']:.3f}, threshold {result['threshold']:.4f}: {path}")
    if ship:
        MODELS_DIR.mkdir(exist_ok=True)
        for name in ("index_finder.onnx", "index_corner.onnx", "index_corner.json", INDEX_READER_FILE,
                     "index_reader_metrics.json"):
            shutil.copy(out / name, MODELS_DIR / name)
        typer.echo(f"shipped to {MODELS_DIR}/{INDEX_READER_FILE}")


@train_app.command("snapshot")
def snapshot_cmd(
    src: Annotated[Path, typer.Argument(help="crop dataset being written by `render crops`")],
    dst: Annotated[Path, typer.Argument(help="new folder for the frozen snapshot (symlinks)")],
    val_frac: Annotated[float, typer.Option(min=0.01, max=0.5, help="train share to val if no val")] = 0.1,
) -> None:
    """Freeze the crops written so far into a training snapshot (val split by frame if none yet)."""
    from monitor.training.snapshot import make_snapshot

    counts = make_snapshot(src, dst, val_frac)
    typer.echo(" ".join(f"{k}={v}" for k, v in counts.items()) + f" -> {dst}")


@train_app.command("mix")
def mix_cmd(
    dst: Annotated[Path, typer.Argument(help="new dataset folder (symlinks)")],
    part: Annotated[list[str], typer.Option("--part", help="SPLIT=DIR[:PER_CLASS], repeatable; DIR holds "
                                                          "CLASS/ folders, e.g. train=data/a/train:200")],
    seed: Annotated[int, typer.Option(help="seed of the per-class samples")] = 0,
    drop_design: Annotated[list[str] | None, typer.Option(
        "--drop-design", help="leave out crops the parts' manifests say this design drew, repeatable "
                              "(e.g. proc:216)")] = None,
) -> None:
    """Mix crop folders into one classification dataset: e.g. generated-deck patches with scene crops."""
    from monitor.training.snapshot import make_mix, parse_part

    try:
        parts = [parse_part(p) for p in part]
        counts = make_mix(dst, parts, seed, frozenset(drop_design or ()))
    except (ValueError, FileNotFoundError, FileExistsError) as e:
        raise typer.BadParameter(str(e)) from None
    typer.echo(" ".join(f"{k}={v}" for k, v in counts.items()) + f" -> {dst}")


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")


def _echo_not_one_card(result: dict[str, Any]) -> None:
    """A reader taught "none": how many card crops it calls no single card, and of its own crops."""
    for split, r in result.get("not_one_card", {}).items():
        shown = (f", none crops called none {r['none_called_none']:.4f} of {int(r['none_crops'])}"
                 if "none_crops" in r else "")
        typer.echo(f"{split:>10}: card crops called none {r['cards_called_none']:.4f} "
                   f"of {int(r['cards'])}{shown}")
