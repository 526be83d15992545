"""``table-monitor detect IMAGE...``: find and read the cards (and chips) in photos or frames."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from monitor.commands.choices import DEFAULT_BACKEND, DEFAULT_CLASSICAL, Backend, Classical

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


def register(app: typer.Typer) -> None:
    @app.command()
    def detect(
        images: Annotated[list[Path], typer.Argument(help="image files (photos or frames)")],
        as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of text")] = False,
        annotate: Annotated[Path | None, typer.Option(
            help="write annotated image(s): a file for one image, else a directory")] = None,
        models: Annotated[Path | None, typer.Option(
            help="folder with detector.onnx / cards.onnx (default: the models' photos/, trained on real "
                 "photos and renders, where shipped, else the models themselves; the models: those shipped "
                 "in the package, or TABLE_MONITOR_MODELS)")] = None,
        backend: Annotated[Backend, typer.Option(help="the models' inference runtime")] = DEFAULT_BACKEND,
        classical: Annotated[Classical, typer.Option(
            help="the classical card finder: auto or full (beside the detector, its corners winning), "
                 "refine (only the detector's cards, their corners re-found) or off")] = DEFAULT_CLASSICAL,
        no_detector: Annotated[bool, typer.Option(help="classical card finder only")] = False,
        threshold: Annotated[float | None, typer.Option(
            help="identity confidence below which a card is 'unknown' (default: the model's)")] = None,
        threads: Annotated[int, typer.Option(min=1)] = 2,
        score: Annotated[bool, typer.Option(
            help="score against ground truth IMAGE.json (renderer output)")] = False,
        snap_edges: Annotated[bool, typer.Option(
            help="move the detector's boxes onto their cards' edges before reading them")] = True,
        pile_tops: Annotated[bool, typer.Option(
            help="read each pile's top card as a card (where no card box covers the pile)")] = True,
        tiles: Annotated[bool, typer.Option(
            help="also detect a 4K frame whose cards the detector saw small in tiles (cards twice as large)",
        )] = True,
        split_merged: Annotated[bool, typer.Option(
            help="search a box holding two cards (bigger than its neighbours, or squarer than a card) for "
                 "the card on top")] = True,
        second_look: Annotated[bool, typer.Option(
            help="read card boxes the detector scored under its threshold, kept where surely cards")] = True,
        drop_strays: Annotated[bool, typer.Option(
            help="drop card boxes in which no face is named that are no card: over bare felt, or a blob "
                 "much smaller than a card only the classical finder saw (the reader takes felt, dice and "
                 "lamps for backs)")] = True,
        card_scale: Annotated[str, typer.Option(
            help="the cards' length in each picture: 'find' (looked for first, then the picture perceived "
                 "at the scale the models were trained for), 'as-is' (perceived as given), or a length in "
                 "pixels")] = "find",
        drop_oversized: Annotated[bool, typer.Option(
            help="with --drop-strays, also drop card boxes in which no face is named over 2.5 cards' "
                 "size (they box no single card)")] = True,
    ) -> None:
        """Print each card's identity, confidence and four corners; optionally draw them."""
        import cv2

        from monitor.perception.annotate import draw
        from monitor.perception.card_scale import perceive_any_scale
        from monitor.perception.errors import PerceptionError
        from monitor.perception.imageio import load_image
        from monitor.perception.pipeline import Perceiver, photo_models

        card_px: float | None = None
        if card_scale not in ("find", "as-is"):
            try:
                card_px = float(card_scale)
            except ValueError:
                raise typer.BadParameter(
                    f"--card-scale {card_scale!r}: find, as-is or a length in pixels") from None
            if card_px <= 0:
                raise typer.BadParameter(f"--card-scale {card_scale!r}: a length must be positive")
        folder = models or photo_models()
        try:
            perceiver = Perceiver.from_models(folder, backend.value, threads, classical.value,
                                              use_detector=not no_detector, threshold=threshold,
                                              snap_edges=snap_edges, pile_tops=pile_tops, tiles=tiles,
                                              split_merged=split_merged, second_look=second_look,
                                              drop_strays=drop_strays, drop_oversized=drop_oversized)
        except (PerceptionError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        if perceiver.classifier is None:
            typer.echo(f"warning: no cards.onnx in {folder}: identities not read", err=True)
        from monitor.perception.scoring import FrameScore, load_truth, score_frame

        results, failed = [], 0
        total = FrameScore()
        for path in images:
            try:
                frame = load_image(path)
                if card_scale == "as-is":
                    dets = perceiver.perceive(frame)
                else:
                    dets, _ = perceive_any_scale(perceiver, frame, card_px)
            except PerceptionError as exc:
                failed += 1
                typer.echo(f"error: {exc}", err=True)
                continue
            results.append({"image": str(path), **dets.to_dict()})
            if score:
                truth_path = path.with_suffix(".json")
                if not truth_path.exists():
                    typer.echo(f"error: --score needs ground truth {truth_path}", err=True)
                    failed += 1
                else:
                    fs = score_frame(dets, load_truth(truth_path), path.stem)
                    total.add(fs)
                    results[-1]["score"] = fs.summary()
            if not as_json:
                cards = dets.cards
                named = [d for d in cards if d.is_known_card]
                typer.echo(f"{path}: {len(cards)} cards ({len(named)} identified), "
                           f"{len(dets.items) - len(cards)} other objects, {dets.timings_ms['total']:.0f} ms")
                for d in dets.items:
                    corners = " ".join(f"({x:.1f},{y:.1f})" for x, y in d.corners)
                    ident = f"{d.identity:>7} {d.identity_confidence:.3f}" if d.identity else " " * 13
                    extra = f" ${d.denomination}" if d.denomination is not None else ""
                    typer.echo(f"  {d.kind:<15}{ident}  det {d.confidence:.2f}{extra}  {corners}")
            if annotate is not None:
                target = annotate
                if len(images) > 1 or annotate.suffix.lower() not in IMAGE_SUFFIXES:
                    annotate.mkdir(parents=True, exist_ok=True)
                    target = annotate / f"{path.stem}_annotated.jpg"
                cv2.imwrite(str(target), draw(frame, dets))
        if as_json:
            json.dump(results, sys.stdout, indent=1)
            sys.stdout.write("\n")
        elif score:
            sm = total.summary()
            typer.echo(f"score over {len(results)} frames: unoccluded cards {sm['unoccluded_cards']}, "
                       f"recall {sm['recall']:.4f}; face-up found {sm['face_up_found']}: top-1 "
                       f"{sm['identity_top1']:.4f}, unknown {sm['identity_unknown']:.4f}, false identity "
                       f"{sm['false_identity']:.4f}; spurious {sm['spurious_cards']}; corner error median "
                       f"{sm['corner_error_px_median']} px, p95 {sm['corner_error_px_p95']} px")
            if sm["misreads"]:
                typer.echo(f"misreads: {'; '.join(sm['misreads'])}")
            if sm["missed"]:
                typer.echo(f"missed (unoccluded, no box): {'; '.join(sm['missed'])}")
            typer.echo(f"every named card, occluded too: faces {sm['named_faces']}, backs "
                       f"{sm['named_backs']}; named falsely {sm['false_names']}; backs over no card "
                       f"{sm['backs_over_no_card']}")
            if sm["false_name_list"]:
                typer.echo(f"named falsely: {'; '.join(sm['false_name_list'])}")
        if failed:
            raise typer.Exit(1)
