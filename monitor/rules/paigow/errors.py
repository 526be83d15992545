"""Errors of the Pai Gow game logic. Each message names the bad input and, where one applies, the rule."""

from __future__ import annotations

from monitor.rules.errors import RulesError


class DiceError(RulesError):
    """A dice reading that three standard dice cannot show (Livermore rule 8)."""


class SeatError(RulesError):
    """A seat or pile number outside the table."""


class RotationError(RulesError):
    """An illegal banker-rotation transition (Livermore rules 3, 40; S&K)."""


class SettlementError(RulesError):
    """Bets or results that cannot be settled (unknown seat, negative amount, no banker)."""


class HouseWayError(RulesError):
    """A house-way definition that does not validate, or an unknown house-way name."""
