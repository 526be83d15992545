"""Cards placed on the table from their indices: where the card lies, both indices of a card as one."""

from __future__ import annotations

import numpy as np

from monitor.geometry import Rect
from monitor.perception.index_geometry import index_quads
from monitor.perception.index_reader import IndexRead
from monitor.tablestate.index_cards import card_of_index, index_cards
from tests.support.index_reader import CAL, RecordingReader, wanting_all


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


def test_the_two_indices_of_a_card_keep_the_ink_they_agree_on() -> None:
    from dataclasses import replace

    def inked(reads: list[IndexRead], inks: tuple[str | None, str | None]) -> list[IndexRead]:
        return [replace(r, colour=c) for r, c in zip(reads, inks, strict=True)]

    size = CAL.image_size
    read = reads_of(-450.0, 250.0, (None, None), ("K", None))
    cards = index_cards(inked(read, ("black", None)), "seat2.back", CAL, size)
    assert [(c.rank, c.colour) for c in cards] == [("K", "black")]  # one index saw the ink
    cards = index_cards(inked(read, ("black", "red")), "seat2.back", CAL, size)
    assert [(c.rank, c.colour) for c in cards] == [("K", None)]  # two inks: neither
    named = reads_of(-450.0, 250.0, ("Kh", None), (None, None))
    cards = index_cards(inked(named, (None, "black")), "seat2.back", CAL, size)
    assert [(c.card, c.rank, c.colour) for c in cards] == [(None, "K", None)]  # a heart read black: the rank
    cards = index_cards(inked(named, (None, "red")), "seat2.back", CAL, size)
    assert [(c.card, c.colour) for c in cards] == [("Kh", None)]  # named: its suit says its ink


def test_the_two_indices_of_a_card_are_sure_of_its_rank_if_one_read_it_surely() -> None:
    from dataclasses import replace

    def sured(reads: list[IndexRead], sure: tuple[bool, bool]) -> list[IndexRead]:
        return [replace(r, sure=s) for r, s in zip(reads, sure, strict=True)]

    size = CAL.image_size
    both_k = reads_of(-450.0, 250.0, (None, None), ("K", "K"))
    assert [c.sure for c in index_cards(sured(both_k, (False, True)), "seat2.back", CAL, size)] == [True]
    assert [c.sure for c in index_cards(sured(both_k, (False, False)), "seat2.back", CAL, size)] == [False]
    # a sure K and a Q: neither rank stands, nothing is sure
    k_q = sured(reads_of(-450.0, 250.0, (None, None), ("K", "Q")), (True, False))
    assert [(c.rank, c.sure) for c in index_cards(k_q, "seat2.back", CAL, size)] == [(None, False)]
    # a name is sure as a name
    named = reads_of(-450.0, 250.0, ("Kh", None), (None, "K"))
    assert [(c.card, c.sure) for c in index_cards(named, "seat2.back", CAL, size)] == [("Kh", True)]


def test_a_tight_fan_keeps_its_cards_apart_and_one_index_found_twice_is_one_card() -> None:
    size = CAL.image_size
    fan: list[IndexRead] = []
    for k, name in enumerate(["6d", "8d", "2h"]):  # 14 mm apart, each showing its top-left index
        fan.append(reads_of(-450.0 + 14 * k, 250.0, (name, None), (None, None))[0])
    top = reads_of(-450.0 + 28, 250.0, ("2h", "2h"), (None, None))[1]  # the top card's second index
    cards = index_cards([*fan, top, fan[0]], "seat2.back", CAL, size)  # and the first index twice
    assert sorted((c.card, c.indices) for c in cards) == [("2h", 2), ("6d", 2), ("8d", 1)]


def test_an_index_whose_card_would_not_be_card_sized_is_dropped() -> None:
    tiny = reads_of(-450.0, 250.0, ("Qc", "Qc"), (None, None), size=(30.0, 40.0))
    assert index_cards(tiny, "seat2.back", CAL, CAL.image_size) == []
    # the same card in a 4K frame of the same camera is the same card
    big = [IndexRead(r.quad * 2, r.score, r.card, r.rank, r.top, r.confidence)
           for r in reads_of(-450.0, 250.0, ("Qc", "Qc"), (None, None))]
    w, h = CAL.image_size
    assert len(index_cards(big, "seat2.back", CAL, (2 * w, 2 * h))) == 1
    assert np.isfinite(index_cards(big, "seat2.back", CAL, (2 * w, 2 * h))[0].x)


def test_only_the_hand_areas_the_extractor_waits_on_are_read() -> None:
    from monitor.pipeline.extract import EventExtractor
    from monitor.pipeline.watchers.round_record import Seat

    ex = EventExtractor("T1")
    assert ex.zones_to_read() == set()  # nothing set yet: nothing to read
    ex.deal.seats[2] = Seat(pile=3, tracks=set())
    ex.deal.seats[2].reported_set = ((None, None), (None,) * 5)
    ex.deal.seats[5] = Seat(pile=6, tracks=set())
    ex.deal.seats[5].reported_set = ((None, None), (None,) * 5)
    ex.deal.seats[5].opened = True
    ex.deal.banker_exposed = True
    assert ex.zones_to_read() == {"seat2.front", "seat2.back", "banker"}


def test_the_chain_reads_a_hand_area_each_time_its_picture_comes_to_lie_still() -> None:
    import cv2

    from monitor.perception.detections import Detections
    from monitor.pipeline.chain import TableChain

    reader = RecordingReader()
    chain = TableChain(CAL, wanting_all(), fps=15, index_reader=reader)  # type: ignore[arg-type]
    w, h = CAL.image_size
    image = np.full((h, w, 3), 60, np.uint8)
    for k in range(6):
        chain.step(k, k / 15, Detections(w, h, ()), image=image)
    assert chain.hand_watcher is not None and chain.zone_reader is not None
    hand_zones = set(chain.hand_watcher.spots)
    zones = len(hand_zones)
    # every front and back at its second still look and again at its third; the banker's place once
    assert zones >= 15 and len(reader.asked) == 2 * zones - 1
    assert set(chain.last_hands) == hand_zones
    # seat 2's back area changes (cards turned up): read again, that area alone, once it lies still
    centre = CAL.table_to_image(np.array([CAL.zones["seat2.back"].center]))[0]
    cx, cy = int(centre[0]), int(centre[1])
    cv2.rectangle(image, (cx - 25, cy - 15), (cx + 25, cy + 15), (250, 250, 250), -1)
    for k in range(6, 12):
        chain.step(k, k / 15, Detections(w, h, ()), image=image)
    back = chain.zone_reader.boxes["seat2.back"]
    assert len(reader.asked) == 2 * zones + 1 and reader.asked[-2:] == [back] * 2
    assert [c.card for c in chain.last_hands["seat2.back"]] == ["Qc"]  # one card, both indices


def test_a_hand_turned_up_and_swept_after_three_frames_is_read() -> None:
    """A hand lying still three frames (0.2 s at 15 fps: data/e2e/paigow_duplicate_card's seat 3,
    turned up just before the misdeal sweep) is read: two still looks settle a hand area."""
    import cv2

    from monitor.perception.detections import Detections
    from monitor.pipeline.chain import HAND_SETTLE_LOOKS, TableChain

    assert HAND_SETTLE_LOOKS == 2
    reader = RecordingReader()
    chain = TableChain(CAL, wanting_all(), fps=15, index_reader=reader)  # type: ignore[arg-type]
    assert chain.zone_reader is not None
    w, h = CAL.image_size
    image = np.full((h, w, 3), 60, np.uint8)
    frames = iter(range(100))

    def step() -> None:
        k = next(frames)
        chain.step(k, k / 15, Detections(w, h, ()), image=image)

    for _ in range(4):
        step()
    before = len(reader.asked)
    centre = CAL.table_to_image(np.array([CAL.zones["seat2.back"].center]))[0]
    cx, cy = int(centre[0]), int(centre[1])
    cv2.rectangle(image, (cx - 25, cy - 15), (cx + 25, cy + 15), (250, 250, 250), -1)
    for _ in range(2):
        step()
    assert len(reader.asked) == before  # one still look: not yet
    step()
    assert len(reader.asked) == before + 1 and reader.asked[-1] == chain.zone_reader.boxes["seat2.back"]


def test_the_chain_gives_a_fan_reader_the_frame_s_card_boxes_not_sure_backs() -> None:
    from monitor.perception.detections import Detection, Detections, corners_from_array
    from monitor.pipeline.chain import TableChain

    class _Fan(RecordingReader):
        def __init__(self) -> None:
            super().__init__()
            self.cards: list[object] = []

        def read(self, frame: np.ndarray, regions: list[tuple[int, int, int, int]],  # type: ignore[type-arg]
                 cards: object = ()) -> list[IndexRead]:
            self.cards.append(cards)
            return super().read(frame, regions, cards)

    reader = _Fan()
    chain = TableChain(CAL, wanting_all(), fps=15, index_reader=reader)  # type: ignore[arg-type]
    w, h = CAL.image_size
    box = corners_from_array(CAL.table_to_image(Rect(-450.0, 250.0, 63.0, 88.0, 20.0).corners()))
    items = (Detection("card_face_up", 0.9, box, identity="unknown"),
             Detection("card_face_down", 0.9, box, identity="unknown", back_probability=0.3),
             Detection("card_face_down", 0.9, box, identity="back", back_probability=0.99),
             Detection("chip", 0.9, box))
    image = np.full((h, w, 3), 60, np.uint8)
    for k in range(6):
        chain.step(k, k / 15, Detections(w, h, items), image=image)
    assert reader.cards and all(len(c) == 2 for c in reader.cards)  # type: ignore[arg-type]


def test_a_card_read_in_two_hand_zones_boxes_belongs_to_the_nearer_zone() -> None:
    from monitor.perception.detections import Detections
    from monitor.pipeline.chain import TableChain

    front, back = CAL.zones["seat2.front"].center, CAL.zones["seat2.back"].center

    class _Both(RecordingReader):
        def read(self, frame: np.ndarray, regions: list[tuple[int, int, int, int]],  # type: ignore[type-arg]
                 cards: object = ()) -> list[IndexRead]:
            return (reads_of(front[0], front[1], ("Qc", None), (None, None))
                    + reads_of(back[0], back[1], ("Td", None), (None, None)))

    chain = TableChain(CAL, wanting_all(), fps=15, index_reader=_Both())  # type: ignore[arg-type]
    w, h = CAL.image_size
    image = np.full((h, w, 3), 60, np.uint8)
    for k in range(6):
        chain.step(k, k / 15, Detections(w, h, ()), image=image)
    got = chain.last_hands
    assert [c.card for c in got["seat2.front"]] == ["Qc"] and [c.card for c in got["seat2.back"]] == ["Td"]


def test_the_last_card_of_a_fan_read_at_several_cuts_is_one_card() -> None:
    size = CAL.image_size
    fan = [reads_of(-450.0 + 22 * k, 250.0, (name, None), (None, None))[0]
           for k, name in enumerate(["6d", "8d", "Jh"])]
    again = reads_of(-450.0 + 44 + 14, 250.0, ("Jh", None), (None, None))[0]  # its index cut 14 mm on
    unread = reads_of(-450.0 + 44 + 6, 250.0, (None, None), (None, None))[0]  # and cut badly between
    apart = reads_of(-450.0 + 88, 250.0, (None, None), (None, None))[0]  # an unread card further on
    cards = index_cards([*fan, again, unread, apart], "seat2.back", CAL, size)
    assert sorted(str(c.card) for c in cards) == ["6d", "8d", "Jh", "None"]
    # two cards of one rank side by side in a fan stay two
    pair = [reads_of(-450.0 + 22 * k, 250.0, (None, None), (None, "J"))[0] for k in range(2)]
    assert len(index_cards(pair, "seat2.back", CAL, size)) == 2
