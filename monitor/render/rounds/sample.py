"""The demo's sample recording: shipped scripts played one after another on one table.

``table-monitor sample-recording`` renders it; the live demo plays the video as a camera. The same
scripts always give the same video, ground truth and events. The bank passes from seat 4 to seat 5
for the third hand (Livermore rules 3 and 40 allow two consecutive hands, and seat 5 wagered on both),
so the whole recording raises only the scripted faults.
"""

from __future__ import annotations

from pathlib import Path

from monitor.render.rounds.play import PlayedRound, play_many
from monitor.render.rounds.script import Bet, RoundStart, Script, load_script, shipped_scripts

SAMPLE_SCRIPTS = ("paigow_clean", "paigow_bet_after_dice", "paigow_exposed_ace")
SAMPLE_BANKERS = (4, 4, 5)


def with_banker(script: Script, seat: int) -> Script:
    """The same round with the bank at ``seat``: the two seats' bets trade places."""
    old = next(a.banker_seat for a in script.actions if isinstance(a, RoundStart))
    if old is None or old == seat:
        return script
    swap = {old: seat, seat: old}
    actions = []
    for a in script.actions:
        if isinstance(a, RoundStart):
            a = a.model_copy(update={"banker_seat": seat})
        elif isinstance(a, Bet) and a.bettor is None and a.seat in swap:
            a = a.model_copy(update={"seat": swap[a.seat]})
        actions.append(a)
    return script.model_copy(update={"actions": actions})


def sample_scripts() -> list[tuple[Script, str]]:
    shipped = shipped_scripts()
    return [
        (with_banker(load_script(shipped[n]), b), f"{n}.yaml")
        for n, b in zip(SAMPLE_SCRIPTS, SAMPLE_BANKERS, strict=True)
    ]


def sample_rounds() -> list[PlayedRound]:
    return play_many(sample_scripts(), gap=1.5)


def sample_recording_dir() -> Path:
    """Where the rendered sample recording ships (video.mp4, events.jsonl, alerts.jsonl, check.json,
    truth.jsonl.gz), made by ``table-monitor sample-recording --out`` this folder."""
    return Path(__file__).with_name("sample_recording")
