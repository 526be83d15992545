"""Lining up a review's alerts with a rendered round's truth (check-rendered)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monitor.lab.rendered_check import RenderedCheckError, compare


def _alert(code: str, trigger: float) -> str:
    return json.dumps({"code": code, "media": {"begin": trigger, "trigger": trigger, "end": trigger}}) + "\n"


def _round(tmp: Path, expected: list[str], true: list[tuple[str, float]]) -> Path:
    folder = tmp / "paigow_x"
    folder.mkdir()
    (folder / "check.json").write_text(json.dumps([{"expected": expected, "raised": expected, "ok": True}]))
    (folder / "alerts.jsonl").write_text("".join(_alert(c, t) for c, t in true))
    return folder


def test_missed_false_and_time_errors(tmp_path: Path) -> None:
    rendered = _round(tmp_path, ["pile_to_wrong_seat", "pile_to_wrong_seat"],
                      [("pile_to_wrong_seat", 20.0), ("pile_to_wrong_seat", 24.0)])
    reviewed = tmp_path / "review"
    reviewed.mkdir()
    (reviewed / "alerts.jsonl").write_text(_alert("pile_to_wrong_seat", 24.4) + _alert("deal_order", 9.0))
    r = compare(rendered, reviewed)
    assert r.missed == ["pile_to_wrong_seat"] and r.false == ["deal_order"] and not r.ok
    assert r.timing == [("pile_to_wrong_seat", 0.4)]  # matched with the nearest true alert of its code
    assert r.to_json()["max_time_error_s"] == 0.4


def test_exactly_right(tmp_path: Path) -> None:
    rendered = _round(tmp_path, ["stub_not_four"], [("stub_not_four", 30.0)])
    reviewed = tmp_path / "review"
    reviewed.mkdir()
    (reviewed / "alerts.jsonl").write_text(_alert("stub_not_four", 29.8))
    r = compare(rendered, reviewed)
    assert r.ok and r.max_time_error == pytest.approx(0.2)


def test_bad_files_name_the_file_and_line(tmp_path: Path) -> None:
    rendered = _round(tmp_path, [], [])
    reviewed = tmp_path / "review"
    with pytest.raises(RenderedCheckError, match=r"review/alerts\.jsonl does not exist"):
        compare(rendered, reviewed)
    reviewed.mkdir()
    (reviewed / "alerts.jsonl").write_text(_alert("x", 1.0) + '{"no": "code"}\n')
    with pytest.raises(RenderedCheckError, match="line 2: not an alert"):
        compare(rendered, reviewed)
    (rendered / "check.json").write_text("[{]")
    with pytest.raises(RenderedCheckError, match=r"check\.json: not a render-round check"):
        compare(rendered, reviewed)


def test_a_render_cut_short_is_an_error_not_a_clean_round(tmp_path: Path) -> None:
    # a render killed part-way left a video that plays but ends early (seen: 499 of 786 frames)
    rendered = _round(tmp_path, [], [])
    (rendered / "truth.jsonl").write_text("".join(json.dumps({"frame": i, "time": i / 15}) + "\n"
                                                  for i in range(786)))
    reviewed = tmp_path / "review"
    reviewed.mkdir()
    (reviewed / "alerts.jsonl").write_text("")
    (reviewed / "review.json").write_text(json.dumps({"files": [{"frames_total": 499}]}))
    with pytest.raises(RenderedCheckError, match="499 frames, its truth has 786: the render was cut short"):
        compare(rendered, reviewed)
    (reviewed / "review.json").write_text(json.dumps({"files": [{"frames_total": 786}]}))
    assert compare(rendered, reviewed).ok
    (rendered / "truth.jsonl").write_text('{"frame": 0}\n{"fra')
    with pytest.raises(RenderedCheckError, match=r"truth\.jsonl: not a render-round truth file"):
        compare(rendered, reviewed)
