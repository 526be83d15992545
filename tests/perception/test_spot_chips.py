"""Chips in betting spots found as circles in the full-resolution picture (monitor.perception.spot_chips)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from monitor.calibration.table_file import load_table
from monitor.perception.detections import Detection, Detections
from monitor.perception.spot_chips import SpotChipFinder
from monitor.pipeline.chain import TableChain
from monitor.pipeline.extract import EventExtractor
from monitor.pipeline.watchers.view import TableLayout
from tests.support.paths import DATA, TABLE_FILE


def _render(stacks: list[tuple[str, float, int]], table: str = "teal") -> np.ndarray:
    from monitor.render.camera import default_camera
    from monitor.render.renderer import Renderer
    from monitor.render.scene import ChipStack, Scene

    cal = load_table(TABLE_FILE)
    scene = Scene(table_style=table)
    for spot, dx, denomination in stacks:
        x, y = cal.zones[spot].center
        scene.add(ChipStack(x + dx, y, denomination, count=2, angle_deg=11.0 * dx))
    return Renderer().render(scene, default_camera(1920, 1080), None).image


def _finder() -> SpotChipFinder:
    return SpotChipFinder.for_table(load_table(TABLE_FILE))


@pytest.mark.parametrize("table", ["green", "teal"])
def test_every_stack_of_a_spread_is_found_with_its_denomination_and_the_felt_is_no_chip(table: str) -> None:
    image = _render([("seat2.bet", -40.0, 100), ("seat2.bet", 0.0, 25), ("seat2.bet", 40.0, 5),
                     ("seat5.bet", 0.0, 1000)], table)
    finder = _finder()
    found = {n: sorted(d.denomination or 0 for d in finder.find(image, n)) for n in finder.spots}
    assert found["seat2.bet"] == [5, 25, 100]
    assert found["seat5.bet"] == [1000]
    assert all(found[n] == [] for n in finder.spots if n not in ("seat2.bet", "seat5.bet"))
    d = finder.find(image, "seat5.bet")[0]
    assert d.kind == "chip" and d.count is None and d.source == "spot" and d.confidence >= 0.5


def test_a_frame_of_another_size_is_read_at_the_calibrations_size_if_its_chips_are_large_enough() -> None:
    import cv2

    image = _render([("seat2.bet", -40.0, 100), ("seat2.bet", 0.0, 25), ("seat2.bet", 40.0, 5)])
    big = cv2.resize(image, (3840, 2160), interpolation=cv2.INTER_CUBIC)  # a 4K camera, same view
    finder = _finder()
    found = finder.find(big, "seat2.bet")
    assert finder.readable(big) and sorted(d.denomination or 0 for d in found) == [5, 25, 100]
    assert all(1000 < d.center[0] < 1300 for d in found)  # in the 4K frame's pixels
    small = cv2.resize(image, (1280, 720), interpolation=cv2.INTER_AREA)  # 20-pixel chips: too small
    assert not finder.readable(small)
    with pytest.raises(ValueError, match=r"1280x960.*1920x1080"):
        finder.find(np.zeros((960, 1280, 3), np.uint8), "seat2.bet")


def test_a_painted_numeral_in_an_empty_betting_circle_is_no_chip() -> None:
    # the bench recording's empty seat-6 spot after H.264: a yellow "9" inside the printed ring, on green
    # felt; it reads as a green $25 chip with a light "inlay" (the numeral), but its ring is the felt
    import cv2

    finder = _finder()
    crop = cv2.imread(str(DATA / "empty_spot_seat6_numeral.png"))
    x0, y0, x1, y1 = finder.spots["seat6.bet"].box
    assert crop is not None and crop.shape[:2] == (y1 - y0, x1 - x0)
    frame = np.zeros((1080, 1920, 3), np.uint8)
    frame[y0:y1, x0:x1] = crop
    assert finder.find(frame, "seat6.bet") == []
    without = SpotChipFinder.for_table(load_table(TABLE_FILE), replace(finder.s, felt_ring=1.01))
    assert [d.denomination for d in without.find(frame, "seat6.bet")] == [25]  # what the check removes


def test_the_chain_takes_a_spots_chips_from_its_picture_not_the_detectors_box() -> None:
    # the detector boxed two of the three stacks as one $25 chip: the spot's picture shows all three
    image = _render([("seat2.bet", -40.0, 100), ("seat2.bet", 0.0, 25), ("seat2.bet", 40.0, 5)])
    cal = load_table(TABLE_FILE)
    chain = TableChain(cal, EventExtractor("T1", layout=TableLayout.of(cal.zones)))
    x, y = cal.table_to_image(np.array([cal.zones["seat2.bet"].center]))[0]
    box = Detection("chip", 0.8, ((x - 25, y - 14), (x + 25, y - 14), (x + 25, y + 14), (x - 25, y + 14)),
                    denomination=25)
    dets = Detections(1920, 1080, (box,))
    spots = chain.watcher.look(image)
    for _ in range(3):  # the spot's picture settles
        spots = chain.watcher.look(image)
    got = chain.chips_in_spots(image, spots, dets)
    assert sorted(d.denomination or 0 for d in got.items) == [5, 25, 100]
    assert all(d.source == "spot" for d in got.items)


def test_the_bench_scores_found_chips_against_truth_stacks_and_skips_hidden_spots() -> None:
    from monitor.lab.spot_chips_eval import score_frame

    image = _render([("seat2.bet", -40.0, 100), ("seat2.bet", 0.0, 25), ("seat5.bet", 0.0, 1000)])
    cal = load_table(TABLE_FILE)

    def stack(spot: str, dx: float, identity: str, visible: float = 1.0) -> dict[str, object]:
        x, y = cal.zones[spot].center
        cx, cy = cal.table_to_image(np.array([[x + dx, y]]))[0]
        ring = [[cx + 14 * np.cos(a), cy + 14 * np.sin(a)] for a in np.linspace(0, 6.28, 12)]
        return {"kind": "chips", "zone": spot, "identity": identity, "polygon": ring,
                "visible_share": visible}

    truth = [stack("seat2.bet", -40.0, "100"), stack("seat2.bet", 0.0, "5"),  # the second one misnamed
             stack("seat5.bet", 0.0, "1000", visible=0.5)]  # under an arm: its spot is not scored
    score = score_frame(_finder(), image, truth)
    assert (score.stacks, score.found, score.matched, score.right) == (2, 2, 2, 1)
    assert score.confusions == {"5->25": 1} and score.recall == 1.0 and score.denomination_right == 0.5


def test_a_spot_where_no_circle_passed_keeps_the_detectors_chips_unless_their_ring_is_the_felt() -> None:
    import cv2

    cal = load_table(TABLE_FILE)
    x, y = cal.table_to_image(np.array([cal.zones["seat2.bet"].center]))[0]
    box = Detection("chip", 0.8, ((x - 14, y - 14), (x + 14, y - 14), (x + 14, y + 14), (x - 14, y + 14)),
                    denomination=5)
    shadowed = _render([])  # a stack in deep shadow: no palette colour, so no circle passes
    cv2.circle(shadowed, (round(x), round(y)), 14, (60, 60, 60), -1)
    bare = _render([])  # nothing there: the detector boxed the felt (a painted numeral, say)
    for image, want in ((shadowed, (box,)), (bare, ())):
        chain = TableChain(cal, EventExtractor("T1", layout=TableLayout.of(cal.zones)))
        for _ in range(4):  # the spot's picture settles
            spots = chain.watcher.look(image)
        assert chain.chip_finder.find(image, "seat2.bet") == []
        got = chain.chips_in_spots(image, spots, Detections(1920, 1080, (box,)))
        assert got.items == want


def test_the_chain_reports_a_chip_added_after_the_close_as_the_spots_picture_settles() -> None:
    """The spot's chips read at full resolution in each settled picture reach the extractor: a stack
    put down beside the bet after the close is a change on the frame the new picture settles
    (before: a second later, with the readings voted; bet_changed_after_close live took 1.43 s)."""
    from monitor.events.schema import parse_event

    before = _render([("seat2.bet", 0.0, 100)])
    after = _render([("seat2.bet", 0.0, 100), ("seat2.bet", 45.0, 25)])
    cal = load_table(TABLE_FILE)
    chain = TableChain(cal, EventExtractor("T1", layout=TableLayout.of(cal.zones)))
    none = Detections(1920, 1080, ())
    events = [e for i in range(30) for e in chain.step(i, i / 15, none, image=before)]
    assert [(e.type, e.amount) for e in events if e.type == "bet_placed"] == [("bet_placed", 10000)]
    chain.extractor.note(parse_event({"type": "bets_closed", "table_id": "T1", "seq": 0, "media_time": 2.0,
                                      "wall_time": "2026-01-01T00:00:02Z", "source": "operator"}))
    changed = []
    for i in range(30, 45):
        out = [e for e in chain.step(i, i / 15, none, image=after) if e.type == "bet_changed"]
        changed += [(i, e.before, e.after) for e in out]
    # looks 30-33: moved, then three still looks; the picture settles at frame 33
    assert changed == [(33, 10000, 12500)]
