"""The alert catalog: every fault the monitor can name, with its house rule, severity and message.

Each rule is cited from its rule document (``seed``: ``../shared/seeds/``) and, by the product's
references (``monitor/rules/references/``), in a person's words: the Livermore / Lucky Chances numbered
rules (the same numbers in Lucky Chances), Napa's misdeal and foul lists, the poker games (Poker
Games), the monitor's own rules (no room's rulebook). A table whose rulebook shares Livermore's numbers has
them cited in its own name (:func:`for_rulebook`).
A message template is one line for the floor; its ``{fields}`` are filled from the facts.

>>> CATALOG["stub_not_four"].render(n=5)
'stub has 5 cards, not 4: no action, redeal all hands'
>>> CATALOG["stub_not_four"].rule.cited
'Livermore Casino Pai Gow Poker, rule 55'
>>> for_rulebook(CATALOG["stub_not_four"].rule, "lucky_chances").cited
'Lucky Chances Casino Pai Gow Poker, rule 55'
"""

from __future__ import annotations

import string
from functools import cache
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

from monitor.alerts.model import RuleRef, Severity
from monitor.rules.references import book_of_seed, cite, rulebook

LIVERMORE: Final = "000_3987c5033707fbb2.txt"
NAPA: Final = "001_d82de19dc84e911a.txt"
LUCKY_CHANCES: Final = "002_ab5cf257468e8a6c.txt"
OTHER_GAMES: Final = "004_de25eb682010f199.txt"


class CatalogEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    rule: RuleRef
    severity: Severity
    template: str
    # Further rules the alert also rests on (e.g. Napa's misdeal 4 next to rules 8, 9, 21).
    related: tuple[RuleRef, ...] = ()

    @property
    def fields(self) -> frozenset[str]:
        return _template_fields(self.template)

    def render(self, **facts: Any) -> str:
        """The one-line message; a missing fact is a programming error and says which."""
        missing = self.fields - facts.keys()
        if missing:
            raise KeyError(f"alert {self.code!r} needs {sorted(missing)} to render its message")
        return self.template.format(**facts)


@cache
def _template_fields(template: str) -> frozenset[str]:
    return frozenset(f for _, f, _, _ in string.Formatter().parse(template) if f)


def for_rulebook(ref: RuleRef, book_id: str | None) -> RuleRef:
    """``ref`` cited in the table's rulebook ``book_id`` where that rulebook shares ``ref``'s numbered rules
    (Lucky Chances for Livermore's); otherwise ``ref`` as it is."""
    if book_id is None or book_id == ref.book:
        return ref
    book = rulebook(book_id)
    if book.same_rules_as != ref.book:
        return ref
    cited = cite(book.id, ref.rule).text
    return ref.model_copy(update={"seed": book.source, "book": book.id, "cited": cited})


def _r(seed: str, rule: str, text: str) -> RuleRef:
    """A catalog rule; one the references do not hold fails here, at import (CitationError)."""
    book = book_of_seed(seed, rule)
    return RuleRef(seed=seed, rule=rule, text=text, book=book, cited=cite(book, rule).text)


_ENTRIES: tuple[CatalogEntry, ...] = (
    # ---- Pai Gow: the deal -------------------------------------------------------------------
    CatalogEntry(
        code="stub_not_four",
        rule=_r(LIVERMORE, "55", "After the Dealer has dealt out the seven piles of cards, the stub of the "
                "deck "
                "must have four cards remaining. If the stub of the deck has more or less than four cards "
                "there will be no action and all hands will be redealt."),
        severity=Severity.MISDEAL,
        template="stub has {n} cards, not 4: no action, redeal all hands",
    ),
    CatalogEntry(
        code="pile_not_seven",
        rule=_r(LIVERMORE, "55", "The stub must have four cards remaining after the seven piles are dealt "
                "(seven piles of seven cards each, rule 6); otherwise no action and all hands are redealt."),
        severity=Severity.MISDEAL,
        template="pile {pile} has {count} cards, not 7: no action, redeal all hands",
        related=(_r(LIVERMORE, "6", "The Dealer deals seven piles of cards of seven each."),),
    ),
    CatalogEntry(
        code="banker_hand_miscounted",
        rule=_r(NAPA, "misdeal 3", "A misdeal will be declared if the Player/Dealer's hand does not have the "
                "correct number of cards."),
        severity=Severity.MISDEAL,
        template="the Player-Dealer's hand has {count} cards, not 7: misdeal",
    ),
    CatalogEntry(
        code="ace_or_joker_exposed",
        rule=_r(LIVERMORE, "48a", "A misdeal will be declared if a Joker or Ace is boxed or exposed."),
        severity=Severity.MISDEAL,
        template="{card} exposed during the deal ({zone}): misdeal",
        related=(_r(NAPA, "misdeal 1", "A joker or Ace is boxed or exposed."),),
    ),
    CatalogEntry(
        code="two_or_more_exposed",
        rule=_r(LIVERMORE, "48b", "A misdeal will be declared if two or more cards are boxed or exposed."),
        severity=Severity.MISDEAL,
        template="{count} cards exposed during the deal ({cards}): misdeal",
        related=(_r(NAPA, "misdeal 2", "If two or more cards are boxed or exposed."),),
    ),
    CatalogEntry(
        code="one_card_exposed",
        rule=_r(LIVERMORE, "51", "A boxed or exposed card on the deal will be replaced after the deal is "
                "finished by the first of the remaining four cards."),
        severity=Severity.PROCEDURE,
        template="{card} exposed during the deal ({zone}): replace it with the first stub card after the "
                "deal",
    ),
    CatalogEntry(
        code="exposed_card_not_replaced",
        rule=_r(LIVERMORE, "51", "A boxed or exposed card on the deal will be replaced after the deal is "
                "finished by the first of the remaining four cards."),
        severity=Severity.PROCEDURE,
        template="exposed {card} was not replaced by the first stub card before the {when}",
    ),
    CatalogEntry(
        code="duplicate_card",
        rule=_r(LIVERMORE, "60", "When two identical cards are turned up, that hand will be declared a "
                "misdeal. All previous hands will stand as played."),
        severity=Severity.MISDEAL,
        template="two {card} turned up ({first} and {second}): misdeal, previous hands stand",
    ),
    CatalogEntry(
        code="deal_order",
        rule=_r(LIVERMORE, "6", "The Dealer deals seven piles of cards of seven each, from left to right, "
                "then "
                "right to left, alternating until each pile contains seven cards."),
        severity=Severity.PROCEDURE,
        template="card {n} of the deal went to pile {pile}; left-right-left order gives pile {expected}",
    ),
    # ---- Pai Gow: action -----------------------------------------------------------------------
    CatalogEntry(
        code="pile_to_wrong_seat",
        rule=_r(LIVERMORE, "8, 9, 21", "The sum of the dice indicates to which seat the first pile (the "
                "action "
                "pile) is distributed; each pile is distributed to each seat; all action goes clockwise, "
                "starting with the action button."),
        severity=Severity.MISDEAL,
        template="pile {pile} went to seat {seat}; dice {total} ({count_rule}) give seat {expected}",
        related=(_r(NAPA, "misdeal 4", "Hands are dealt in the wrong spot and looked at before all hands are "
                    "out. The Player/Dealer is always counted as numbers 1, 8 or 15."),),
    ),
    CatalogEntry(
        code="dead_hand_not_collected",
        rule=_r(LIVERMORE, "9", "Each pile of seven cards is distributed to each seat at the table. Cards "
                "distributed to seats without a wager are collected by the Dealer."),
        severity=Severity.PROCEDURE,
        template="seat {seat} has no wager but its hand was not collected ({when})",
    ),
    CatalogEntry(
        code="dice_out_of_range",
        rule=_r(LIVERMORE, "8", "The Player-Dealer shakes a dice cup containing three standard dice. The sum "
                "of the dice indicates to which seat the first pile will be distributed."),
        severity=Severity.DEVICE,
        template="dice reading {values} is impossible ({why}): check the dice reader",
    ),
    CatalogEntry(
        code="dice_disagree",
        rule=_r(LIVERMORE, "8", "The sum of the dice indicates to which seat the first pile of seven cards "
                "will be distributed."),
        severity=Severity.DEVICE,
        template="dice reader says {first} but {second_source} says {second}: check the dice",
    ),
    # ---- Pai Gow: setting ----------------------------------------------------------------------
    CatalogEntry(
        code="player_foul",
        rule=_r(LIVERMORE, "49, 50", "All FOUL hands are considered losing hands for the Player that sets "
                "the "
                "hand. Any other Players that have bet on that spot will have the hand set House Way. A "
                "foul: "
                "the two-card front hand is stronger than the five-card back hand, or not exactly two cards "
                "in front, or not exactly five in back."),
        severity=Severity.PROCEDURE,
        template="seat {seat} set a foul hand ({why}): the player loses; backline bets play it house way",
        related=(_r(NAPA, "foul 1-3", "A player has a foul hand and will lose their wager if the two card "
                    "hand "
                    "is stronger than the five card hand, or not exactly two/five cards."),),
    ),
    CatalogEntry(
        code="banker_foul",
        rule=_r(LIVERMORE, "54", "The Dealer cannot allow the Player-Dealer to set his hand foul, it will be "
                "reset the House Way by Management and play will continue."),
        severity=Severity.PROCEDURE,
        template="the Player-Dealer's setting is foul ({why}): call management to reset it house way "
                "({house})",
    ),
    CatalogEntry(
        code="banker_opened_early",
        rule=_r(LIVERMORE, "35, 37", "The Player-Dealer's hand will not be opened until all hands have been "
                "set. If it is accidentally exposed before all hands are set, the unset hands will be set "
                "house way."),
        severity=Severity.PROCEDURE,
        template="the Player-Dealer's hand was exposed before seat(s) {seats} were set: set them house way",
    ),
    CatalogEntry(
        code="banker_reset_after_opening",
        rule=_r(LIVERMORE, "58", "Once the first Player's hand is exposed, the Player-Dealer may not reset "
                "his hand."),
        severity=Severity.PROCEDURE,
        template="the Player-Dealer reset the hand after seat {seat} was opened: the first setting stands",
    ),
    CatalogEntry(
        code="house_way_unset",
        rule=_r(LIVERMORE, "37", "If the Player-Dealer's hand is accidentally exposed before all hands are "
                "set, the unset hands will be set house way."),
        severity=Severity.PROCEDURE,
        template="seat {seat} was set after the Player-Dealer's hand was exposed but not house way",
    ),
    # ---- money ---------------------------------------------------------------------------------
    CatalogEntry(
        code="bet_changed_after_close",
        rule=_r(LIVERMORE, "32", "Once the dealer has announced \"no more bets\" and opened the dice cup, no "
                "one may change his wager. PENALTY: possible forfeiture of wager."),
        severity=Severity.INTEGRITY,
        template="seat {seat}{who} changed the bet from {before} to {after} after no more bets",
        related=(_r(LIVERMORE, "36", "All Players must put the entire wager in the spot before the dice are "
                    "exposed by the Dealer."),),
    ),
    CatalogEntry(
        code="bet_over_max",
        rule=_r(LIVERMORE, "19", "Any amounts over the maximum table limit will receive no action."),
        severity=Severity.PROCEDURE,
        template="seat {seat}{who} bet {amount}, over the {limit} maximum: {excess} gets no action",
    ),
    CatalogEntry(
        code="bet_under_min",
        rule=_r(LIVERMORE, "18", "Players must bet at least the table minimum. A bet less than the table "
                "minimum will receive action, but as a rule will not be tolerated."),
        severity=Severity.PROCEDURE,
        template="seat {seat}{who} bet {amount}, under the {limit} minimum (it still plays)",
    ),
    CatalogEntry(
        code="payout_mismatch",
        rule=_r(LIVERMORE, "13, 23", "Bets are collected and paid only to the extent the Player-Dealer's "
                "money "
                "is in action, in action order; no bettor can win or lose more than he has bet."),
        severity=Severity.INTEGRITY,
        template="seat {seat}{who} was settled {paid}; settlement in action order gives {expected}",
    ),
    CatalogEntry(
        code="banker_not_eligible",
        rule=_r(LIVERMORE, "3, 40", "A Player must wager a minimum of three times during that round of play "
                "and "
                "have wagered on the spot the previous hand to be eligible as Player-Dealer; at most two "
                "consecutive hands."),
        severity=Severity.PROCEDURE,
        template="seat {seat} took the Player-Dealer position but {why}",
    ),
    # ---- poker (Poker Games) ----------------------------------------------------------------------
    CatalogEntry(
        code="hole_count_wrong",
        rule=_r(OTHER_GAMES, "deal", "Each player is dealt the game's hole cards, one at a time, in rotation "
                "(Hold'em two, Omaha four, Pineapple three, Lo-Ball five, Push-Nine three, Pan ten)."),
        severity=Severity.MISDEAL,
        template="seat {seat} has {count} hole cards; {game} deals {expected}",
    ),
    CatalogEntry(
        code="board_count_wrong",
        rule=_r(OTHER_GAMES, "order of play 3-5", "Three cards on the flop, then one on the turn, then one "
                "on the river, each after burning one card."),
        severity=Severity.PROCEDURE,
        template="{street} turned {count} card(s); the {street} is {expected}",
    ),
    CatalogEntry(
        code="burn_missing",
        rule=_r(OTHER_GAMES, "order of play 3-5", "The dealer turns up the flop, the turn and the river, "
                "each "
                "after burning one card."),
        severity=Severity.PROCEDURE,
        template="no burn card before the {street} (burns seen: {burns})",
    ),
    CatalogEntry(
        code="poker_cards_exposed",
        rule=_r(OTHER_GAMES, "deal", "Hole cards are dealt one at a time, face down, in rotation; two or "
                "more "
                "cards exposed on the deal is a misdeal."),
        severity=Severity.MISDEAL,
        template="{count} cards exposed on the deal ({cards}): misdeal",
    ),
    CatalogEntry(
        code="poker_card_exposed",
        rule=_r(OTHER_GAMES, "deal", "Hole cards are dealt face down; one exposed card is shown and replaced "
                "by the house procedure."),
        severity=Severity.PROCEDURE,
        template="{card} exposed on the deal to seat {seat}",
    ),
    CatalogEntry(
        code="poker_duplicate_card",
        rule=_r(OTHER_GAMES, "deck", "A standard 52-card deck is used (one of each card)."),
        severity=Severity.MISDEAL,
        template="two {card} seen ({first} and {second}): the deck is not sound, misdeal",
    ),
    CatalogEntry(
        code="card_not_in_deck",
        rule=_r(OTHER_GAMES, "deck", "Each game uses its own deck: Hold'em and Omaha a standard 52-card deck "
                "without any joker; Lo-Ball adds one joker; Pan removes eights, nines and tens."),
        severity=Severity.INTEGRITY,
        template="{card} seen at {where}, but {game} is played without it",
    ),
    CatalogEntry(
        code="pot_wrong_winner",
        rule=_r(OTHER_GAMES, "showdown", "The player with the high hand will be awarded the pot. In the "
                "event "
                "two people have the same hand, they will split the pot."),
        severity=Severity.INTEGRITY,
        template="{share} pot paid {paid}; the rules give {expected} ({why})",
    ),
    CatalogEntry(
        code="hilo_split_wrong",
        rule=_r(OTHER_GAMES, "Omaha hi-lo", "The low hand, providing it is an eight or better, will split "
                "the "
                "pot with the high hand. Should no player hold an eight or better, the entire pot is awarded "
                "to the best high hand. Tied hands split their portion."),
        severity=Severity.INTEGRITY,
        template="hi-lo pot split {paid}; the rules give {expected} ({why})",
    ),
    CatalogEntry(
        code="push_nine_wrong_winner",
        rule=_r(
            OTHER_GAMES, "Push-Nine",
            "The best hand by the Push-9 ranking table (1. AAA best ... 36. zero "
            "points) wins the pot; aces are high only in AAA and AKQ, tens and face cards count zero."),
        severity=Severity.INTEGRITY,
        template="Push-Nine pot paid {paid}; the rules give {expected} ({why})",
    ),
    CatalogEntry(
        code="push_pot_paid",
        rule=_r(
            OTHER_GAMES, "Push-Nine",
            "If the best hands or hand are tied, there will be a push pot. The "
            "players with the losing hands from the previous pot have the option to get into the push pot "
            "if they agree to buy half the amount of the push pot."),
        severity=Severity.INTEGRITY,
        template="tied best hands must make a push pot, but the pot was paid {paid} ({why})",
    ),
    CatalogEntry(
        code="pan_invalid_meld",
        rule=_r(
            OTHER_GAMES, "Pan definitions",
            "A valid condition is a set of three or more cards of the same "
            "rank (in three or more suits, or all in one suit), or three or more cards in sequence of the "
            "same suit; with no 8s, 9s or 10s in the Pan deck, 7-J-Q is a run."),
        severity=Severity.INTEGRITY,
        template="seat {seat} shows a meld that is {reason}",
    ),
    CatalogEntry(
        code="pan_foul_hand",
        rule=_r(
            OTHER_GAMES, "Pan foul hands",
            "A player found to have more or less than ten cards in all "
            "(unless he has melded eleven cards to win the hand) has a foul hand: he surrenders his cards "
            "and pays the player who wins the hand."),
        severity=Severity.PROCEDURE,
        template="seat {seat}: {why}",
    ),
    CatalogEntry(
        code="pan_wrong_collection",
        rule=_r(
            OTHER_GAMES, "Pan rules 3, 5",
            "The player who melds eleven cards is out and collects two chips "
            "from each player in the hand as well as the antes reserved by the dealer (the antes less the "
            "house rate)."),
        severity=Severity.INTEGRITY,
        template="Pan hand paid {paid}; the rules give {expected} ({why})",
    ),
    # ---- devices and data ----------------------------------------------------------------------
    CatalogEntry(
        code="device_lost",
        rule=_r("", "device", "The monitor needs its cameras and the dice reader to judge the table."),
        severity=Severity.DEVICE,
        template="{device} {name}lost{detail}: the monitor cannot see this table",
    ),
    CatalogEntry(
        code="device_recovered",
        rule=_r("", "device", "The monitor needs its cameras and the dice reader to judge the table."),
        severity=Severity.DEVICE,
        template="{device} {name}recovered after {gap}",
    ),
    CatalogEntry(
        code="event_invalid",
        rule=_r("", "event contract", "Every event must validate against the event schema (docs/events.md)."),
        severity=Severity.DATA,
        template="bad event at {location}: {field}: {problem}",
    ),
    CatalogEntry(
        code="event_conflict",
        rule=_r("", "event contract", "A sequence number names one event; a resend must be identical."),
        severity=Severity.DATA,
        template="seq {seq} was sent again with different content ({first} vs {second}); the first is kept",
    ),
    CatalogEntry(
        code="event_late",
        rule=_r("", "event contract", "Events are reordered by sequence number within a window; older ones "
                "cannot be placed."),
        severity=Severity.DATA,
        template="{type} seq {seq} arrived after seq {last} was already judged: ignored",
    ),
    CatalogEntry(
        code="event_out_of_phase",
        rule=_r("", "round phases", "Events follow the round: bets, no more bets, shuffle, deal, action, "
                "setting, opening, payouts."),
        severity=Severity.INFO,
        template="{type} seq {seq} came {when}: ignored for judging",
    ),
)

CATALOG: Final[dict[str, CatalogEntry]] = {e.code: e for e in _ENTRIES}
