"""The Lo-Ball draw round (Poker Games Lo-Ball: "EACH PLAYER IS THEN ALLOWED TO DISCARD CARDS FROM
THEIR HAND AND DRAW ADDITIONAL CARDS"): a draw is checked card by card.

>>> from monitor.rules.cards import parse_cards as p
>>> check_draw("s1", p("Kh 7d 5c 3s 2h"), p("Kh"), p("4d"), p("4d 7d 5c 3s 2h")).after.name
'7-5-4-3-2'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from monitor.rules.cards import Card, format_cards
from monitor.rules.errors import CardCountError, RulesError
from monitor.rules.games.low import LowValue, evaluate_low
from monitor.rules.games.poker import GAMES
from monitor.rules.games.profile import DEFAULT_GAME_PROFILE, GameProfile


@dataclass(frozen=True, slots=True)
class Draw:
    player: str
    discarded: tuple[Card, ...]
    drawn: tuple[Card, ...]
    after: LowValue


def check_draw(
    player: str,
    hand: Sequence[Card],
    discarded: Sequence[Card],
    drawn: Sequence[Card],
    after: Sequence[Card],
    profile: GameProfile = DEFAULT_GAME_PROFILE,
) -> Draw:
    """Check one player's draw: discards come from the hand, as many cards are drawn as
    discarded (at most the profile's limit), and the new hand is the old one minus the
    discards plus the draws. Raises a RulesError naming what does not add up."""
    g = GAMES["lowball"]
    deck = g.deck(profile)
    where = f"{player}'s Lo-Ball draw"
    deck.check(hand, f"{player}'s hand before the draw")
    deck.check(after, f"{player}'s hand after the draw")
    if len(hand) != g.hole or len(after) != g.hole:
        got = f"got {len(hand)} before and {len(after)} after"
        raise CardCountError(f"{where}: hands are {g.hole} cards, {got}")
    limit = profile.poker.lowball_max_draw
    if len(discarded) != len(drawn):
        raise CardCountError(f"{where}: discarded {len(discarded)} card(s) but drew {len(drawn)}")
    if len(drawn) > limit:
        raise CardCountError(f"{where}: drew {len(drawn)} cards, the limit is {limit}")
    not_held = Counter(discarded) - Counter(hand)
    if not_held:
        raise RulesError(f"{where}: discarded {format_cards(sorted(not_held.elements()))}, not in the hand")
    redrawn = set(drawn) & set(hand)
    if redrawn:
        raise RulesError(f"{where}: drew {format_cards(sorted(redrawn))}, already in the hand before")
    expected = Counter(hand) - Counter(discarded) + Counter(drawn)
    if expected != Counter(after):
        missing = format_cards(sorted((expected - Counter(after)).elements())) or "none"
        extra = format_cards(sorted((Counter(after) - expected).elements())) or "none"
        raise RulesError(f"{where}: the hand after does not add up: missing {missing}, extra {extra}")
    return Draw(player, tuple(discarded), tuple(drawn), evaluate_low(after))
