"""Exceptions for impossible input. Each names the offending input so a floor person can find it."""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every rules-engine input error."""


class CardParseError(RulesError):
    """A card string that is not a known rank and suit (e.g. 'Xs', '1h', 'Ac ')."""


class DuplicateCardError(RulesError):
    """The same physical card appears twice where only one copy exists."""


class CardCountError(RulesError):
    """A hand or pile with the wrong number of cards."""


class CardNotInDeckError(RulesError):
    """A card that the game's deck does not hold (e.g. an 8 in a Pan deck, a joker in Hold'em)."""


class ProfileError(RulesError):
    """A rule profile with an invalid or inconsistent setting."""
