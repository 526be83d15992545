"""Oracle perception on scripted rounds: the extractor's events make the procedure monitor raise exactly
the script's expected alerts, each within a second of when the true events raise it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from monitor.calibration import TableCalibration, load_table
from monitor.lab.scripted_check import check_rounds
from monitor.lab.timeline_truth import timeline_truth
from monitor.pipeline.oracle import OracleOptions, oracle_frame, oracle_frames, read_truth
from monitor.render.rounds.play import PlayedRound, play_script
from monitor.render.rounds.script import load_script, shipped_scripts
from tests.support.paths import TABLE_FILE


@cache
def calibration() -> TableCalibration:
    return load_table(TABLE_FILE)


@cache
def played(name: str) -> PlayedRound:
    return play_script(load_script(shipped_scripts()[name]), f"{name}.yaml")


@cache
def checked(name: str):  # type: ignore[no-untyped-def]
    return check_rounds([played(name)], calibration(), name, stride=2)


# 15 frames a second: a card rests at least 0.3 s, so the debounce still sees it several times
@pytest.mark.parametrize("name", ["paigow_exposed_ace", "paigow_stub_three", "paigow_wrong_seat"])
def test_fault_scripts_raise_their_alerts_from_oracle_detections(name: str) -> None:
    check = checked(name)
    assert check.ok, check.explain()
    assert check.expected  # a fault script: something had to be raised
    assert check.max_delay < 1.0, check.timing
    dealt = [e for e in check.events if e.type == "card_dealt"]
    assert dealt and all(e.frame is not None and e.source.value == "vision" for e in dealt)


def test_deal_counts_card_by_card_and_the_stub_count_come_from_the_table() -> None:
    check = checked("paigow_stub_three")
    dealt = [e for e in check.events if e.type == "card_dealt"]
    assert len(dealt) == 49
    stub = [e for e in check.events if e.type == "stub_counted"]
    assert [e.n for e in stub] == [3]
    assert [e.counts for e in check.events if e.type == "piles_complete"] == [[7] * 7]


def test_noisy_detections_with_dropouts_still_raise_the_alert() -> None:
    noisy = OracleOptions(dropout=0.05, jitter_px=0.5, seed=3)
    check = check_rounds([played("paigow_exposed_ace")], calibration(), "noisy", stride=2, oracle=noisy)
    assert check.ok, check.explain()


def test_fast_truth_matches_the_renderers_truth() -> None:
    """The timeline truth used by the tests agrees with the textured render's own ground truth."""
    from monitor.render.rounds.video import RenderOptions, frames

    rnd = played("paigow_exposed_ace")
    frame_no = 12 * 30  # mid deal: cards in flight, on piles and in the deck, an arm over them
    rendered = next(frames([rnd], RenderOptions(resolution="1080p", effects=False), only=[frame_no]))
    fast = next(r for r in timeline_truth([rnd], stride=1) if r["frame"] == frame_no)
    true = {o["track"]: o for o in rendered.truth["objects"] if o["kind"] != "arm"}
    mine = {o["track"]: o for o in fast["objects"] if o["kind"] != "arm"}
    assert set(true) == set(mine)
    for track, o in true.items():
        assert np.allclose(np.asarray(o["polygon"])[:4], np.asarray(mine[track]["polygon"])[:4], atol=2.0) \
            or o["kind"] != "card"
        assert (o["visible_share"] >= 0.25) == (mine[track]["visible_share"] >= 0.25) \
            or abs(o["visible_share"] - mine[track]["visible_share"]) < 0.15, track


def test_truth_file_rows_become_detections(tmp_path: Path) -> None:
    row = {"frame": 0, "time": 0.0, "objects": [
        {"track": "r0:1", "kind": "card", "label": "card_face_up", "identity": "As",
         "polygon": [[10, 10], [73, 10], [73, 98], [10, 98]], "visible_share": 1.0},
        {"track": "r0:2", "kind": "card", "label": "card_face_down", "identity": "Kd",
         "polygon": [[110, 10], [173, 10], [173, 98], [110, 98]], "visible_share": 0.9},
        {"track": "r0:3", "kind": "card", "label": "card_face_down", "identity": "2c",
         "polygon": [[110, 10], [173, 10], [173, 98], [110, 98]], "visible_share": 0.01},
    ]}
    path = tmp_path / "truth.jsonl"
    import json

    path.write_text(json.dumps(row) + "\n" + json.dumps({"frame": 1, "time": 0.033, "same_as": 0}) + "\n")
    rows = list(read_truth(path))
    assert [r["frame"] for r in rows] == [0, 1] and rows[1]["objects"] == rows[0]["objects"]
    fr = oracle_frame(rows[1], (1920, 1080))
    assert fr.tracks == ("r0:1", "r0:2")  # the hidden card is not reported
    up, down = fr.detections.items
    assert (up.kind, up.identity) == ("card_face_up", "As")
    assert (down.kind, down.identity) == ("card_face_down", "back")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"frame": 0}\n')
    from monitor.pipeline.oracle import TruthFileError

    with pytest.raises(TruthFileError, match=r"bad\.jsonl line 1"):
        list(read_truth(bad))


def test_an_arm_in_the_truth_becomes_a_hand_detection_around_its_hand() -> None:
    from monitor.render.scene import arm_outline

    outline, _ = arm_outline((0.0, 0.0, 0.0), (600.0, 0.0, 0.0), width=80.0)
    row = {"frame": 0, "time": 0.0, "objects": [
        {"track": "r0:arm9", "kind": "arm", "label": "arm", "identity": "arm",
         "polygon": outline[:, :2].tolist(), "visible_share": 0.4}]}
    fr = oracle_frame(row, (1920, 1080))
    (hand,) = fr.detections.items
    xs = [p[0] for p in hand.corners]
    assert hand.kind == "hand" and fr.tracks == ("r0:arm9",)
    assert min(xs) > 500 and max(xs) < 720  # the hand (150 mm long at 600), not the forearm from 0


def test_the_deal_is_counted_by_the_dealers_hand_when_the_cards_below_are_never_told_apart() -> None:
    """The models' view of a pile: the landing card covers the one below and takes its track (ByteTrack
    keeps the id), so only the hand's trips say how many cards each pile got."""
    rnd = played("paigow_clean")
    cal = calibration()
    frames = []
    pile_at: dict[int, tuple[str, np.ndarray]] = {}  # slot -> (the id kept there, where that card lies)
    size = cal.image_size
    for fr in oracle_frames(timeline_truth([rnd], 30, size, 2), size):
        tracks = list(fr.tracks)
        for i, d in enumerate(fr.detections.items):
            mm = cal.image_to_table(np.array([d.center]))[0]
            slot = cal.zone_at(*mm)
            if d.kind != "card_face_down" or not slot.startswith("pile"):
                continue
            n = int(slot[4:])
            kept = pile_at.get(n)
            # as ByteTrack does: a card lying where the pile's card lay takes that card's id
            if kept is None or np.hypot(*(mm - kept[1])) < 15:
                tracks[i] = kept[0] if kept else tracks[i]
                pile_at[n] = (tracks[i], mm)
        frames.append(type(fr)(fr.index, fr.media_time, fr.detections, tuple(tracks)))
    from monitor.lab.scripted_check import run_oracle

    events, alerts, _ = run_oracle([rnd], cal, iter(frames), rnd.events)
    done = next(e for e in events if e.type == "piles_complete")
    assert done.counts == [7] * 7
    assert [a.code for a in alerts] == []


def test_a_squared_stub_is_said_not_countable_and_the_monitor_shows_it_unjudged() -> None:
    from monitor.procedure.history import PaiGowHistory
    from monitor.procedure.monitor import Monitor
    from monitor.render.rounds.habits import with_habits
    from monitor.store.table_state import apply, empty_state

    script = with_habits(load_script(shipped_scripts()["paigow_stub_three"]), ["squared_stub"])
    check = check_rounds([play_script(script, "paigow_stub_three.yaml")], calibration(), "squared", stride=2)
    types = [e.type for e in check.events]
    assert "stub_counted" not in types  # one stack: its three cards are not told apart from above
    [why] = [e for e in check.events if e.type == "stub_not_countable"]
    assert why.reason == "squared"
    assert types.index("stub_not_countable") < types.index("misdeal_declared")  # said of its own deal
    assert "stub_not_four" not in check.got  # no count, no guess at one
    m = Monitor()
    for e in check.events:
        m.feed(e)
    m.finish()
    [h] = [h for h in m.histories if isinstance(h, PaiGowHistory)]
    assert h.stub is None and h.stub_not_counted == "squared"
    assert h.deal_note is not None and "stub not counted: squared" in h.deal_note
    state = empty_state("T1")
    for e in check.events:
        apply(state, e)
    assert state["not_judged"] == ["stub not counted: squared"]
