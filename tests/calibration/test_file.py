"""Table files: the shipped default loads; every kind of bad file gets a message naming file and field."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from monitor.calibration import CalibrationError, from_layout, load_table, parse_table
from monitor.calibration.zones import REQUIRED_ZONES
from monitor.geometry import default_layout
from tests.support.paths import TABLE_FILE


@pytest.fixture(scope="module")
def good() -> dict[str, Any]:
    return yaml.load(TABLE_FILE.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def problems_of(data: Any, tmp_path: Path, text: str | None = None) -> str:
    path = tmp_path / "table.yaml"
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    path.write_text(text if text is not None else yaml.dump(data, Dumper=dumper))
    with pytest.raises(CalibrationError) as info:
        load_table(path)
    message = str(info.value)
    assert str(path) in message  # every error names the file
    return message


def test_default_table_loads_and_maps_zones() -> None:
    cal = load_table(TABLE_FILE)
    assert cal.image_size == (1920, 1080) and cal.table == "table-1"
    assert set(REQUIRED_ZONES) <= set(cal.zones)
    layout = default_layout()
    for name in ("seat3.front", "seat3.back", "seat3.bet", "pile5", "stub", "banker", "dice"):
        cx, cy = layout.zone(name).shape.center
        assert cal.zone_at(cx, cy) == name
        pixel = cal.table_to_image(np.array([[cx, cy]]))
        assert cal.zones_at_pixels(pixel) == [name]
        assert np.allclose(cal.image_to_table(pixel), [[cx, cy]], atol=1e-6)
    assert cal.zone_at(0, 5000) == "off_table"
    assert cal.zones_outside_image() == []


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    h = np.array([[1.2, 0.05, -1300.0], [0.02, -1.3, 800.0], [1e-6, 2e-5, 1.0]])
    cal = from_layout(default_layout(), h, (1920, 1080), table="t9")
    again = load_table(cal.save(tmp_path / "t.yaml"))
    assert again.table == "t9" and again.zones.keys() == cal.zones.keys()
    assert np.allclose(again.homography, cal.homography, rtol=1e-9)


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.update(homography=[[1, 2, 3], [2, 4, 6], [0, 0, 1]]), "homography: is singular"),
        (lambda d: d.update(homography=[[1, 0, 0], [0, 1, 0], [0.01, 0, -1]]), "horizon crosses the image"),
        (lambda d: d.update(homography=[[1, 0, 0], [0, "x", 0], [0, 0, 1]]), "entries [1][1] are not finite"),
        (lambda d: d.update(homography=[[1, 0], [0, 1]]), "homography: must be a 3x3 list"),
        (lambda d: d.update(image_size="1920x1080"), "image_size: must be [width, height]"),
        (lambda d: d.update(version=2), "version: must be 1, got 2"),
        (lambda d: d["zones"].update({"seat3.front": [[0, 0], [100, 100], [100, 0], [0, 100]]}),
         "zones.seat3.front: polygon crosses itself (edges 0 and 2 meet)"),
        (lambda d: d["zones"].update({"pile2": [[0, 0], [5000, 0], [5000, 100]]}),
         "zones.pile2: falls off the table: a vertex lies"),
        (lambda d: d["zones"].update({"pile2": [[0, 0], ["a", 1], [5, 5]]}),
         "zones.pile2[1]: must be [x, y]"),
        (lambda d: d["zones"].update({"pile2": [[0, 0], [1, 1]]}),
         "zones.pile2: must be a list of at least 3"),
        (lambda d: d["zones"].update({"seat9.bet": [[0, 0], [10, 0], [0, 10]]}),
         "zones.seat9.bet: unknown zone"),
        (lambda d: [d["zones"].pop(k) for k in ("stub", "seat2.back")],
         "missing required zone(s): seat2.back, stub"),
        (lambda d: d.update(zones=None), "zones: must be a mapping"),
        (lambda d: d.update(colour="green"), "colour: unknown field"),
        (lambda d: d["calibration"].update(rms_error_mm="low"), "calibration.rms_error_mm: must be a number"),
    ],
)
def test_bad_fields_are_named(good: dict[str, Any], tmp_path: Path, mutate: Any, expected: str) -> None:
    data = copy.deepcopy(good)
    mutate(data)
    assert expected in problems_of(data, tmp_path)


def test_all_problems_reported_at_once(good: dict[str, Any], tmp_path: Path) -> None:
    data = copy.deepcopy(good)
    data["version"] = 0
    data["zones"].pop("stub")
    data["zones"]["pile1"] = [[0, 0], [10, 10], [10, 0], [0, 10]]
    message = problems_of(data, tmp_path)
    assert "(3 problem(s))" in message
    assert "version" in message and "stub" in message and "zones.pile1" in message


def test_unreadable_yaml_names_the_line(tmp_path: Path) -> None:
    message = problems_of(None, tmp_path, text="version: 1\nzones:\n  pile1: [[0, 0], [1, 1]\n  stub: x\n")
    assert "not valid YAML at line" in message


def test_not_a_mapping_and_missing_file(tmp_path: Path) -> None:
    assert "must be a mapping at the top, got list" in problems_of(None, tmp_path, text="- 1\n- 2\n")
    with pytest.raises(CalibrationError, match="does not exist"):
        load_table(tmp_path / "nope.yaml")


def test_parse_table_without_file(good: dict[str, Any]) -> None:
    cal = parse_table(copy.deepcopy(good), source="inline")
    assert cal.source == "inline" and len(cal.zones) == len(good["zones"])
