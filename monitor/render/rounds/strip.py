"""A picture strip of a rendered round: frames at the moments its events name, each captioned with
the time and the event just seen (for docs and for a quick look at a script)."""

from __future__ import annotations

import cv2
import numpy as np

from monitor.render.rounds.play import PlayedRound
from monitor.render.rounds.video import RenderOptions, events_with_frames, frames, total_frames

# (event type, which one: 0 first, -1 last, k the k-th) of the moments shown
MOMENTS = (
    ("card_dealt", 24),
    ("stub_counted", 0),
    ("pile_delivered", 3),
    ("hand_set", -1),
    ("banker_hand_set", -1),
    ("hand_opened", 1),
    ("hole_dealt", 7),
    ("burn", 0),
    ("player_folded", 0),
    ("board_dealt", 0),
    ("board_dealt", -1),
    ("hand_shown", -1),
)


def strip_frames(
    rounds: list[PlayedRound], fps: int, columns: int = 3, rows: int = 2
) -> list[tuple[int, str]]:
    """Frame numbers (and captions) of up to ``columns * rows`` moments of the recording."""
    events = events_with_frames([e for r in rounds for e in r.events], fps)
    last = total_frames(rounds, fps) - 1
    out: list[tuple[int, str]] = []
    for etype, which in MOMENTS:
        hits = [e for e in events if e["type"] == etype]
        if not hits or which >= len(hits):
            continue
        e = hits[which]
        out.append((min(e["frame"] + 1, last), f"{e['media_time']:.1f}s {etype.replace('_', ' ')}"))
    out.sort()
    return out[: columns * rows]


def picture_strip(
    rounds: list[PlayedRound], opts: RenderOptions, width: int = 1920, columns: int = 3, rows: int = 2
) -> np.ndarray:
    """One image: the chosen frames in a grid ``columns`` wide, captioned."""
    picks = strip_frames(rounds, opts.fps, columns, rows)
    if not picks:
        raise ValueError("the recording has none of the events a strip shows")
    caption = dict(picks)
    tiles = []
    cell_w = width // columns
    for fr in frames(rounds, opts, only=[f for f, _ in picks]):
        h = round(fr.image.shape[0] * cell_w / fr.image.shape[1])
        tile = cv2.resize(fr.image, (cell_w, h), interpolation=cv2.INTER_AREA)
        cv2.rectangle(tile, (0, 0), (cell_w, 30), (0, 0, 0), -1)
        cv2.putText(
            tile, caption[fr.index], (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.65, (255, 255, 255), 1, cv2.LINE_AA
        )
        tiles.append(tile)
    while len(tiles) % columns:
        tiles.append(np.zeros_like(tiles[0]))
    grid = [np.hstack(tiles[i : i + columns]) for i in range(0, len(tiles), columns)]
    return np.vstack(grid)
