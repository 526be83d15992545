"""The built-in house ways (``house_ways/*.yaml`` shipped in this package) and per-table selection.

Reading the package's own data files is the only I/O here; a room's own house way comes in as a
mapping (parsed by the caller from its file or database) through :func:`register` or
:func:`house_way_for`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

import yaml

from monitor.rules.paigow.errors import HouseWayError
from monitor.rules.paigow.house_way import HouseWay
from monitor.rules.profile import PaiGowProfile

BUILT_IN = ("trump_plaza", "foxwoods", "golden_nugget", "claridge", "flamingo_hilton", "ballys_atlantic_city")


@cache
def built_in(name: str) -> HouseWay:
    """A built-in house way by name."""
    if name not in BUILT_IN:
        raise HouseWayError(f"no built-in house way {name!r} (built in: {', '.join(BUILT_IN)})")
    text = resources.files("monitor.rules.paigow").joinpath("house_ways", f"{name}.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    way = HouseWay.from_mapping(data)
    if way.name != name:
        raise HouseWayError(f"house_ways/{name}.yaml declares name {way.name!r}")
    return way


def house_way_for(
    profile: PaiGowProfile, custom: Mapping[str, HouseWay | Mapping[str, Any]] | None = None
) -> HouseWay:
    """The house way a table's profile selects: a room's own definition first, then the built-in ones."""
    if custom and profile.house_way in custom:
        entry = custom[profile.house_way]
        way = entry if isinstance(entry, HouseWay) else HouseWay.from_mapping(entry)
        if way.name != profile.house_way:
            raise HouseWayError(f"custom house way filed as {profile.house_way!r} is named {way.name!r}")
        return way
    return built_in(profile.house_way)
