"""Watching the betting spots' pictures: untouched chips keep their version through noise, light, a
codec's key frames and an arm passing or resting; chips moved, added or taken make a new version."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from monitor.calibration.table_file import load_table
from monitor.calibration.zones import zone_kind
from monitor.perception.spot_watch import SpotWatcher
from monitor.render.rounds.sample import sample_recording_dir
from tests.support.paths import TABLE_FILE

SIZE = (640, 360)
SPOT = [(300.0 + 50 * np.cos(a), 180.0 + 50 * np.sin(a))
        for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)]
FELT = (70, 110, 30)


def _table(chips: list[tuple[int, int, tuple[int, int, int]]], arm_x: int | None = None,
           light: int = 0, noise: np.random.Generator | None = None) -> np.ndarray:
    img = np.full((SIZE[1], SIZE[0], 3), FELT, np.uint8)
    cv2.circle(img, (300, 180), 50, (40, 120, 230), 2)  # the spot's printed ring
    for x, y, colour in chips:
        cv2.circle(img, (x, y), 13, colour, -1)
        cv2.circle(img, (x, y), 7, (235, 235, 235), -1)  # the inlay
    if arm_x is not None:
        cv2.rectangle(img, (arm_x, 100), (arm_x + 90, 360), (120, 160, 210), -1)
    out = img.astype(np.int16) + light
    if noise is not None:
        out += noise.normal(0, 2.0, out.shape).round().astype(np.int16)
    return np.clip(out, 0, 255).astype(np.uint8)


TWO_STACKS = [(290, 180, (40, 40, 190)), (316, 180, (50, 140, 40))]


def _run(w: SpotWatcher, frames: list[np.ndarray]) -> list[tuple[int, bool]]:
    return [(v.version, v.settled) for v in (w.look(f)["seat4.bet"] for f in frames)]


def test_untouched_chips_keep_their_version_through_noise_light_and_recompression() -> None:
    rng = np.random.default_rng(1)
    w = SpotWatcher({"seat4.bet": SPOT}, SIZE)
    frames = [_table(TWO_STACKS, noise=rng) for _ in range(10)]
    frames += [_table(TWO_STACKS, light=6, noise=rng) for _ in range(10)]  # the light brightens
    jpeg = [cv2.imdecode(cv2.imencode(".jpg", _table(TWO_STACKS, light=6, noise=rng),
                                      [cv2.IMWRITE_JPEG_QUALITY, 60])[1], cv2.IMREAD_COLOR)
            for _ in range(10)]
    seen = _run(w, frames + jpeg)
    assert seen[2:] == [(0, True)] * 28  # settled from the third look on, never a new version


def test_an_arm_passing_or_resting_leaves_the_version_the_spot_had() -> None:
    w = SpotWatcher({"seat4.bet": SPOT}, SIZE)
    still = [_table(TWO_STACKS)] * 4
    passing = [_table(TWO_STACKS, arm_x=x) for x in range(220, 350, 30)]  # all over the spot
    resting = [_table(TWO_STACKS, arm_x=280)] * 6
    seen = _run(w, still + passing + still + resting + still)
    versions = {v for v, settled in seen if settled}
    assert seen[-1] == (0, True)
    assert versions == {0, 1}  # the resting arm settled as a picture of its own, then left
    assert all(not settled for _, settled in seen[4:4 + len(passing)])  # moving: never settled


@pytest.mark.parametrize("change", ["moved", "added", "taken", "recoloured"])
def test_chips_moved_added_or_taken_make_a_new_version_that_stays(change: str) -> None:
    after = {
        "moved": [(290, 180, (40, 40, 190)), (322, 186, (50, 140, 40))],  # re-stacked 8 px off
        "added": [*TWO_STACKS, (303, 204, (30, 30, 30))],
        "taken": TWO_STACKS[:1],
        "recoloured": [(290, 180, (40, 40, 190)), (316, 180, (120, 40, 110))],  # a $500 on top
    }[change]
    w = SpotWatcher({"seat4.bet": SPOT}, SIZE)
    seen = _run(w, [_table(TWO_STACKS)] * 4 + [_table(TWO_STACKS, arm_x=270)] * 2 + [_table(after)] * 8)
    assert seen[3] == (0, True) and seen[-1] == (1, True)


def test_frames_of_another_size_and_spots_outside_the_picture() -> None:
    w = SpotWatcher({"seat4.bet": SPOT, "seat9.bet": [(900.0, 900.0), (950.0, 900.0), (950.0, 950.0)]}, SIZE)
    assert set(w.spots) == {"seat4.bet"}  # nothing of seat 9's spot is in the picture
    half = [cv2.resize(_table(TWO_STACKS), (320, 180), interpolation=cv2.INTER_AREA)] * 4
    half += [cv2.resize(_table(TWO_STACKS[:1]), (320, 180), interpolation=cv2.INTER_AREA)] * 4
    assert _run(w, half)[3] == (0, True) and _run(w, half[4:])[-1] == (1, True)


SAMPLE = sample_recording_dir()


@pytest.mark.skipif(not (SAMPLE / "video.mp4").exists(), reason="sample recording not shipped")
def test_on_the_rendered_sample_only_the_changed_bet_gets_a_new_picture() -> None:
    """72-80 s of the sample recording: seat 5 doubles its bet after the dice (76.8 s); a hand rests
    on seat 4's spot for half a second (74.2 s). Only seat 5's spot ends in a picture it never had."""
    table = load_table(TABLE_FILE)
    polygons = {n: [(float(x), float(y)) for x, y in table.table_to_image(p.array)]
                for n, p in table.zones.items() if zone_kind(n) == "bet"}
    w = SpotWatcher(polygons, table.image_size)
    cap = cv2.VideoCapture(str(SAMPLE / "video.mp4"))
    cap.set(cv2.CAP_PROP_POS_MSEC, 72_000)
    first: dict[str, int] = {}
    versions: dict[str, set[int]] = {}
    last = {}
    while cap.get(cv2.CAP_PROP_POS_MSEC) < 80_000:
        ok, frame = cap.read()
        assert ok
        for name, view in w.look(frame).items():
            if view.settled:
                first.setdefault(name, view.version)
                versions.setdefault(name, set()).add(view.version)
                last[name] = view.version
    changed = {n for n in last if last[n] != first[n]}
    assert changed == {"seat5.bet"}
    assert len(versions["seat4.bet"]) == 2 and last["seat4.bet"] == first["seat4.bet"]  # the hand left


def test_a_chip_put_down_changes_the_picture_where_it_lies_and_nowhere_else() -> None:
    """What the extractor's quick bet change reads: the new chip's place looked otherwise in the bet's
    picture, an old chip's did not; away from the chips nothing changed (an arm: much did)."""
    added = [*TWO_STACKS, (303, 204, (30, 30, 30))]
    w = SpotWatcher({"seat4.bet": SPOT}, SIZE)
    _run(w, [_table(TWO_STACKS)] * 4 + [_table(TWO_STACKS, arm_x=270)] * 2 + [_table(added)] * 4)
    assert w.versions("seat4.bet") == [0, 1]
    assert w.alike_at("seat4.bet", (290, 180), 13, SIZE) == {0}  # lay there in both
    assert w.alike_at("seat4.bet", (303, 204), 13, SIZE) == frozenset()  # the felt, before
    discs = [((x, y), 1.3 * 13) for x, y, _ in added]
    assert w.changed_away("seat4.bet", 0, discs, SIZE) == pytest.approx(0.0, abs=0.01)
    # the same chips at a frame twice the size: the same places
    assert w.alike_at("seat4.bet", (580, 360), 26, (1280, 720)) == {0}

    w = SpotWatcher({"seat4.bet": SPOT}, SIZE)
    _run(w, [_table(TWO_STACKS)] * 4 + [_table(TWO_STACKS, arm_x=280)] * 4)  # an arm resting there
    discs = [((x, y), 1.3 * 13) for x, y, _ in TWO_STACKS]
    assert (w.changed_away("seat4.bet", 0, discs, SIZE) or 0.0) > 0.2
    assert w.changed_away("seat4.bet", 7, discs, SIZE) is None  # a picture it never had
