"""The shipped sample recording (the demo's camera) is what its scripts make today: the same events,
judged by today's rules into exactly the scripted alerts, and a video with one frame and one truth line
per frame. If this fails after a change to the scripts, the players or the rules, remake it with
``table-monitor sample-recording --out monitor/render/rounds/sample_recording``."""

from __future__ import annotations

import gzip
import json

import cv2

from monitor.procedure.monitor import Monitor
from monitor.render.rounds.sample import sample_recording_dir, sample_rounds
from monitor.render.rounds.video import events_with_frames, total_frames

DIR = sample_recording_dir()
FPS = 30


def _jsonl(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (DIR / name).read_text().splitlines()]


def test_sample_events_are_what_the_scripts_make() -> None:
    rounds = sample_rounds()
    made = events_with_frames([e for r in rounds for e in r.events], FPS)
    assert _jsonl("events.jsonl") == made


def test_sample_events_raise_exactly_the_scripted_faults() -> None:
    m = Monitor()
    for e in _jsonl("events.jsonl"):
        m.feed_dict(e)
    m.finish()
    assert [a.code for a in m.alerts] == ["bet_changed_after_close", "ace_or_joker_exposed"]
    shipped = _jsonl("alerts.jsonl")
    assert [(a["code"], a["id"]) for a in shipped] == [(a.code, a.id) for a in m.alerts]
    assert all(c["ok"] for c in json.loads((DIR / "check.json").read_text()))


def test_sample_video_and_truth_cover_every_frame() -> None:
    n = total_frames(sample_rounds(), FPS)
    cap = cv2.VideoCapture(str(DIR / "video.mp4"))
    assert cap.isOpened()
    assert (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))) == (1280, 720)
    assert round(cap.get(cv2.CAP_PROP_FPS)) == FPS
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == n
    ok, img = cap.read()
    assert ok and img.shape == (720, 1280, 3)
    cap.release()
    with gzip.open(DIR / "truth.jsonl.gz", "rt") as f:
        frames = [json.loads(line)["frame"] for line in f]
    assert frames == list(range(n))
    assert (DIR / "video.mp4").stat().st_size < 8_000_000  # "a few MB"
