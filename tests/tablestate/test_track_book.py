"""Track changes: a dealt card that flies over other zones settles once, in its pile; a one-frame
flicker is not a flip; a lasting one is; a card that leaves the table vanishes from its zone."""

from __future__ import annotations

import numpy as np

from monitor.calibration import load_table
from monitor.geometry import Rect, default_layout
from monitor.perception.detections import Detection, Detections, corners_from_array
from monitor.tablestate import place
from monitor.tablestate.track_book import TrackBook
from monitor.tablestate.tracking import Tracked
from tests.support.paths import TABLE_FILE

CAL = load_table(TABLE_FILE)
LAYOUT = default_layout()
FPS = 10


def seen(track_id: int, zone: str, kind: str = "card_face_down") -> Tracked:
    cx, cy = LAYOUT.zone(zone).shape.center
    corners = CAL.table_to_image(Rect(cx, cy, 63, 88).corners())
    det = Detection(kind, 0.9, corners_from_array(np.asarray(corners)))
    return Tracked(track_id, place(Detections(1920, 1080, (det,)), CAL)[0])


def play(book: TrackBook, frames: list[list[Tracked]]) -> list[tuple[str, int, str, str | None, float]]:
    out = []
    for i, items in enumerate(frames):
        for c in book.update(items, i / FPS):
            out.append((c.change, c.track_id, c.zone, c.previous_zone, round(c.media_time_s, 2)))
    return out


def test_a_dealt_card_settles_once_in_its_pile() -> None:
    frames = [[seen(1, "banker")]] * 2 + [[seen(1, "pile2")]] + [[seen(1, "pile3")]] * 8
    changes = play(TrackBook(settle_s=0.3), frames)
    assert changes == [
        ("appeared", 1, "banker", None, 0.0),
        ("settled", 1, "pile3", None, 0.3),  # dated from its first frame in pile 3; pile 2 was a fly-over
    ]


def test_flicker_is_not_a_flip_but_a_lasting_turn_is() -> None:
    book = TrackBook(settle_s=0.3)
    down, up = seen(5, "pile4"), seen(5, "pile4", kind="card_face_up")
    frames = [[down]] * 5 + [[up]] + [[down]] * 3 + [[up]] * 5
    changes = play(book, frames)
    flips = [c for c in changes if c[0] == "flipped"]
    assert flips == [("flipped", 5, "pile4", "pile4", 0.9)]


def test_vanished_from_its_last_zone() -> None:
    book = TrackBook(settle_s=0.2, vanish_after_s=0.5)
    frames = [[seen(7, "stub")]] * 4 + [[]] * 6
    changes = play(book, frames)
    assert changes[-1] == ("vanished", 7, "stub", None, 0.3)
    assert book.live == 0


def test_moves_between_zones_name_both() -> None:
    frames = [[seen(2, "pile6")]] * 5 + [[seen(2, "seat5.back")]] * 5
    changes = play(TrackBook(settle_s=0.2), frames)
    assert ("settled", 2, "seat5.back", "pile6", 0.5) in changes
