"""The stub spread counted from the frame: synthetic spreads drawn through the default camera, and the
spreads of the committed sample recording (rendered, 720p, H.264)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from monitor.calibration.table_file import load_table
from monitor.perception.stub_spread import StubSpreadCounter
from tests.support.paths import ROOT, TABLE_FILE

TABLE = load_table(TABLE_FILE)
SAMPLE = ROOT / "monitor" / "render" / "rounds" / "sample_recording" / "video.mp4"
FELT = (70, 100, 20)  # BGR, a green felt


def frame_with(cards: list[tuple[float, float, float]], size: tuple[float, float] = (63.0, 88.0),
               back: tuple[int, int, int] = (235, 235, 240)) -> np.ndarray:
    """A 1080p frame of felt with cards (centre x, centre y in table mm, turn in degrees) laid in
    order, each over the ones before, with a thin shadow at its edge."""
    w, h = TABLE.image_size
    img = np.full((h, w, 3), FELT, np.uint8)
    for cx, cy, deg in cards:
        a = math.radians(deg)
        ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        corners = [np.array([cx, cy]) + sx * size[0] / 2 * ux + sy * size[1] / 2 * uy
                   for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        px = np.round(TABLE.table_to_image(np.array(corners)) * 8).astype(np.int32)
        cv2.fillPoly(img, [px], back, cv2.LINE_AA, shift=3)
        cv2.polylines(img, [px], True, (150, 150, 150), 1, cv2.LINE_AA, shift=3)
    return img


def spread(n: int, step: float = 24.0, deg: float = 0.0, x: float = 560.0, y: float = -200.0,
           jitter: float = 0.0, seed: int = 0) -> list[tuple[float, float, float]]:
    rng = np.random.default_rng(seed)
    a = math.radians(deg)
    return [(x + (i - (n - 1) / 2) * step * math.cos(a), y + (i - (n - 1) / 2) * step * math.sin(a),
             deg + float(rng.normal(0, jitter))) for i in range(n)]


@pytest.fixture(scope="module")
def counter() -> StubSpreadCounter:
    return StubSpreadCounter(TABLE, TABLE.zones["stub"])


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_a_spread_is_counted_card_by_card(counter: StubSpreadCounter, n: int) -> None:
    got = counter.count(frame_with(spread(n, step=22.0 if n == 6 else 24.0, jitter=1.5, seed=n)))
    assert (got.n, got.why) == (n, "counted")
    assert len(got.edges_mm) == n - 1


@pytest.mark.parametrize("deg", [-25.0, 10.0, 90.0])
def test_a_spread_laid_at_an_angle_is_counted(counter: StubSpreadCounter, deg: float) -> None:
    got = counter.count(frame_with(spread(4, deg=deg)))
    assert got.n == 4, got.why


def test_a_squared_stub_an_empty_zone_and_a_loose_heap_are_not_counted(counter: StubSpreadCounter) -> None:
    squared = counter.count(frame_with(spread(4, step=0.0)))
    assert (squared.n, squared.why) == (None, "squared, not spread")
    empty = counter.count(frame_with([]))
    assert (empty.n, empty.why) == (None, "no cards in the stub zone")
    heap = counter.count(frame_with([(540.0, -220.0, 0.0), (580.0, -180.0, 40.0), (560.0, -170.0, 80.0)]))
    assert heap.n is None


def test_a_spread_lying_against_the_zones_painted_outline_is_counted(counter: StubSpreadCounter) -> None:
    # the sample recording's hand 2: the first card 2.5 mm from the painted line, blurred together by
    # the lens and the codec; the line must not join the block (it would make it 113 mm tall)
    img = frame_with(spread(4, x=485.0 + 2.5 + 31.5 + 36.0))
    outline = TABLE.table_to_image(TABLE.zones["stub"].array)
    cv2.polylines(img, [np.round(outline * 8).astype(np.int32)], True, (60, 200, 220), 2, cv2.LINE_AA,
                  shift=3)
    img = cv2.GaussianBlur(img, (0, 0), 1.5)
    got = counter.count(img)
    assert (got.n, got.why) == (4, "counted")
    assert 130.0 < got.length_mm < 146.0  # 135 drawn; the blur and the line widen it


def test_a_spread_with_one_card_pulled_out_of_line_is_not_countable(counter: StubSpreadCounter) -> None:
    cards = spread(4)
    cards[2] = (cards[2][0] + 14.0, cards[2][1], 0.0)  # strips of 24, 38, 10: one edge may be missed
    got = counter.count(frame_with(cards))
    assert got.n is None and "strip" in got.why


@pytest.mark.skipif(not SAMPLE.exists(), reason="the sample recording is committed with the package")
def test_the_sample_recordings_spreads_count_four_at_720p(counter: StubSpreadCounter) -> None:
    cap = cv2.VideoCapture(str(SAMPLE))
    fps = cap.get(cv2.CAP_PROP_FPS)
    counts = []
    for t in (24.0, 41.6, 75.2, 92.0):  # the two rounds' stubs after the count, and later on
        cap.set(cv2.CAP_PROP_POS_FRAMES, round(t * fps))
        ok, img = cap.read()
        assert ok and img.shape[:2] == (720, 1280)  # a frame of another size than the table file's
        got = counter.count(img)
        counts.append(got.n)
        assert all(20.0 < b - a < 28.0 for a, b in zip(got.edges_mm, got.edges_mm[1:], strict=False))
    assert counts == [4, 4, 4, 4]


def test_the_chain_counts_the_stub_only_once_its_picture_has_lain_still_a_second() -> None:
    # while dealing, the dealer's hand rests the deck in the stub zone 0.1-0.35 s between cards
    from monitor.perception.spot_watch import SpotView
    from monitor.pipeline.chain import SPREAD_STILL_S, TableChain
    from monitor.pipeline.extract import EventExtractor
    from monitor.pipeline.watchers.view import TableLayout

    chain = TableChain(TABLE, EventExtractor("T1", layout=TableLayout.of(TABLE.zones)))
    img = frame_with(spread(4))
    still, moving = {"stub": SpotView(3, True, 0.0)}, {"stub": SpotView(3, False, 0.4)}
    got = [chain.stub_count(img, still, 10.0 + k / 10, 300 + k) for k in range(4)]  # 0.3 s still
    assert [g.n if g else None for g in got] == [None] * 4
    assert chain.stub_count(img, moving, 10.4, 304) is None  # the hand again: the wait starts over
    settle = round(SPREAD_STILL_S * 10) + 1
    got = [chain.stub_count(img, still, 10.5 + k / 10, 305 + k) for k in range(settle)]
    assert got[-1] is not None and got[-1].n == 4 and all(g.n is None for g in got[:-1])
    assert chain.stub_still_since == (10.5, 305)  # the count is dated there
