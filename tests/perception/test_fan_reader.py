"""The fan reader: index corners of the detector's card boxes, read at the shift surest of an index."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from monitor.perception.errors import ModelFileError
from monitor.perception.fan_reader import FanReader, corner_cards, load_fan_reader, shifted_index_quads
from monitor.perception.index_geometry import index_quads
from tests.support.paths import DATA, MODELS, TABLE_FILE

CARD = np.array([[100, 60], [160, 60], [160, 144], [100, 144]], float)  # upright, 60 x 84 px


@pytest.fixture()
def reader_dir(tmp_path: Path) -> Path:
    """A fan reader over the shipped index-corner classifier (it has the classes and the back)."""
    for name in ("cards_corner.onnx", "cards_corner.json"):
        shutil.copy(MODELS / name, tmp_path / name)
    (tmp_path / "fan_reader.json").write_text(json.dumps({"reader": "cards_corner.onnx",
                                                          "shifts": [-0.1, 0.0, 0.1]}))
    return tmp_path


class _Backend:
    """Answers every crop with set probabilities: per crop in order, from ``rows``."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows

    def run(self, x: np.ndarray) -> list[np.ndarray]:
        assert len(x) == len(self.rows)
        return [self.rows]


def test_each_box_is_read_from_both_corners_at_each_shift() -> None:
    one, two = corner_cards(CARD)
    assert np.allclose(one[0], CARD[0]) and np.allclose(two[0], CARD[2])
    quads = shifted_index_quads(one, (-0.1, 0.0, 0.1))
    assert np.allclose(quads[1], index_quads(CARD)[0])
    assert np.allclose(quads[2] - quads[1], [[6, 0]] * 4)  # a tenth of the 60 px top edge


def test_the_shift_surest_of_an_index_is_read_and_corners_with_none_are_dropped(reader_dir: Path) -> None:
    fan = FanReader(reader_dir / "fan_reader.json")
    n = len(fan.classes)
    back, seven, king = fan.classes.index("back"), fan.classes.index("7h"), fan.classes.index("Ks")
    rows = np.full((6, n), 1e-6)
    # the box's own corner: off the index, then on the seven, then half on; the far corner: covered
    rows[0, back], rows[1, seven], rows[2, [back, king]] = 1.0, 1.0, 0.5
    rows[3:, back] = 1.0
    fan.backend = _Backend(rows / rows.sum(axis=1, keepdims=True))
    fan.meta = fan.meta.__class__(**{**{f: getattr(fan.meta, f) for f in fan.meta.__slots__},
                                     "temperature": 1.0, "outputs_are_probabilities": True})
    reads = fan.read_cards(np.zeros((240, 400, 3), np.uint8), [CARD])
    assert len(reads) == 1
    r = reads[0]
    assert r.card == "7h" and r.top == "7h" and r.score > 0.99
    assert np.allclose(r.quad, index_quads(CARD)[0])


def test_only_cards_centred_in_the_regions_are_read(reader_dir: Path) -> None:
    fan = FanReader(reader_dir / "fan_reader.json")
    seen: list[int] = []
    fan.read_cards = lambda frame, cards: seen.append(len(cards)) or []  # type: ignore[method-assign]
    frame = np.zeros((240, 400, 3), np.uint8)
    fan.read(frame, [(0, 0, 200, 240)], [CARD, CARD + np.array([200, 0])])
    fan.read(frame, None, [CARD, CARD + np.array([200, 0])])
    assert seen == [1, 2]


def test_a_models_folder_without_a_fan_reader_has_none(tmp_path: Path) -> None:
    assert load_fan_reader(tmp_path) is None


@pytest.mark.parametrize("config, why", [
    ("{not json", "malformed"),
    (json.dumps({"shifts": [0.0]}), "malformed"),
    (json.dumps({"reader": "cards_corner.onnx", "shifts": [0.9]}), "within"),
    (json.dumps({"reader": "cards_corner.onnx", "min_index": 1.5}), "min_index"),
    (json.dumps({"reader": "missing.onnx"}), "not found"),
])
def test_a_bad_fan_reader_file_says_what_is_wrong(reader_dir: Path, config: str, why: str) -> None:
    (reader_dir / "fan_reader.json").write_text(config)
    with pytest.raises(ModelFileError, match=why):
        FanReader(reader_dir / "fan_reader.json")


def test_fitted_scores_read_as_the_runtime_reads() -> None:
    from monitor.training.fan_reader_fit import runtime_scores, split_figures

    classes = ["7c", "7h", "Ks", "back"]
    prob = np.array([[0.00, 0.99, 0.00, 0.01],   # a seven of hearts, sure
                     [0.48, 0.48, 0.00, 0.04],   # a seven, suit in doubt
                     [0.00, 0.00, 0.30, 0.70],   # mostly no index: dropped below min_index 0.5
                     [0.00, 0.00, 0.95, 0.05]])  # a king, on a covered corner: accepted, wrong
    name, rank, top, top_rank = runtime_scores(prob, classes, 0.5)
    assert top[0] == "7h" and name[0] > 0.98 and rank[1] > 0.95 and top_rank[1] == "7"
    assert name[2] == 0.0 and rank[2] == 0.0
    fig = split_figures(name, rank, top, top_rank, ["7h", "7c", "back", "back"], ["t", "j", "s", "c"],
                        threshold=0.9, rank_threshold=0.9)
    assert fig["named_of_shown"] == 0.5 and fig["named_or_rank_of_shown"] == 1.0
    assert fig["false_names"] == 1 and fig["false_ranks"] == 0
    assert fig["by_kind"] == {"t": 1, "j": 1, "c": 1, "s": 1}
    from monitor.training.fan_reader_fit import colour_figures, colour_scores

    ink, top_ink = colour_scores(prob, classes, 0.5)
    assert top_ink[:2] == ["red", "black"] and ink[1] > 0.45 and ink[2] == 0.0  # 7c = 7h: a coin toss
    inks = colour_figures(ink, top_ink, name, ["7h", "7c", "back", "back"], ["t", "j", "s", "c"],
                          threshold=0.999, colour_threshold=0.9)
    # none named at 0.999: the seven of hearts' ink read, the seven in doubt (red or black at 0.5 each)
    # not; the king on a covered corner: a false ink
    assert inks["colour_of_unnamed_shown"] == 0.5 and inks["false_colours"] == 1


def test_a_rank_is_read_at_its_own_threshold(reader_dir: Path) -> None:
    cfg = json.loads((reader_dir / "fan_reader.json").read_text())
    (reader_dir / "fan_reader.json").write_text(json.dumps({**cfg, "rank_threshold": 0.9, "peaks": True}))
    fan = FanReader(reader_dir / "fan_reader.json")
    assert fan.rank_threshold == 0.9 and fan.peaks and fan.shifts == (-0.1, 0.0, 0.1)
    n = len(fan.classes)
    seven_c, seven_h = fan.classes.index("7c"), fan.classes.index("7h")
    back = fan.classes.index("back")
    rows = np.full((6, n), 1e-6)
    rows[[0, 2], back] = 1.0
    rows[1, [seven_c, seven_h]] = 0.5  # a seven, either red or black: not named, its rank read
    rows[3:, back] = 1.0
    fan.backend = _Backend(rows / rows.sum(axis=1, keepdims=True))
    fan.meta = fan.meta.__class__(**{**{f: getattr(fan.meta, f) for f in fan.meta.__slots__},
                                     "temperature": 1.0, "outputs_are_probabilities": True})
    (r,) = fan.read_cards(np.zeros((240, 400, 3), np.uint8), [CARD])
    assert r.card is None and r.rank == "7" and r.colour is None  # no colour threshold: inks not read


@pytest.mark.parametrize("doubt, ink", [(("7h", "7d"), "red"), (("Ks", "7c"), "black"), (("7h", "7c"), None)])
def test_an_ink_is_read_at_its_own_threshold_where_the_card_is_not_named(
        reader_dir: Path, doubt: tuple[str, str], ink: str | None) -> None:
    cfg = json.loads((reader_dir / "fan_reader.json").read_text())
    (reader_dir / "fan_reader.json").write_text(json.dumps({**cfg, "colour_threshold": 0.95}))
    fan = FanReader(reader_dir / "fan_reader.json")
    rows = np.full((6, len(fan.classes)), 1e-6)
    rows[[0, 2, 3, 4, 5], fan.classes.index("back")] = 1.0
    rows[1, [fan.classes.index(c) for c in doubt]] = 0.5  # two cards, not named
    fan.backend = _Backend(rows / rows.sum(axis=1, keepdims=True))
    fan.meta = fan.meta.__class__(**{**{f: getattr(fan.meta, f) for f in fan.meta.__slots__},
                                     "temperature": 1.0, "outputs_are_probabilities": True})
    (r,) = fan.read_cards(np.zeros((240, 400, 3), np.uint8), [CARD])
    assert r.card is None and r.colour == ink


def test_a_rank_is_sure_enough_to_count_only_at_the_count_threshold(reader_dir: Path) -> None:
    """Rule 60 counts a card by its rank and ink only where the rank reached ``count_threshold`` (a
    tighter budget than the rank's: a wrong rank there is a false misdeal); a name always counts."""
    from monitor.perception.index_reader import IndexRead

    cfg = json.loads((reader_dir / "fan_reader.json").read_text())

    def reader(**extra: float) -> FanReader:
        (reader_dir / "fan_reader.json").write_text(json.dumps({**cfg, "rank_threshold": 0.8,
                                                                "threshold": 0.99, **extra}))
        return FanReader(reader_dir / "fan_reader.json")

    def read_one(fan: FanReader, seven_c: float, seven_h: float, eight: float = 1e-6) -> IndexRead:
        n, back = len(fan.classes), fan.classes.index("back")
        rows = np.full((6, n), 1e-6)
        rows[[0, 2, 3, 4, 5], back] = 1.0
        rows[1, [fan.classes.index("7c"), fan.classes.index("7h"), fan.classes.index("8c")]] = [
            seven_c, seven_h, eight]
        fan.backend = _Backend(rows / rows.sum(axis=1, keepdims=True))
        fan.meta = fan.meta.__class__(**{**{f: getattr(fan.meta, f) for f in fan.meta.__slots__},
                                         "temperature": 1.0, "outputs_are_probabilities": True})
        (r,) = fan.read_cards(np.zeros((240, 400, 3), np.uint8), [CARD])
        return r

    fan = reader(count_threshold=0.95)
    r = read_one(fan, 0.45, 0.45, 0.1)  # a seven at 0.9 (an eight at 0.1): read, not counted
    assert r.rank == "7" and not r.sure
    r = read_one(fan, 0.49, 0.49)  # a seven at ~0.98: counted
    assert r.rank == "7" and r.sure
    r = read_one(fan, 1e-6, 0.999)  # named: counted as named
    assert r.card == "7h" and r.sure
    fan = reader()
    assert fan.count_threshold is None
    r = read_one(fan, 0.49, 0.49)  # no count threshold: a rank is never counted, only names
    assert r.rank == "7" and not r.sure
    with pytest.raises(ModelFileError, match="count_threshold"):
        reader(count_threshold=0.7)  # under the rank threshold: a rank not read cannot count


def test_a_colour_threshold_at_a_coin_toss_is_refused(reader_dir: Path) -> None:
    (reader_dir / "fan_reader.json").write_text(json.dumps({"reader": "cards_corner.onnx",
                                                            "colour_threshold": 0.4}))
    with pytest.raises(ModelFileError, match="colour_threshold"):
        FanReader(reader_dir / "fan_reader.json")


def test_peaks_keep_every_index_a_box_edge_passes_apart(reader_dir: Path) -> None:
    cfg = {"reader": "cards_corner.onnx", "peaks": True}
    (reader_dir / "fan_reader.json").write_text(json.dumps(cfg))
    fan = FanReader(reader_dir / "fan_reader.json")
    assert len(fan.shifts) == 19 and fan.shifts[0] == -0.45
    index_p = np.zeros(19)
    index_p[[3, 4, 9, 15]] = [0.9, 0.8, 0.95, 0.7]  # two indices the box passes, its own, one more
    # 4 is the same index as 3 (0.05 of a width apart)
    assert fan.index_peaks(index_p, fan.shifts)[:3] == [9, 3, 15]


def test_reads_of_one_index_from_several_boxes_are_pooled() -> None:
    from monitor.perception.fan_reader import CornerRead, pooled

    quad = index_quads(CARD)[0]
    seven, king = np.zeros(4), np.zeros(4)
    seven[0], king[1] = 1.0, 1.0
    reads = [CornerRead(quad, 0.9, seven), CornerRead(quad + 2.0, 0.6, seven * 0.5 + king * 0.5),
             CornerRead(quad + np.array([30.0, 0.0]), 0.8, king),      # the next card's index
             CornerRead(index_quads(CARD)[1], 0.7, king)]                # the far corner, turned
    out = pooled(reads)
    assert len(out) == 3
    first = out[0]
    assert np.allclose(first.quad, quad) and first.index_p == 0.9
    assert np.isclose(first.probs[0], (0.9 + 0.3) / 1.5)  # weighted by how sure each is of an index


def test_the_shipped_fan_reader_reads_a_held_out_fanned_hand() -> None:
    """Seat 7's hands turned up in a fault recording (the vector deck, never trained on; the chain's
    card boxes there): the shipped reader reads most of the seven cards and misreads none."""
    import cv2

    from monitor.calibration.table_file import load_table
    from monitor.tablestate.index_cards import index_cards

    data = DATA
    fix = json.loads((data / "fan_seat7_showdown.json").read_text())
    x0, y0, x1, y1 = fix["region"]
    frame = np.zeros((1080, 1920, 3), np.uint8)
    frame[y0:y1, x0:x1] = cv2.imread(str(data / "fan_seat7_showdown.png"))
    fan = load_fan_reader(MODELS)
    assert fan is not None, "models/fan_reader.json is shipped"
    reads = fan.read(frame, [tuple(fix["region"])], [np.asarray(c) for c in fix["cards"]])
    cal = load_table(TABLE_FILE)
    cards = index_cards(reads, "seat7", cal, (1920, 1080))
    truth = fix["truth"]["seat7.front"] + fix["truth"]["seat7.back"]
    named = [c.card for c in cards if c.card]
    ranks = [c.rank for c in cards if c.rank]
    assert set(named) <= set(truth)  # nothing misnamed
    left = [t[0] for t in truth if t not in named]
    for r in ranks:  # each rank read is one of the cards not named
        assert r in left
        left.remove(r)
    assert len(named) + len(ranks) >= 5
    # inks (the shipped reader reads them): each one read of a card not named is the ink of a card
    # of the hand not named
    from monitor.rules.cards import INK

    unnamed_inks = [INK[t[1]] for t in truth if t not in named and t != "Jk"]
    inks = [c.colour for c in cards if c.colour]
    assert fan.colour_threshold is not None and inks
    for ink in inks:
        assert ink in unnamed_inks
        unnamed_inks.remove(ink)


def test_an_ensemble_names_on_the_geometric_mean_and_keeps_the_readers_no_index() -> None:
    from monitor.perception.fan_reader import ensemble_probabilities

    back = 3  # classes 7c 7h Ks back
    reader = np.array([[0.05, 0.90, 0.00, 0.05], [0.0, 0.0, 0.2, 0.8]])
    member = np.array([[0.10, 0.80, 0.05, 0.05], [0.0, 0.0, 1.0, 0.0]])
    assert ensemble_probabilities(reader, [], back) is reader
    p = ensemble_probabilities(reader, [member], back)
    assert np.allclose(p.sum(axis=1), 1.0) and np.allclose(p[:, back], reader[:, back])
    g = np.sqrt(np.array([0.05, 0.90, 1e-12 * 0.95]) * np.array([0.10, 0.80, 0.05])) / 0.95
    assert np.allclose(p[0, :3], g / g.sum() * 0.95, atol=1e-6)
    # a member sure of another card pulls the name down: disagreement is doubt
    doubt = ensemble_probabilities(reader, [np.array([[0.9, 0.05, 0.0, 0.05], member[1]])], back)
    assert doubt[0, 1] < 0.6 < reader[0, 1]


@pytest.fixture()
def ensemble_dir(reader_dir: Path) -> Path:
    """The reader above with one member (the same classifier under another name) and its own threshold."""
    for ext in ("onnx", "json"):
        shutil.copy(reader_dir / f"cards_corner.{ext}", reader_dir / f"fan_member1.{ext}")
    cfg = json.loads((reader_dir / "fan_reader.json").read_text())
    (reader_dir / "fan_reader.json").write_text(json.dumps({**cfg, "members": ["fan_member1.onnx"],
                                                            "threshold": 0.97}))
    return reader_dir


def test_members_read_only_the_cuts_the_reader_chose(ensemble_dir: Path) -> None:
    fan = FanReader(ensemble_dir / "fan_reader.json")
    assert fan.threshold == 0.97 and len(fan.members) == 1
    n = len(fan.classes)
    back, seven_h, seven_c = fan.classes.index("back"), fan.classes.index("7h"), fan.classes.index("7c")
    rows = np.full((6, n), 1e-6)
    rows[[0, 2], back] = 1.0
    rows[1, [seven_h, seven_c]] = 0.99, 0.01  # the reader alone would name the seven of hearts
    rows[3:, back] = 1.0
    sure = fan.meta.__class__(**{**{f: getattr(fan.meta, f) for f in fan.meta.__slots__},
                                 "temperature": 1.0, "outputs_are_probabilities": True})
    fan.backend, fan.meta = _Backend(rows / rows.sum(axis=1, keepdims=True)), sure
    member = np.full((1, n), 1e-6)
    member[0, [seven_h, seven_c]] = 0.1, 0.9  # the member: rather the seven of clubs
    fan.members = [(sure, _Backend(member / member.sum()))]  # asserts it is given the one cut
    (r,) = fan.read_cards(np.zeros((240, 400, 3), np.uint8), [CARD])
    assert r.top == "7h" and r.card is None and r.rank == "7"  # the members disagree on the suit only
    assert np.allclose(r.quad, index_quads(CARD)[0])


def test_a_member_over_other_classes_is_refused(ensemble_dir: Path) -> None:
    meta = json.loads((ensemble_dir / "fan_member1.json").read_text())
    meta["classes"] = meta["classes"][::-1]
    (ensemble_dir / "fan_member1.json").write_text(json.dumps(meta))
    with pytest.raises(ModelFileError, match="other classes"):
        FanReader(ensemble_dir / "fan_reader.json")


def test_a_fit_over_two_crop_sets_with_a_member_writes_a_reader_the_runtime_loads(tmp_path: Path) -> None:
    """`train fan-reader --data A,B --members M`: both sets' val crops fit, both tests measure, the
    member is copied beside the reader under its own name, and the runtime loads what was written."""
    import cv2

    from monitor.training.fan_reader_fit import fit_fan_reader

    rng = np.random.default_rng(0)
    sets = []
    for k in range(2):
        root = tmp_path / f"set{k}"
        for split in ("val", "test"):
            for cls, kind in (("7h", "t"), ("Ks", "j"), ("back", "c")):
                d = root / split / cls
                d.mkdir(parents=True)
                for i in range(3):
                    noise = rng.integers(0, 255, (64, 64, 3), np.uint8)
                    cv2.imwrite(str(d / f"{split}_{i}_{kind}.jpg"), noise)
        sets.append(root)
    out = tmp_path / "reader"
    result = fit_fan_reader(MODELS / "cards_corner.onnx", tuple(sets), out, ("test",),
                            members=(MODELS / "cards_corner.onnx",))
    assert result["val"]["crops"] == 18 and result["test"]["crops"] == 18
    assert result["val"]["by_kind"] == {"t": 6, "j": 6, "c": 6, "s": 0}
    cfg = json.loads((out / "fan_reader.json").read_text())
    assert cfg["members"] == ["fan_member1.onnx"] and cfg["threshold"] == result["threshold"]
    assert json.loads((out / "fan_member1.json").read_text())["model"] == "fan_member1.onnx"
    fan = FanReader(out / "fan_reader.json")
    assert len(fan.members) == 1 and fan.threshold == result["threshold"]


def test_an_index_read_implies_its_cards_outline() -> None:
    from monitor.perception.fan_reader import implied_card

    assert np.allclose(implied_card(index_quads(CARD)[0]), CARD)
    far = corner_cards(CARD)[1]
    assert np.allclose(implied_card(index_quads(far)[0]), far)  # the far index: the card turned


def test_a_box_read_folds_in_where_the_index_has_a_box_and_nowhere_else() -> None:
    from monitor.perception.fan_reader import ensemble_probabilities, with_box_reads

    back = 3  # classes 7c 7h Ks back
    reads = np.array([[0.10, 0.85, 0.00, 0.05], [0.30, 0.60, 0.05, 0.05]])
    boxes = np.array([[0.0, 0.0, 1.0, 0.0], [0.02, 0.95, 0.02, 0.01]])
    out = with_box_reads(reads, [1, None], boxes, back)
    assert np.allclose(out[0], ensemble_probabilities(reads[:1], [boxes[1:]], back)[0])
    assert out[0, 1] > reads[0, 1] and out[0, back] == reads[0, back]  # the box agrees: surer, same "index"
    assert np.array_equal(out[1], reads[1])  # no box: read alone
    assert np.array_equal(with_box_reads(reads, [None, None], boxes, back), reads)


@pytest.fixture()
def box_dir(reader_dir: Path) -> Path:
    """The reader above with a box member (the shipped whole-card classifier: same classes)."""
    for ext in ("onnx", "json"):
        shutil.copy(MODELS / f"cards.{ext}", reader_dir / f"fan_box.{ext}")
    cfg = json.loads((reader_dir / "fan_reader.json").read_text())
    (reader_dir / "fan_reader.json").write_text(json.dumps({**cfg, "box_member": "fan_box.onnx",
                                                            "box_thresholds": [0.9, 0.9, None]}))
    return reader_dir


def test_the_box_member_reads_the_card_the_index_read_implies(box_dir: Path) -> None:
    fan = FanReader(box_dir / "fan_reader.json")
    assert fan.box_member is not None
    n = len(fan.classes)
    back, seven_h, seven_c = fan.classes.index("back"), fan.classes.index("7h"), fan.classes.index("7c")
    rows = np.full((6, n), 1e-6)
    rows[[0, 2], back] = 1.0
    rows[1, [seven_h, seven_c]] = 0.6, 0.4  # the index alone: a seven, the suit in doubt
    rows[3:, back] = 1.0
    sure = fan.meta.__class__(**{**{f: getattr(fan.meta, f) for f in fan.meta.__slots__},
                                 "temperature": 1.0, "outputs_are_probabilities": True})
    fan.backend, fan.meta = _Backend(rows / rows.sum(axis=1, keepdims=True)), sure
    fan.threshold, fan.box_member = 0.9, None
    (alone,) = fan.read_cards(np.zeros((240, 400, 3), np.uint8), [CARD])
    assert alone.card is None and alone.top == "7h"
    box = np.full((1, n), 1e-6)
    box[0, seven_h] = 1.0  # the strip beside the index: hearts
    fan.box_member = (sure, _Backend(box / box.sum()))  # asserts it is given the one card
    (r,) = fan.read_cards(np.zeros((240, 400, 3), np.uint8), [CARD])
    assert r.card == "7h" and r.confidence > 0.9
    assert np.allclose(r.quad, index_quads(CARD)[0])


@pytest.mark.parametrize("whole, counted", [("7h", True), ("5c", False)])
def test_a_rank_counts_only_where_the_card_read_whole_gives_it_too(box_dir: Path, whole: str,
                                                                    counted: bool) -> None:
    """An index rank at the count threshold counts for rule 60 only where the second reading (the card
    whole folded in) reads the same rank (clean_1047: a three read as a five, 0.97 by its index, 0.16
    with its card whole: a false third black five)."""
    cfg = json.loads((box_dir / "fan_reader.json").read_text())
    (box_dir / "fan_reader.json").write_text(json.dumps({**cfg, "rank_threshold": 0.8, "count_threshold": 0.9,
                                                         "box_thresholds": [0.99, 0.7, None]}))
    fan = FanReader(box_dir / "fan_reader.json")
    n = len(fan.classes)
    back = fan.classes.index("back")
    rows = np.full((6, n), 1e-6)
    rows[[0, 2, 3, 4, 5], back] = 1.0
    rows[1, [fan.classes.index("7h"), fan.classes.index("7c")]] = 0.6, 0.4  # a seven, surely; suit in doubt
    sure = fan.meta.__class__(**{**{f: getattr(fan.meta, f) for f in fan.meta.__slots__},
                                 "temperature": 1.0, "outputs_are_probabilities": True})
    fan.backend, fan.meta = _Backend(rows / rows.sum(axis=1, keepdims=True)), sure
    box = np.full((1, n), 1e-6)
    box[0, fan.classes.index(whole)] = 1.0
    fan.box_member = (sure, _Backend(box / box.sum()))
    (r,) = fan.read_cards(np.zeros((240, 400, 3), np.uint8), [CARD])
    assert r.rank == "7" or r.card == "7h"
    assert r.sure is counted


def test_a_box_member_over_other_cards_is_refused_in_another_order_mapped(box_dir: Path) -> None:
    from monitor.perception.fan_reader import in_classes

    # a classifier of whole cards need not have learned "no index here", nor list its cards in order
    p = in_classes(np.array([[0.7, 0.2, 0.1]]), ["Ks", "7c", "7h"], ["7c", "7h", "Ks", "back"])
    assert np.allclose(p, [[0.2, 0.1, 0.7, 0.0]])
    meta = json.loads((box_dir / "fan_box.json").read_text())
    meta["classes"] = [c for c in meta["classes"] if c != "back"][::-1]
    (box_dir / "fan_box.json").write_text(json.dumps(meta))
    assert FanReader(box_dir / "fan_reader.json").box_member is not None
    meta["classes"] = [c for c in meta["classes"] if c != "7h"]  # a card it never learned
    (box_dir / "fan_box.json").write_text(json.dumps(meta))
    with pytest.raises(ModelFileError, match="box member"):
        FanReader(box_dir / "fan_reader.json")


def test_a_fit_with_a_box_member_pairs_each_index_with_its_cards_whole_crop(tmp_path: Path) -> None:
    """`train fan-reader --box-member B --box-data C`: an index crop that shows is read with the
    whole-card crop of its card (same window, same card), covered corners alone; the runtime loads
    the reader written."""
    import cv2

    from monitor.training.fan_reader_fit import box_crop, fit_fan_reader

    rng = np.random.default_rng(0)
    index_root, box_root = tmp_path / "index", tmp_path / "box"
    for split in ("val", "test"):
        for cls, tag, kind in (("7h", "00", "t"), ("7h", "01", "c"), ("Ks", "10", "t"), ("Ks", "11", "j")):
            label = "back" if kind == "c" else cls
            for root, name in ((index_root, f"{split}_000001_{tag}_{kind}.jpg"),
                               (box_root, f"{split}_000001_{tag[0]}_{kind}.jpg")):
                if root is box_root and kind == "c":
                    continue
                d = root / split / (label if root is index_root else cls)
                d.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(d / name), rng.integers(0, 255, (64, 64, 3), np.uint8))
    assert box_crop(index_root / "val" / "Ks" / "val_000001_11_j.jpg", box_root, "val") == \
        box_root / "val" / "Ks" / "val_000001_1_j.jpg"
    from monitor.perception.identity import CardClassifier
    from monitor.training.fan_reader_fit import split_scores

    reader, box = CardClassifier(MODELS / "cards_corner.onnx"), CardClassifier(MODELS / "cards.onnx")
    classes = list(reader.classes)
    (alone, *_), truth, kinds, _, none = split_scores(reader, [], (index_root,), "val", classes, 0.0)
    (same, *_), _, _, _, second = split_scores(reader, [], (index_root,), "val", classes, 0.0,
                                               (box, (box_root,)))
    assert none is None and second is not None and np.array_equal(same, alone)
    (fused, *_), _ = second
    assert kinds == ["t", "t", "j", "c"] and truth == ["7h", "Ks", "Ks", "back"]
    assert np.all(fused[:3] != alone[:3]) and fused[3] == alone[3]  # the covered corner: read alone
    out = tmp_path / "reader"
    spread = {"spread_rows": "first", "spread_zones": ["banker"], "row_agree": 0.05}
    result = fit_fan_reader(MODELS / "cards_corner.onnx", (index_root,), out, ("test",),
                            box_member=MODELS / "cards.onnx", box_data=(box_root,), spread=spread)
    assert result["val"]["crops"] == 4 and result["box_member"].endswith("cards.onnx")
    cfg = json.loads((out / "fan_reader.json").read_text())
    assert cfg["box_member"] == "fan_box.onnx" and cfg["box_thresholds"] == result["box_thresholds"]
    assert {k: cfg[k] for k in spread} == spread  # how rows are read, written as given
    assert "index_alone" in result["test"]  # the index read alone, measured beside
    fan = FanReader(out / "fan_reader.json")
    assert fan.box_member is not None and fan.box_thresholds == tuple(result["box_thresholds"])
    assert (fan.spread_rows, fan.spread_zones, fan.row_agree) == ("first", ("banker",), 0.05)
    with pytest.raises(ValueError, match="one whole-card crop set per index crop set"):
        fit_fan_reader(MODELS / "cards_corner.onnx", (index_root,), out, box_member=MODELS / "cards.onnx")


def test_a_second_reading_adds_what_the_index_left_unread_and_never_overrules_it() -> None:
    from monitor.perception.fan_reader import second_opinion
    from monitor.perception.index_reader import IndexRead

    q = index_quads(CARD)[0]

    def read(card: str | None, rank: str | None = None, colour: str | None = None) -> IndexRead:
        return IndexRead(q, 0.99, card, rank, card or "7h", 0.5, colour)

    named = read("7h")
    assert second_opinion(named, read("8h")) is named  # a name stands
    assert second_opinion(read(None, "7"), read("7c")).card == "7c"  # the name of the rank it read
    kept = second_opinion(read(None, "7"), read("8c"))  # a name of another rank: the rank stands
    assert kept.card is None and kept.rank == "7"
    red = second_opinion(read(None, None, "red"), read("7c"))  # a black name against a red ink: no name
    assert red.card is None and red.colour == "red"
    filled = second_opinion(read(None), read(None, "Q", "black"))
    assert filled.card is None and filled.rank == "Q" and filled.colour == "black"
    assert second_opinion(read(None, "Q"), read(None, "K")).rank == "Q"
    # a six or a nine is taken from the card read whole only where the index's best guess has that
    # rank (the card may be seen turned, the index never is): read() guesses 7h
    nine = second_opinion(read(None), read("9c"))
    assert nine.card is None and nine.rank is None and nine.colour == "black"
    assert second_opinion(read(None), read(None, "6")).rank is None
    assert second_opinion(read(None, "9"), read("9c")).card == "9c"  # the index read the nine
    guess_six = IndexRead(q, 0.99, None, None, "6d", 0.8, None)
    assert second_opinion(guess_six, read(None, "6", "red")).rank == "6"


@pytest.mark.parametrize("thresholds", [None, [0.9, 0.9], [0.9, 1.5, None]])
def test_a_box_member_without_good_thresholds_is_refused(box_dir: Path, thresholds: object) -> None:
    cfg = json.loads((box_dir / "fan_reader.json").read_text())
    (box_dir / "fan_reader.json").write_text(json.dumps({**cfg, "box_thresholds": thresholds}))
    with pytest.raises(ModelFileError, match="box_thresholds"):
        FanReader(box_dir / "fan_reader.json")


def test_a_rows_read_stands_where_the_card_read_whole_gives_its_rank() -> None:
    from monitor.perception.fan_reader import agreed
    from monitor.perception.index_reader import IndexRead

    classes = ("9h", "9s", "6d", "Td", "Jk", "back")
    quad = index_quads(CARD)[0]
    nine = IndexRead(quad, 0.99, None, "9", "9h", 0.88, "red")
    ten_whole = np.array([0.01, 0.0, 0.0, 0.97, 0.0, 0.02])  # a ten's pip read as a nine beside its index
    left = agreed(nine, ten_whole, classes, 0.05)
    assert (left.card, left.rank, left.colour) == (None, None, None)  # a card found, nothing said of it
    assert agreed(nine, np.array([0.03, 0.03, 0.0, 0.94, 0.0, 0.0]), classes, 0.05) == nine  # 0.06 >= 0.05
    # a six or a nine read whole may be the card turned: either stands for the other
    assert agreed(nine, np.array([0.0, 0.0, 0.9, 0.1, 0.0, 0.0]), classes, 0.05) == nine
    joker = IndexRead(quad, 0.99, "Jk", None, "Jk", 0.95)
    assert agreed(joker, np.array([0.0, 0.0, 0.0, 0.99, 0.01, 0.0]), classes, 0.05).card is None
    assert agreed(joker, np.array([0.0, 0.0, 0.0, 0.5, 0.5, 0.0]), classes, 0.05) == joker
    unread = IndexRead(quad, 0.99, None, None, "Td", 0.4)
    assert agreed(unread, ten_whole, classes, 0.05) == unread
