"""check-fans: the fan reader scored on rendered rounds' truth, zone by zone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from monitor.cli import app
from monitor.lab.fan_check import FanScore, hand_pictures
from monitor.tablestate.index_cards import IndexCard
from tests.support.paths import SAMPLE_RECORDING


def read(card: str | None = None, rank: str | None = None) -> IndexCard:
    return IndexCard(0.0, 0.0, "seat2.back", card, rank, 0.99)


def test_names_take_their_card_before_ranks_and_a_whole_hand_is_counted() -> None:
    s = FanScore()
    s.add("seat2.back", ["6d", "8d", "2h", "7c", "Td"],
          [read(rank="8"), read("8d"), read(rank="6"), read(rank="2"), read(rank="7"), read(rank="T")])
    # the rank-8 read finds the eight taken by its name: a wrong rank, the hand still read whole
    assert (s.named, s.ranked, s.wrong_names, s.wrong_ranks, s.whole) == (1, 5, 0, 1, 1)
    s.add("seat2.front", ["Qc", "Tc"], [read("Qs"), read(rank="T")])  # the wrong suit is a wrong name
    assert (s.shown, s.named, s.ranked, s.wrong_names, s.whole) == (7, 1, 6, 1, 1)
    assert s.by_zone == {"back": 1}
    assert s.to_json()["ranked_share"] == round(6 / 7, 4)
    assert s.to_json()["missed_by_rank"]["Q"] == [1, 1] and s.to_json()["missed_by_rank"]["8"] == [0, 1]


def test_cards_counted_for_rule_60_are_scored_by_rank_and_ink() -> None:
    from dataclasses import replace

    s = FanScore()
    sure_red_k = replace(read(rank="K"), colour="red", sure=True)
    s.add("seat3.back", ["Kh", "Kc", "Th"],
          [sure_red_k, replace(sure_red_k, colour="black"), read("Th"),  # right: a red K, a black K, a name
           replace(read(rank="T"), colour="red")])  # not sure: not counted
    assert (s.counted, s.wrong_counted) == (3, 0)
    # a sure red queen where no red queen lies: a wrong count (a false third card); a rank-only jack
    # (maybe the joker) is not counted
    s.add("seat1.front", ["Jh", "2c"], [replace(read(rank="Q"), colour="red", sure=True),
                                        replace(read(rank="J"), colour="red", sure=True)])
    assert (s.counted, s.wrong_counted) == (3, 1)
    assert s.to_json()["wrong_counted"] == 1


def test_the_joker_is_its_own_rank() -> None:
    s = FanScore()
    s.add("banker", ["Jk", "Js"], [read("Jk"), read(rank="J")])
    assert (s.named, s.ranked, s.wrong_ranks, s.whole) == (1, 2, 0, 1)


def test_hand_pictures_keep_the_zones_with_enough_faces(tmp_path: Path) -> None:
    def card(zone: str, ident: str, up: bool = True) -> dict[str, object]:
        return {"track": ident, "kind": "card", "identity": ident, "zone": zone, "face_up": up,
                "polygon": [[0, 0], [1, 0], [1, 1], [0, 1]], "visible_share": 1.0}
    rows = [{"frame": 0, "time": 0.0, "objects": [card("seat1.back", "As"), card("seat1.back", "Kd"),
                                                  card("pile3", "2c"), card("banker", "5h")]},
            {"frame": 1, "time": 0.1, "objects": [card("seat1.back", "As"), card("seat1.back", "Kd")]},
            {"frame": 2, "time": 0.2, "objects": [card("seat1.front", "As", up=False),
                                                  card("seat1.front", "Kd", up=False)]}]
    truth = tmp_path / "truth.jsonl"
    truth.write_text("".join(json.dumps(r) + "\n" for r in rows))
    # every 2nd frame: frame 0 (the pile and a lone banker card left out); frame 2's hand is face down
    assert list(hand_pictures(truth, every=2, min_faces=2)) == [(0, {"seat1.back": ["As", "Kd"]})]


def test_the_shipped_fan_reader_on_the_sample_recordings_open_hands(tmp_path: Path) -> None:
    if not (SAMPLE_RECORDING / "video.mp4").exists():
        pytest.skip("the sample recording is rendered on first use (table-monitor sample-recording)")
    out = tmp_path / "fans.json"
    result = CliRunner().invoke(app, ["check-fans", str(SAMPLE_RECORDING), "--every", "90", "--threads", "1",
                                      "--backend", "onnxruntime", "--out", str(out)])
    assert result.exit_code == 0, result.output
    from monitor.perception.models_home import models_home

    got = json.loads(out.read_text())["readers"][str(models_home())]  # each reader by its folder
    assert got["pictures"] > 0 and got["shown"] >= 2 * got["pictures"]
    # the 720p sample's indices are ~5 px tall: a fifth of its fanned cards read (26 of 126 when this
    # was written), but what is read is right: a wrong read is a false foul or duplicate
    assert got["ranked"] >= got["shown"] / 10
    assert got["wrong_names"] + got["wrong_ranks"] <= got["shown"] / 10
    missing = CliRunner().invoke(app, ["check-fans", str(tmp_path / "nothing"), "--backend", "onnxruntime"])
    assert missing.exit_code == 1 and "no truth.jsonl" in missing.output
