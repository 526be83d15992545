"""Readings of unchanged cards are reused frame to frame; a changed card is read again."""

from __future__ import annotations

import cv2
import numpy as np

from monitor.perception.identity import Identity
from monitor.perception.identity_cache import IdentityCache
from monitor.perception.imageio import load_image
from monitor.perception.pipeline import DEFAULT_MODELS, Perceiver
from tests.support.paths import TABLE_1080P


def _quad(x: float, y: float) -> np.ndarray:
    return np.array([[x, y], [x + 50, y], [x + 50, y + 70], [x, y + 70]], np.float64)


def test_cache_reuses_still_cards_and_rereads_moved_changed_or_stale_ones() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 255, (96, 68, 3), dtype=np.uint8)
    b = rng.integers(0, 255, (96, 68, 3), dtype=np.uint8)
    cache = IdentityCache(max_reuse=3)
    ia, ib = Identity("As", 0.99, "As"), Identity("back", 0.99, "back")
    found, matched, thumbs = cache.lookup([_quad(0, 0), _quad(200, 0)], [a, b])
    assert found == [None, None]
    cache.store([_quad(0, 0), _quad(200, 0)], thumbs, [ia, ib], matched)
    # a pixel of jitter, same content: reused; the second card turned over (new content): read again
    found, matched, thumbs = cache.lookup([_quad(1, 0), _quad(200, 1)], [a, 255 - b])
    assert found == [ia, None]
    cache.store([_quad(1, 0), _quad(200, 1)], thumbs, [ia, Identity("Kd", 0.9, "Kd")], matched)
    # moved: read again
    found, _, _ = cache.lookup([_quad(40, 0)], [a])
    assert found == [None]
    # stale: after max_reuse reuses a reading is refreshed
    cache = IdentityCache(max_reuse=2)
    hits = []
    for _ in range(5):
        found, matched, thumbs = cache.lookup([_quad(0, 0)], [a])
        hits.append(found[0] is not None)
        cache.store([_quad(0, 0)], thumbs, [found[0] or ia], matched)
    assert hits == [False, True, True, False, True]


def test_video_perceiver_reads_a_still_frame_once_and_gives_the_same_answers() -> None:
    frame = load_image(TABLE_1080P)
    # the video's steps read afresh (no cache): photos snap boxes onto edges (which moves the cuts) and
    # search merged boxes for a card on top, neither of which video does
    plain = Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", snap_edges=False, pile_tops=False,
                                  tiles=False, split_merged=False).perceive(frame)
    video = Perceiver.from_models(DEFAULT_MODELS, backend="onnxruntime", video=True)
    first = video.perceive(frame)
    second = video.perceive(frame)
    assert video.cache is not None and video.cache.hits == len(second.cards) > 10
    key = [(d.kind, d.identity) for d in plain.cards]
    assert [(d.kind, d.identity) for d in first.cards] == key == [(d.kind, d.identity) for d in second.cards]
    # one card painted over (as if swapped for another): only it is read again
    card = second.cards[0]
    changed = frame.copy()
    cv2.fillConvexPoly(changed, np.array(card.corners, np.int32), (30, 30, 200))
    hits, misses = video.cache.hits, video.cache.misses
    third = video.perceive(changed)
    # the painted card is read again (and a neighbour or two whose found outline the paint changed)
    assert 1 <= video.cache.misses - misses <= 4
    assert video.cache.hits - hits >= len(third.cards) - 4
