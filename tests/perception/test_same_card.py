"""One card boxed twice in a still, named alike by both boxes, is kept once; nothing else changes."""

from __future__ import annotations

from monitor.perception.detections import Detection, Detections
from monitor.perception.same_card import one_box_per_card


def _card(x: float, identity: str, source: str = "detector", conf: float = 0.99, y: float = 0.0) -> Detection:
    corners = ((x, y), (x + 50, y), (x + 50, y + 70), (x, y + 70))
    return Detection("card_face_up", 0.9, corners, identity=identity, identity_confidence=conf, source=source)


def _ids(d: Detections) -> list[tuple[str | None, str]]:
    return [(c.identity, c.source) for c in d.items]


def test_two_overlapping_boxes_named_alike_keep_the_detectors() -> None:
    dets = Detections(400, 300, (_card(10, "Ks", "contour", 1.0), _card(22, "Ks", "detector", 0.97)))
    assert _ids(one_box_per_card(dets)) == [("Ks", "detector")]


def test_between_equal_finders_the_surer_reading_is_kept() -> None:
    dets = Detections(400, 300, (_card(10, "Ks", conf=0.97), _card(22, "Ks", conf=0.99)))
    kept = one_box_per_card(dets).items
    assert len(kept) == 1 and kept[0].identity_confidence == 0.99


def test_different_names_unread_boxes_and_apart_boxes_all_stay() -> None:
    items = (
        _card(10, "Ks"), _card(22, "Qs"),  # a fan: two cards overlapping, two names
        _card(10, "unknown", y=100), _card(22, "unknown", y=100),  # unread: nothing says they are one
        _card(200, "7h"), _card(300, "7h"),  # the same name apart: a second deck's card, for the rules
        Detection("chip", 0.8, ((0, 0), (5, 0), (5, 5), (0, 5))),
    )
    dets = Detections(400, 300, items)
    assert one_box_per_card(dets) is dets


def test_a_box_overlapping_less_than_the_threshold_stays() -> None:
    dets = Detections(400, 300, (_card(10, "Ks"), _card(52, "Ks")))  # 0.16 of either box covered
    assert len(one_box_per_card(dets).items) == 2


def test_a_box_turned_across_another_named_alike_is_the_same_card() -> None:
    across = Detection("card_face_up", 0.9, ((0, 40), (70, 40), (70, 90), (0, 90)), identity="Ks",
                       identity_confidence=1.0, source="split")
    dets = Detections(400, 300, (_card(10, "Ks"), across))  # IoU under 0.4, most of the smaller box
    assert _ids(one_box_per_card(dets)) == [("Ks", "detector")]
