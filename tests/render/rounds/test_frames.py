"""Animated rounds: the per-frame ground truth matches the pixels and the events, and the writer makes
a video with one truth line per frame and events stamped with its frame numbers.

Frames are rendered small (960x540) and only a sample of them, to keep the test fast."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from monitor.render.renderer import Renderer
from monitor.render.rounds.play import PlayedRound, play_many
from monitor.render.rounds.script import load_script, shipped_scripts
from monitor.render.rounds.video import (
    RenderedFrame,
    RenderOptions,
    events_with_frames,
    frames,
    write_recording,
)
from monitor.render.scene import CardObj, Scene

FPS = 10
OPTS = RenderOptions(resolution="960x540", fps=FPS, effects=False)


@pytest.fixture(scope="module")
def clean() -> list[PlayedRound]:
    return play_many([(load_script(shipped_scripts()["paigow_clean"]), "paigow_clean")])


@pytest.fixture(scope="module")
def sample(clean: list[PlayedRound]) -> dict[int, RenderedFrame]:
    """Frames at moments the events name: deal, delivery, opening, plus one mid-flight."""
    ev = events_with_frames(clean[0].events, FPS)
    want: set[int] = set()
    dealt = [e for e in ev if e["type"] == "card_dealt"]
    for e in (dealt[9], dealt[30], dealt[48]):
        want.add(e["frame"] + 1)
    want.add(dealt[20]["frame"] - 1)  # a card in the air under the dealer's hand
    for etype in ("pile_delivered", "hand_opened", "banker_hand_set"):
        want.add([e for e in ev if e["type"] == etype][-1]["frame"] + 2)
    return {f.index: f for f in frames(clean, OPTS, only=sorted(want))}


def test_truth_tracks_are_the_timeline_objects(
    clean: list[PlayedRound], sample: dict[int, RenderedFrame]
) -> None:
    tl = clean[0].timeline
    for fr in sample.values():
        assert fr.frame is not None
        for o in fr.truth["objects"]:
            if o["kind"] in ("card", "chips", "die"):
                order = int(o["track"].split(":")[1])
                obj = tl.tracks[order].obj
                expected = (
                    obj.key
                    if isinstance(obj, CardObj)
                    else str(getattr(obj, "denomination", None) or getattr(obj, "value", None))
                )
                assert o["identity"] == expected


def test_truth_polygons_and_visible_share_match_the_pixels(
    clean: list[PlayedRound], sample: dict[int, RenderedFrame]
) -> None:
    cam = OPTS.make_camera()
    empty = Renderer().render(Scene(table_style=clean[0].script.table_style), cam).image.astype(np.int16)
    checked = 0
    for fr in sample.values():
        assert fr.frame is not None
        img = fr.image.astype(np.int16)
        changed = np.abs(img - empty).max(axis=2) > 30  # pixels where something covers the felt
        ids = fr.frame.id_map
        for o, t in zip(fr.frame.objects, fr.truth["objects"], strict=True):
            if o.kind != "card":
                continue
            mask = np.zeros(ids.shape, np.uint8)
            cv2.fillPoly(mask, [np.round(np.asarray(t["polygon"])).astype(np.int32)], 1)
            own = ids == o.oid
            # every pixel the card owns lies inside its polygon (one pixel of slack for the edge)
            grown = cv2.dilate(mask, np.ones((3, 3), np.uint8)).astype(bool)
            assert own.sum() == t["visible_px"]
            assert (own & ~grown).sum() == 0
            if t["visible_share"] > 0.9:
                # a fully visible card: its polygon is card, not felt
                inner = cv2.erode(mask, np.ones((5, 5), np.uint8)).astype(bool)
                assert changed[inner].mean() > 0.9, (fr.index, t["identity"])
                assert abs(own.sum() / mask.sum() - t["visible_share"]) < 0.1
                checked += 1
            if t["visible_share"] < 0.05:
                assert own.sum() <= 0.05 * mask.sum() + 2
    assert checked > 40


def test_truth_zones_follow_the_events(clean: list[PlayedRound], sample: dict[int, RenderedFrame]) -> None:
    ev = events_with_frames(clean[0].events, FPS)
    dealt = [e for e in ev if e["type"] == "card_dealt"]
    for k in (9, 30, 48):
        fr = sample[dealt[k]["frame"] + 1]
        in_piles = [o for o in fr.truth["objects"] if o["kind"] == "card" and o["zone"].startswith("pile")]
        assert len(in_piles) == k + 1  # every card dealt so far, and only those, lies in a pile slot
        per_pile = {p: sum(1 for e in dealt[: k + 1] if e["pile"] == p) for p in range(1, 8)}
        for p, n in per_pile.items():
            assert sum(1 for o in in_piles if o["zone"] == f"pile{p}") == n
    mid = sample[dealt[20]["frame"] - 1]
    assert any(o["kind"] == "arm" and o["visible_share"] > 0.5 for o in mid.truth["objects"])
    last = [e for e in ev if e["type"] == "pile_delivered"][-1]
    fr = sample[last["frame"] + 2]
    cards = [o for o in fr.truth["objects"] if o["kind"] == "card"]
    for seat in range(1, 8):
        assert sum(1 for o in cards if o["zone"].split(".")[0] == f"seat{seat}") == 7
    opened = [e for e in ev if e["type"] == "hand_opened"][-1]
    fr = sample[opened["frame"] + 2]
    seat_cards = [
        o
        for o in fr.truth["objects"]
        if o["kind"] == "card" and o["zone"].split(".")[0] == f"seat{opened['seat']}"
    ]
    assert {o["identity"] for o in seat_cards} == set(opened["front"] + opened["back"])
    assert all(o["face_up"] for o in seat_cards)
    assert {o["identity"] for o in seat_cards if o["zone"].endswith(".front")} == set(opened["front"])
    bset = [e for e in ev if e["type"] == "banker_hand_set"][-1]
    fr = sample[bset["frame"] + 2]
    banker = {o["identity"] for o in fr.truth["objects"] if o["kind"] == "card" and o["zone"] == "banker"}
    assert banker == set(bset["front"] + bset["back"])


def test_written_recording_is_consistent(tmp_path: Path) -> None:
    script = load_script(shipped_scripts()["paigow_stub_three"])
    rounds = play_many([(script, "stub_three")])
    opts = RenderOptions(resolution="320x180", fps=2, effects=True)
    res = write_recording(rounds, tmp_path, opts)
    assert res.ok and res.checks[0][1].got == ["stub_not_four"]
    cap = cv2.VideoCapture(str(tmp_path / "video.mp4"))
    n = 0
    while True:
        ok, img = cap.read()
        if not ok:
            break
        assert img.shape == (180, 320, 3)
        n += 1
    assert n == res.frames
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    assert [t["frame"] for t in truth] == list(range(n))
    assert all("objects" in t or truth[t["same_as"]].get("objects") is not None for t in truth)
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert all(e["frame"] == math.ceil(e["media_time"] * 2 - 1e-6) < n for e in events)
    alerts = [json.loads(line) for line in (tmp_path / "alerts.jsonl").read_text().splitlines()]
    assert [a["code"] for a in alerts] == ["stub_not_four"]
    stub = next(e for e in events if e["type"] == "stub_counted")
    assert alerts[0]["media"]["trigger"] == stub["media_time"]
    check = json.loads((tmp_path / "check.json").read_text())
    assert check[0]["ok"] is True
