"""Fitting the fan reader's thresholds on fan crops (``train fan-reader``), and its held-out figures.

The fan-index classifier (``train cards`` on a ``train fan-crops`` set) keeps its own temperature;
here the thresholds are fitted the way the runtime reads (``perception/fan_reader.py``): "no index"
set aside, the rest scaled by how sure an index is there, then a card named at ``threshold`` and,
unnamed, its rank read at ``rank_threshold`` (suits summed). Each is the lowest whose wrong
acceptances, counted over every val crop (covered and slid-off corners too: anything accepted there
is wrong), stay within its budget. A foul is judged on ranks, a duplicate on names: a misnamed card
is a false duplicate wherever its name lies on the table (the hundred clean rounds: one, a Td named
Ts, at the ranks' budget of 0.25%), so names get the stricter budget (0.1%). A card not named may
still show its ink (red or black: the suits of each summed), read at ``colour_threshold`` (0.1%): two
inks in a five-card hand rule out a flush.

With a box member (a classifier of the fanned card whole, ``train fan-crops --view card``), each
index crop that shows (``t``, ``j``) is read with the whole-card crop of the same card cut from the
same window (``box_data``, one set per index set, in the same order), folded in as the runtime folds
the box of the card an index belongs to; crops with no such card are read alone, as the runtime reads
an index with no box near.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.perception.calibration import choose_threshold, softmax_t
from monitor.perception.fan_reader import (
    DEFAULT_MIN_INDEX,
    FAN_READER_FILE,
    TURNED_RANKS,
    card_probabilities,
    ensemble_probabilities,
    in_classes,
    with_box_reads,
)
from monitor.perception.identity import CardClassifier
from monitor.perception.labels import BACK
from monitor.perception.ranks import colour_probabilities, ink_of, rank_probabilities
from monitor.rules.cards import JOKER_TEXT
from monitor.training.evaluate_cards import list_split, raw_log_probs

F64 = npt.NDArray[np.float64]
Inks = tuple[F64, list[str | None]]  # per crop: ink confidence, top ink
READER_NAME = "fan_index"
BOX_NAME = "fan_box"


def member_files(n: int) -> list[str]:
    """The names a fitted reader gives its members' ONNX files."""
    return [f"fan_member{k}.onnx" for k in range(1, n + 1)]


def _rank(card: str) -> str:
    return JOKER_TEXT if card == JOKER_TEXT else card[0]


def _card_probabilities(prob: F64, classes: list[str], min_index: float) -> F64:
    """The card probabilities the runtime reads from (``fan_reader.card_probabilities``)."""
    b = classes.index(BACK)
    p = card_probabilities(prob, b)
    p[1.0 - prob[:, b] < min_index] = 0.0  # the runtime drops a corner this unsure of an index
    return p


def runtime_scores(prob: F64, classes: list[str], min_index: float) -> tuple[F64, F64, list[str], list[str]]:
    """Per crop as the runtime reads it: (name confidence, rank confidence, top card, top rank)."""
    p = _card_probabilities(prob, classes, min_index)
    ranks, rp = rank_probabilities(p, tuple(classes))
    if JOKER_TEXT in classes:  # the joker's name is its rank (no suit): read at the rank threshold
        ranks, rp = (*ranks, JOKER_TEXT), np.concatenate([rp, p[:, [classes.index(JOKER_TEXT)]]], axis=1)
    top = [classes[k] for k in p.argmax(axis=1)]
    top_rank = [ranks[k] for k in rp.argmax(axis=1)]
    return p.max(axis=1), rp.max(axis=1), top, top_rank


def colour_scores(prob: F64, classes: list[str], min_index: float) -> Inks:
    """Per crop as the runtime reads it: (ink confidence, top ink); the ink of the summed suits."""
    inks, cp = colour_probabilities(_card_probabilities(prob, classes, min_index), tuple(classes))
    return cp.max(axis=1), [inks[k] for k in cp.argmax(axis=1)]


def colour_figures(colour_conf: F64, top_colour: list[str | None], name_conf: F64, truth: list[str],
                   kinds: list[str], threshold: float, colour_threshold: float) -> dict[str, Any]:
    """Inks read of cards not named: their share of the indices that show, wrong ones over all crops."""
    inked = (name_conf < threshold) & (colour_conf >= colour_threshold)
    ok = np.array([ink_of(t) is not None and c == ink_of(t) for t, c in zip(truth, top_colour, strict=True)])
    shown = np.array([k in "tj" for k in kinds])
    unnamed = shown & (name_conf < threshold)
    wrong = int((inked & ~ok).sum())
    return {"colour_of_unnamed_shown": float((inked & unnamed).sum() / max(1, unnamed.sum())),
            "false_colours": wrong, "false_colour_rate": wrong / len(truth)}


def decisions(name_conf: F64, rank_conf: F64, top: list[str], threshold: float, rank_threshold: float
              ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """(named, rank read) per crop, as the runtime decides."""
    joker = np.array([t == JOKER_TEXT for t in top], dtype=bool)
    # as the runtime names: the joker (no suit) on its own probability at the rank threshold
    named = (name_conf >= threshold) | ((name_conf >= rank_threshold) & joker)
    return named, ~named & (rank_conf >= rank_threshold)


def figures(named: npt.NDArray[np.bool_], ranked: npt.NDArray[np.bool_], top: list[str], top_rank: list[str],
            truth: list[str], kinds: list[str]) -> dict[str, Any]:
    """Named and rank-read shares of the indices that show (kinds t, j), and wrong acceptances over
    all crops."""
    n = len(truth)
    name_ok = np.array([t == c for t, c in zip(top, truth, strict=True)])
    rank_ok = np.array([t != BACK and r == _rank(t) for t, r in zip(truth, top_rank, strict=True)])
    shown = np.array([k in "tj" for k in kinds])
    return {
        "crops": n, "indices_shown": int(shown.sum()),
        "named_of_shown": float((named & shown).sum() / max(1, shown.sum())),
        "named_or_rank_of_shown": float(((named | ranked) & shown).sum() / max(1, shown.sum())),
        "top1_of_shown": float((name_ok & shown).sum() / max(1, shown.sum())),
        "false_names": int((named & ~name_ok).sum()),
        "false_name_rate": float((named & ~name_ok).sum() / n),
        "false_ranks": int((ranked & ~rank_ok).sum()),
        "false_rank_rate": float((ranked & ~rank_ok).sum() / n),
        "by_kind": {k: int(sum(1 for x in kinds if x == k)) for k in "tjcs"},
    }


def split_figures(name_conf: F64, rank_conf: F64, top: list[str], top_rank: list[str], truth: list[str],
                  kinds: list[str], threshold: float, rank_threshold: float) -> dict[str, Any]:
    """``figures`` of one reading at its thresholds."""
    named, ranked = decisions(name_conf, rank_conf, top, threshold, rank_threshold)
    return figures(named, ranked, top, top_rank, truth, kinds)


Scores = tuple[F64, F64, list[str], list[str]]  # per crop: name confidence, rank confidence, top, top rank


def second_opinion_figures(first: Scores, second: Scores, first_inks: Inks, second_inks: Inks,
                           truth: list[str], kinds: list[str], thresholds: tuple[float, float, float],
                           box_thresholds: tuple[float, float, float]) -> dict[str, Any]:
    """The figures of the index read alone completed by the second reading (``fan_reader.
    second_opinion``): a name where the first has none (and no other rank), else a rank, else an ink."""
    named_a, ranked_a = decisions(first[0], first[1], first[2], *thresholds[:2])
    named_b, ranked_b = decisions(second[0], second[1], second[2], *box_thresholds[:2])
    same_rank = np.array([_rank(t) == r for t, r in zip(second[2], first[3], strict=True)])
    # a six or a nine comes from the second reading only where the first's best guess is of that rank
    # (fan_reader.TURNED_RANKS)
    first_top = [_rank(t) for t in first[2]]
    named_b &= ~np.array([_rank(t) in TURNED_RANKS and _rank(t) != f for t, f in zip(second[2], first_top,
                                                                                     strict=True)])
    ranked_b &= ~np.array([r in TURNED_RANKS and r != f for r, f in zip(second[3], first_top, strict=True)])
    take_b = ~named_a & named_b & (~ranked_a | same_rank)
    named = named_a | take_b
    top = [b if tb else a for a, b, tb in zip(first[2], second[2], take_b, strict=True)]
    ranked = ~named & (ranked_a | ranked_b)
    top_rank = [a if ra else b for a, b, ra in zip(first[3], second[3], ranked_a, strict=True)]
    out = figures(named, ranked, top, top_rank, truth, kinds)
    inked_a = ~named & (first_inks[0] >= thresholds[2])
    inks = [a if ia else b for a, b, ia in zip(first_inks[1], second_inks[1], inked_a, strict=True)]
    ink_conf = np.where(inked_a, 1.0, np.where(second_inks[0] >= box_thresholds[2], 1.0, 0.0))
    return out | colour_figures(ink_conf, inks, np.where(named, 1.0, 0.0), truth, kinds, 0.5, 0.5)


def box_crop(index_crop: Path, box_root: Path, split: str) -> Path:
    """The whole-card crop of the card an index crop was cut from (``train fan-crops``' names: index
    ``<stem>_<card><side>_<kind>``, card ``<stem>_<card>_<kind>``)."""
    stem, tag, kind = index_crop.stem.rsplit("_", 2)
    return box_root / split / index_crop.parent.name / f"{stem}_{tag[:-1]}_{kind}{index_crop.suffix}"


def split_scores(clf: CardClassifier, members: list[CardClassifier], data: tuple[Path, ...], split: str,
                 classes: list[str], min_index: float,
                 box: tuple[CardClassifier, tuple[Path, ...]] | None = None
                 ) -> tuple[Scores, list[str], list[str], Inks, tuple[Scores, Inks] | None]:
    """A split read as the runtime reads it: the index alone (scores, truth, kinds, inks) and, with a
    box member, the same crops read with it folded in (the second opinion's scores and inks; the
    index classifier run once for both)."""
    paths: list[Path] = []
    labels: list[int] = []
    boxes: list[Path | None] = []
    # several crop sets' splits read as one (a 300-window val is a thin base for 0.1%)
    for k, root in enumerate(data):
        if (root / split).is_dir():
            p, lab = list_split(root / split, classes)
            paths += p
            labels += list(lab)
            if box is not None:
                found = [box_crop(x, box[1][k], split) for x in p]
                boxes += [b if x.stem.endswith(("_t", "_j")) and b.exists() else None
                          for x, b in zip(p, found, strict=True)]
    prob, *member_p = [softmax_t(raw_log_probs(m, paths, desc=f"{split} {m.path.name}", tta="none"),
                                 m.meta.temperature) for m in (clf, *members)]
    prob = ensemble_probabilities(prob, member_p, classes.index(BACK))
    second = None
    if box is not None:
        rows = [i for i, b in enumerate(boxes) if b is not None]
        box_p = np.zeros_like(prob)
        if rows:
            lp = raw_log_probs(box[0], [b for b in boxes if b is not None], desc=f"{split} boxes", tta="none")
            box_p[rows] = in_classes(softmax_t(lp, box[0].meta.temperature), box[0].classes, classes)
        owners = [i if b is not None else None for i, b in enumerate(boxes)]
        fused = with_box_reads(prob, owners, box_p, classes.index(BACK))
        second = (runtime_scores(fused, classes, min_index), colour_scores(fused, classes, min_index))
    kinds = [p.stem.rsplit("_", 1)[-1] for p in paths]
    return (runtime_scores(prob, classes, min_index), [classes[k] for k in labels], kinds,
            colour_scores(prob, classes, min_index), second)


def _fit(scores: Scores, inks: Inks, truth: list[str], max_false_rate: float, max_false_rank_rate: float,
         max_false_colour_rate: float, first: tuple[Scores, Inks, tuple[float, float, float]] | None = None
         ) -> tuple[float, float, float]:
    """Name, rank and ink thresholds, each the lowest whose wrong acceptances over every crop stay
    within its budget. With ``first`` (a first reading and its thresholds), a second reading's: each
    fitted only on the crops the first leaves without it (the second adds, never overrules)."""
    name_c, rank_c, top, top_rank = scores
    top_ink = inks[1]
    left_name = np.ones(len(truth), bool)
    left_rank = np.ones(len(truth), bool)
    left_ink = np.ones(len(truth), bool)
    if first is not None:
        (f_name, f_rank, f_top, _), (f_ink, _), (t, rt, ct) = first
        f_named, f_ranked = decisions(f_name, f_rank, f_top, t, rt)
        left_name, left_rank, left_ink = ~f_named, ~f_named & ~f_ranked, ~f_named & (f_ink < ct)
    name_ok = np.array([t == c for t, c in zip(top, truth, strict=True)])
    threshold = choose_threshold(np.where(left_name, name_c, 0.0), np.where(left_name, name_ok, True),
                                 max_false_rate)
    # a rank is read only where the card is not named: fit it on those crops' confidences
    named = name_c >= threshold
    rank_ok = np.array([t != BACK and r == _rank(t) for t, r in zip(truth, top_rank, strict=True)])
    rank_left = left_rank & ~named
    rank_threshold = choose_threshold(np.where(rank_left, rank_c, 0.0), np.where(rank_left, rank_ok, True),
                                      max_false_rank_rate)
    # an ink is read only where the card is not named, as a rank is (a false ink can say "no flush")
    ink_ok = np.array([ink_of(t) is not None and c == ink_of(t) for t, c in zip(truth, top_ink, strict=True)])
    ink_left = left_ink & ~named
    colour_threshold = max(0.5, choose_threshold(np.where(ink_left, inks[0], 0.0),
                                                 np.where(ink_left, ink_ok, True), max_false_colour_rate))
    return threshold, rank_threshold, colour_threshold


def fit_fan_reader(onnx_path: Path, data: Path | tuple[Path, ...], out: Path,
                   splits: tuple[str, ...] = ("test",), shifts: tuple[float, ...] | None = None,
                   peaks: bool = True,
                   min_index: float = DEFAULT_MIN_INDEX, max_false_rate: float = 0.001,
                   max_false_rank_rate: float = 0.0025, members: tuple[Path, ...] = (),
                   max_false_colour_rate: float = 0.001, box_member: Path | None = None,
                   box_data: tuple[Path, ...] = (), box_max_false_rank_rate: float | None = None,
                   spread: dict[str, Any] | None = None, max_false_count_rate: float | None = None
                   ) -> dict[str, Any]:
    """Fit the name and rank thresholds on ``data/val`` (several sets: their vals together), measure
    ``splits`` (likewise together), and write the reader
    (``fan_index.onnx`` + its JSON, each member as ``fan_member<k>.onnx`` + JSON, ``fan_reader.json``,
    ``fan_reader_metrics.json``) into ``out``. ``members``: classifiers over the same classes whose
    card reads are averaged in (``perception/fan_reader.py``); ``box_member``: a classifier of the
    fanned card whole, its crops in ``box_data`` (one set per set of ``data``), written as
    ``fan_box.onnx``; its rank budget ``box_max_false_rank_rate`` (default: the index's). ``spread``:
    how rows of cards are read (``spread_rows``, ``spread_zones``, ``row_agree``), written as given.
    ``max_false_count_rate``: the budget of the ranks sure enough to count a card for rule 60
    (``count_threshold``, fitted as the rank threshold is, on the index alone; None: only names count)."""
    clf = CardClassifier(onnx_path, threads=2)
    classes = list(clf.classes)
    if BACK not in classes:
        raise ValueError(f"{onnx_path}: no '{BACK}' class: not a fan-index classifier")
    data = (data,) if isinstance(data, Path) else tuple(data)
    extra = [CardClassifier(m, threads=2) for m in members]
    for m in extra:
        # the runtime gives a member the index cut itself, as these crops are (a corner model's own
        # view would cut the corner of it again)
        m.meta = dataclasses.replace(m.meta, view="card", tta="none")
        if list(m.classes) != classes:
            raise ValueError(f"{m.path}: other classes than {onnx_path}: cannot be a member")
    box = None
    if box_member is not None:
        if len(box_data) != len(data):
            raise ValueError(f"a box member needs one whole-card crop set per index crop set: {len(data)} "
                             f"index sets, {len(box_data)} box sets")
        box_clf = CardClassifier(box_member, threads=2)
        if set(box_clf.classes) - {BACK} != set(classes) - {BACK}:
            raise ValueError(f"{box_member}: other classes than {onnx_path}: cannot be a box member")
        box = (box_clf, tuple(box_data))
    scores, truth, kinds, inks, second = split_scores(clf, extra, data, "val", classes, min_index, box)
    thresholds = _fit(scores, inks, truth, max_false_rate, max_false_rank_rate, max_false_colour_rate)
    threshold, rank_threshold, colour_threshold = thresholds
    result: dict[str, Any] = {"reader": str(onnx_path), "members": [str(m) for m in members],
                              "data": [str(d) for d in data],
                              "temperature": clf.meta.temperature,
                              "threshold": threshold, "rank_threshold": rank_threshold,
                              "colour_threshold": colour_threshold,
                              "min_index": min_index, "max_false_rate": max_false_rate,
                              "max_false_rank_rate": max_false_rank_rate,
                              "max_false_colour_rate": max_false_colour_rate}
    count_threshold = None
    if max_false_count_rate is not None:
        # at least the rank threshold: a rank not read is not counted
        count_threshold = max(rank_threshold, _fit(scores, inks, truth, max_false_rate, max_false_count_rate,
                                                   max_false_colour_rate)[1])
        result |= {"count_threshold": count_threshold, "max_false_count_rate": max_false_count_rate}
    box_thresholds = None
    if box is not None and second is not None:
        second_scores, second_inks = second
        box_rank_rate = max_false_rank_rate if box_max_false_rank_rate is None else box_max_false_rank_rate
        box_thresholds = _fit(second_scores, second_inks, truth, max_false_rate, box_rank_rate,
                              max_false_colour_rate, first=(scores, inks, thresholds))
        result |= {"box_member": str(box_member), "box_data": [str(d) for d in box_data],
                   "box_thresholds": list(box_thresholds), "box_max_false_rank_rate": box_rank_rate}

    def measure(got: Scores, truth_s: list[str], kinds_s: list[str], inks_s: Inks,
                second_s: tuple[Scores, Inks] | None) -> dict[str, Any]:
        alone = (split_figures(*got, truth_s, kinds_s, threshold, rank_threshold)
                 | colour_figures(*inks_s, got[0], truth_s, kinds_s, threshold, colour_threshold))
        counted: dict[str, Any] = {}
        if count_threshold is not None:
            # the cards counted for rule 60: named by the index, or ranked at the count threshold with
            # the second reading (the card whole folded in) giving the same rank (fan_reader.decided)
            named, ranked = decisions(got[0], got[1], got[2], threshold, count_threshold)
            if second_s is not None and box_thresholds is not None:
                sb = second_s[0]
                s_named, s_ranked = decisions(sb[0], sb[1], sb[2], *box_thresholds[:2])
                said = [_rank(t) if n else (r if k else None)
                        for t, r, n, k in zip(sb[2], sb[3], s_named, s_ranked, strict=True)]
                ranked &= np.array([a == b for a, b in zip(got[3], said, strict=True)])
            c = figures(named, ranked, got[2], got[3], truth_s, kinds_s)
            keys = ("named_or_rank_of_shown", "false_ranks", "false_rank_rate")
            counted = {"counted": {k: c[k] for k in keys}}
        if second_s is None or box_thresholds is None:
            return alone | counted
        both = second_opinion_figures(got, second_s[0], inks_s, second_s[1], truth_s, kinds_s, thresholds,
                                      box_thresholds)
        return both | {"index_alone": alone} | counted

    result["val"] = measure(scores, truth, kinds, inks, second)
    for split in splits:
        if any((d / split).is_dir() for d in data):
            result[split] = measure(*split_scores(clf, extra, data, split, classes, min_index, box))
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(onnx_path, out / f"{READER_NAME}.onnx")
    meta = json.loads(onnx_path.with_suffix(".json").read_text())
    meta.update({"model": f"{READER_NAME}.onnx", "threshold": threshold})
    (out / f"{READER_NAME}.json").write_text(json.dumps(meta, indent=1))
    config: dict[str, Any] = {"reader": f"{READER_NAME}.onnx", "peaks": peaks, "min_index": min_index,
                              "rank_threshold": rank_threshold, "colour_threshold": colour_threshold}
    if members:
        config |= {"members": member_files(len(members)), "threshold": threshold}
        for src, name in zip(members, config["members"], strict=True):
            shutil.copy(src, out / name)
            member_meta = json.loads(src.with_suffix(".json").read_text()) | {"model": name}
            (out / name).with_suffix(".json").write_text(json.dumps(member_meta, indent=1))
    if count_threshold is not None:
        config["count_threshold"] = count_threshold
    if spread:
        config |= spread
    if box_member is not None:
        config |= {"box_member": f"{BOX_NAME}.onnx", "box_thresholds": box_thresholds}
        shutil.copy(box_member, out / f"{BOX_NAME}.onnx")
        box_meta = json.loads(box_member.with_suffix(".json").read_text()) | {"model": f"{BOX_NAME}.onnx"}
        (out / f"{BOX_NAME}.json").write_text(json.dumps(box_meta, indent=1))
    if shifts is not None:
        config["shifts"] = list(shifts)
    (out / FAN_READER_FILE).write_text(json.dumps(config, indent=1))
    (out / "fan_reader_metrics.json").write_text(json.dumps(result, indent=1))
    return result
