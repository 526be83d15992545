"""Cards placed on the table from their indices: where the card lies, both indices of a card as one."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from monitor.calibration import load_table
from monitor.geometry import Rect
from monitor.perception.index_geometry import index_quads
from monitor.perception.index_reader import IndexRead
from monitor.tablestate.index_cards import card_of_index, index_cards

ROOT = Path(__file__).resolve().parents[1]
CAL = load_table(ROOT / "calibration" / "default-table.yaml")


def reads_of(cx: float, cy: float, names: tuple[str | None, str | None], ranks: tuple[str | None, str | None],
             angle: float = 20.0, size: tuple[float, float] = (63.0, 88.0)) -> list[IndexRead]:
    """The two index reads of a card lying at (cx, cy) mm, seen through the default camera."""
    px = CAL.table_to_image(Rect(cx, cy, size[0], size[1], angle).corners())
    return [IndexRead(q, 0.9, name, rank, name or "?", 0.99)
            for q, name, rank in zip(index_quads(px), names, ranks, strict=True)]


def test_an_index_says_where_its_card_lies() -> None:
    (a, b) = reads_of(-450.0, 250.0, ("Qc", "Qc"), (None, None))
    for r in (a, b):
        c = card_of_index(r, CAL, CAL.image_size)
        assert c is not None and abs(c[0] + 450) < 6 and abs(c[1] - 250) < 6


def test_the_two_indices_of_a_card_are_one_card_keeping_what_they_agree_on() -> None:
    size = CAL.image_size
    cards = index_cards(reads_of(-450.0, 250.0, ("Ks", "Kc"), (None, None)), "seat2.back", CAL, size)
    assert [(c.card, c.rank, c.indices) for c in cards] == [(None, "K", 2)]  # suits differ: the rank stands
    cards = index_cards(reads_of(-450.0, 250.0, ("Ks", None), (None, None)), "seat2.back", CAL, size)
    assert [(c.card, c.rank) for c in cards] == [("Ks", None)]  # one unread index vetoes nothing
    two = reads_of(-450.0, 250.0, ("6d", None), (None, None)) + reads_of(-420.0, 250.0, ("8d", None),
                                                                          (None, "8"))
    cards = index_cards(two, "seat2.back", CAL, CAL.image_size)
    assert sorted(c.card or "" for c in cards) == ["6d", "8d"]  # a fan: 30 mm apart, two cards


def test_an_index_whose_card_would_not_be_card_sized_is_dropped() -> None:
    tiny = reads_of(-450.0, 250.0, ("Qc", "Qc"), (None, None), size=(30.0, 40.0))
    assert index_cards(tiny, "seat2.back", CAL, CAL.image_size) == []
    # the same card in a 4K frame of the same camera is the same card
    big = [IndexRead(r.quad * 2, r.score, r.card, r.rank, r.top, r.confidence)
           for r in reads_of(-450.0, 250.0, ("Qc", "Qc"), (None, None))]
    w, h = CAL.image_size
    assert len(index_cards(big, "seat2.back", CAL, (2 * w, 2 * h))) == 1
    assert np.isfinite(index_cards(big, "seat2.back", CAL, (2 * w, 2 * h))[0].x)
