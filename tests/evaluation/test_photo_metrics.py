"""Scoring found cards against labelled photos: matching, the overlapped split, the figures."""

from __future__ import annotations

import math

from monitor.evaluation.photo_metrics import Found, Truth, match, overlapped_flags, summarise


def test_match_pairs_best_overlap_first_one_to_one() -> None:
    truths = [Truth((0, 0, 100, 140), "As"), Truth((200, 0, 300, 140), "Kd")]
    found = [Found((2, 2, 100, 140), "As", 0.99), Found((5, 5, 95, 135), "Qh", 0.9),
             Found((210, 0, 300, 150), None)]
    s = match(truths, found)
    assert s.pairs == (0, 2)  # the closer box wins truth 0; the second box over it matches nothing
    assert s.missed() == []
    assert s.misnamed() == [(None, 1)]  # a name where no labelled card is left over is false
    assert s.unnamed() == [1]


def test_a_box_under_half_overlap_is_a_miss() -> None:
    s = match([Truth((0, 0, 100, 100), "2c")], [Found((60, 0, 160, 100), "2c")])
    assert s.pairs == (None,)
    assert s.missed() == [0]
    assert s.misnamed() == [(None, 0)]


def test_overlapped_cards_are_told_apart() -> None:
    fan = [Truth((0, 0, 100, 140), "As"), Truth((30, 0, 130, 140), "Ks"), Truth((400, 0, 500, 140), "2d")]
    assert overlapped_flags(fan) == (True, True, False)


def test_summary_figures() -> None:
    truths = [Truth((0, 0, 100, 140), "As"), Truth((30, 0, 130, 140), "Ks"), Truth((400, 0, 500, 140), "2d")]
    found = [Found((0, 0, 100, 140), "As"), Found((30, 0, 130, 140), "Kd"),
             Found((600, 0, 700, 140), "unknown")]
    d = summarise([match(truths, found)]).to_dict()
    assert math.isclose(d["box_recall"], 2 / 3)
    assert math.isclose(d["box_precision"], 2 / 3)
    assert math.isclose(d["identity_precision"], 1 / 2)
    assert math.isclose(d["identity_recall"], 1 / 3)
    assert d["groups"]["clear"] == {"cards": 1, "boxed": 0, "named_right": 0, "named_wrong": 0, "unnamed": 0,
                                    "box_recall": 0.0, "identity_recall": 0.0}
    assert d["groups"]["overlapped"]["named_wrong"] == 1
    assert {"truth": "Ks", "said": "Kd", "n": 1} in d["confusions"]
    assert {"truth": "2d", "said": "(missed)", "n": 1} in d["confusions"]
    assert d["per_card"]["As"]["recall"] == 1.0 and d["per_card"]["Kd"]["precision"] == 0.0


def test_a_card_whose_both_index_corners_lie_under_others_is_counted_apart() -> None:
    under = Truth((100, 100, 200, 240), "5h")
    # one card over its top-left index, one over its bottom-right: both indices hidden
    cover = [Truth((60, 60, 140, 160), "As"), Truth((160, 200, 260, 300), "Kd")]
    s = match([under, *cover], [])
    assert s.index_covered == (True, False, False)
    # with one corner free its index is in view, though it is overlapped
    s = match([under, cover[0]], [])
    assert s.index_covered == (False, False) and s.overlapped == (True, True)
    d = summarise([match([under, *cover], [Found(under.box, "5h")])]).to_dict()
    assert d["groups"]["index_covered"]["named_right"] == 1 and d["groups"]["index_visible"]["cards"] == 2
    assert d["identity_recall_index_visible"] == 0.0
