"""A hand part (front or back) read by its cards' indices, as ``hand_opened`` and ``banker_hand_set``
carry it: the inks and sure ranks of the cards not named, padded with unread cards to the part's size."""

from __future__ import annotations

from monitor.tablestate.index_cards import IndexCard


def sure(part: list[IndexCard], pad: list[None]) -> list[bool] | None:
    """Which of a hand part's ranks (of cards not named) were read surely enough to count for rule 60
    (padded like the part), or None if none was."""
    flags = [c.card is None and c.rank is not None and c.sure for c in part] + [False] * len(pad)
    return flags if any(flags) else None


def inks(part: list[IndexCard], pad: list[None]) -> list[str | None] | None:
    """A hand part's inks read of cards not named (padded like the part), or None if none was."""
    out: list[str | None] = [c.colour if c.card is None else None for c in part]
    out += pad
    return out if any(out) else None
