"""Scoring perception against a rendered frame's truth: what a recall or false-identity figure counts,
and the misread and missed cards it names, frame by frame."""

from __future__ import annotations

import numpy as np
import pytest

from monitor.perception.detections import Detection, Detections
from monitor.perception.scoring import FrameScore, in_frame_share, score_frame


def _quad(x: float, y: float) -> list[list[float]]:
    return [[x, y], [x + 50, y], [x + 50, y + 70], [x, y + 70]]


def _card(x: float, y: float, identity: str, kind: str = "card_face_up") -> Detection:
    return Detection(kind, 0.9, tuple((float(a), float(b)) for a, b in _quad(x, y)), identity, 0.99)


def _truth(x: float, y: float, identity: str, face_up: bool = True,
           visible: float = 1.0) -> dict[str, object]:
    return {"kind": "card", "polygon": _quad(x, y), "identity": identity, "face_up": face_up,
            "visible_share": visible}


def test_a_frame_names_its_misreads_and_the_cards_no_box_found() -> None:
    truth = [_truth(0, 0, "As"), _truth(100, 0, "Kd"), _truth(200, 0, "7c"),
             _truth(300, 0, "2h", face_up=False), _truth(400, 0, "9s", visible=0.5)]  # covered: not counted
    dets = Detections(1920, 1080, (_card(0, 0, "As"), _card(100, 0, "Kh"), _card(900, 500, "Qs")))
    s = score_frame(dets, truth, "test_000003")
    counts = (s.unoccluded, s.found, s.face_up, s.identity_correct, s.identity_wrong, s.spurious)
    assert counts == (4, 2, 2, 1, 1, 1)
    assert s.wrong == ["test_000003: Kd->Kh"]
    assert s.missed == ["test_000003: 7c at (225, 35)", "test_000003: back at (325, 35)"]
    total = FrameScore()
    total.add(s)
    total.add(score_frame(Detections(1920, 1080, ()), [_truth(0, 0, "Jk")]))  # no frame name: bare
    summary = total.summary()
    assert summary["recall"] == 2 / 5
    assert summary["missed"][-1] == "Jk at (25, 35)"
    assert summary["misreads"] == ["test_000003: Kd->Kh"]


def test_a_card_the_frames_edge_cuts_is_not_counted_unoccluded() -> None:
    """The renderer's visible share counts only cards lying over a card: one half out of the picture,
    whose box can only be the part in view, is covered by the frame's edge and not counted."""
    truth = [_truth(0, -35, "As"),  # half above the frame
             _truth(1880, 100, "Kd"),  # 10 of its 50 px past the right edge
             _truth(1870, 500, "Qh")]  # just inside
    s = score_frame(Detections(1920, 1080, ()), truth)
    assert s.unoccluded == 1 and s.missed == ["Qh at (1895, 535)"]
    assert in_frame_share(np.asarray(_quad(0, -35)), 1920, 1080) == pytest.approx(0.5)
    assert in_frame_share(np.asarray(_quad(10, 10)), 1920, 1080) == 1.0
    assert in_frame_share(np.zeros((4, 2)), 1920, 1080) == 0.0


def test_every_named_card_is_checked_against_the_cards_under_its_box() -> None:
    """Occluded cards too: a face over two cards named as a third is false, a back over face-up cards
    is false, a back over no card at all is counted apart."""
    truth = [_truth(0, 0, "As", visible=0.6), _truth(30, 0, "Kd", visible=0.7),  # a Kd over an As
             _truth(300, 0, "2h", face_up=False)]
    dets = Detections(1920, 1080, (
        _card(10, 0, "7c"),  # a box over both, named as neither: false
        _card(30, 0, "Kd"),  # the Kd, half covering the As: right
        _card(300, 0, "back", "card_face_down"),  # the face-down 2h: right
        _card(5, 0, "back", "card_face_down"),  # over the face-up As and Kd: false
        _card(900, 500, "back", "card_face_down"),  # over no card: a box on the felt read as a back
        _card(0, 0, "unknown")))  # not named: not counted
    s = score_frame(dets, truth, "val_000009")
    assert (s.named_faces, s.named_backs, s.backs_over_no_card) == (2, 3, 1)
    assert s.false_names == ["val_000009: 7c at (35, 35) over As+Kd",
                             "val_000009: back at (30, 35) over As+Kd"]
    assert s.wrong == []  # the misreads count unoccluded cards only: none of these
    total = FrameScore()
    total.add(s)
    assert total.summary()["false_names"] == 2 and total.summary()["backs_over_no_card"] == 1
