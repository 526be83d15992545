"""Dividing a pot among tied winners, and a hi-lo pot between its halves, in whole chips.

Pots are split in the table's smallest chip (profile ``poker.smallest_chip``); whatever does not
divide evenly goes one chip at a time in odd-chip order (Poker Games is silent on the odd chip, so
both the half that gets it and the tie-break among tied players are profile settings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from monitor.rules.cards import SUIT_CHARS, Card
from monitor.rules.errors import RulesError
from monitor.rules.games.profile import OddChipHalf, OddChipTie, PokerRules


def halves(amount: int, rules: PokerRules) -> tuple[int, int]:
    """(high half, low half) of a hi-lo pot; the odd chip goes to the half the profile names."""
    chip = rules.smallest_chip
    # Any part below one chip rides with the odd chip, in ``big``.
    small = amount // chip // 2 * chip
    big = amount - small
    if rules.odd_chip_half is OddChipHalf.HIGH:
        return big, small
    return small, big


def odd_chip_order(
    winners: Sequence[str], seat_order: Sequence[str], hole: Mapping[str, Sequence[Card]], rules: PokerRules
) -> list[str]:
    """Winners in the order the odd chips go to them."""
    if rules.odd_chip_tie is OddChipTie.LEFT_OF_BUTTON:
        return sorted(winners, key=seat_order.index)

    def top_card(who: str) -> tuple[int, int]:
        # Highest hole card by rank, then suit: spades, hearts, diamonds, clubs (SUIT_CHARS is cdhs).
        return max(((c.rank, SUIT_CHARS.index(c.suit)) for c in hole[who] if not c.is_joker), default=(0, 0))

    return sorted(winners, key=lambda w: (top_card(w), -seat_order.index(w)), reverse=True)


def split(amount: int, order: Sequence[str], rules: PokerRules) -> dict[str, int]:
    """Split ``amount`` among ``order`` (already in odd-chip order) in whole chips."""
    if not order:
        raise RulesError(f"cannot split {amount} among no winners")
    chip = rules.smallest_chip
    units, rest = divmod(amount, chip)
    each, extra = divmod(units, len(order))
    shares = {w: each * chip for w in order}
    for w in order[:extra]:
        shares[w] += chip
    shares[order[0]] += rest
    return shares
