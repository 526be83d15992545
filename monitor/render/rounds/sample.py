"""The demo's sample recording: shipped scripts played one after another on one table.

``table-monitor sample-recording`` renders it; the live demo plays the video as a camera. The same
scripts always give the same video, ground truth and events.
"""

from __future__ import annotations

from monitor.render.rounds.play import PlayedRound, play_many
from monitor.render.rounds.script import load_script, shipped_scripts

SAMPLE_SCRIPTS = ("paigow_clean", "paigow_exposed_ace", "paigow_bet_after_dice")


def sample_rounds(names: tuple[str, ...] = SAMPLE_SCRIPTS) -> list[PlayedRound]:
    shipped = shipped_scripts()
    return play_many([(load_script(shipped[n]), f"{n}.yaml") for n in names], gap=1.5)
