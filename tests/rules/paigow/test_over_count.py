"""Duplicates by count (seed 000 rule 60 without the suits): a third card of one rank and ink."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.rules.cards import INK, PAI_GOW_53
from monitor.rules.paigow.over_count import (
    OverCount,
    ReadCard,
    hand_tally,
    merged,
    over_counts,
    part_tally,
)

DECK = [str(c) for c in PAI_GOW_53]


def _as_read(card: str, how: str) -> ReadCard:
    """A card as vision may read it: named, rank and ink, rank only, or nothing."""
    if how == "name":
        return ReadCard(card=card)
    rank, ink = (None, None) if card == "Jk" else (card[0], INK[card[1]])
    if how == "rank_ink":
        return ReadCard(rank=rank, ink=ink)
    if how == "rank":
        return ReadCard(rank=rank)
    return ReadCard()


def test_three_red_kings_over_three_hands_are_a_duplicate_whatever_their_suits() -> None:
    hands = {
        "pile 3": hand_tally([[ReadCard(rank="K", ink="red")], [ReadCard(card="Qd")]]),
        "pile 5": hand_tally([[], [ReadCard(card="Kh"), ReadCard(rank="K", ink="black")]]),
        "pile 2": hand_tally([[ReadCard(rank="K", ink="red")], []]),
    }
    assert over_counts(hands) == [OverCount("K", "red", 3, ("pile 2", "pile 3", "pile 5"))]
    assert over_counts(hands)[0].text == "identical red kings (3 seen; one deck holds 2)"
    del hands["pile 2"]
    assert over_counts(hands) == []  # the king of hearts and a red king: the two a deck holds


def test_a_card_read_twice_in_one_part_counts_once() -> None:
    # one king's two indices, one named and one not (or both unnamed), not merged by the reader
    assert part_tally([ReadCard(card="Kh"), ReadCard(rank="K", ink="red")]) == Counter({("K", "red"): 1})
    assert part_tally([ReadCard(rank="K", ink="red")] * 2) == Counter({("K", "red"): 1})
    # two names are two cards
    assert part_tally([ReadCard(card="Kh"), ReadCard(card="Kd")]) == Counter({("K", "red"): 2})


def test_a_hand_read_again_counts_as_its_fullest_reading() -> None:
    first = hand_tally([[ReadCard(rank="K", ink="red")], []])
    again = hand_tally([[ReadCard(rank="K", ink="red")], [ReadCard(card="Kd")]])
    assert merged(merged(None, first), again) == Counter({("K", "red"): 2})
    assert merged(again, first) == Counter({("K", "red"): 2})


def test_what_is_not_counted() -> None:
    # a rank without its ink, a jack read by rank (it may be the jester joker), the joker, nothing
    for c in (ReadCard(rank="K"), ReadCard(rank="J", ink="red"), ReadCard(card="Jk"), ReadCard()):
        assert c.key() is None
    assert ReadCard(card="Jh").key() == ("J", "red")  # a jack named is a jack


@settings(max_examples=200, deadline=None)
@given(st.permutations(DECK), st.lists(st.sampled_from(["name", "rank_ink", "rank", "none"]), min_size=53,
                                       max_size=53),
       st.lists(st.integers(0, 48), max_size=6))
def test_one_deck_read_any_way_is_never_a_duplicate(order: list[str], hows: list[str],
                                                    twice: list[int]) -> None:
    """Seven hands of seven from one deck, each card read as far as vision got, some cards read twice
    in their part (named once and by rank once, or by rank twice): no rank and ink over-counted."""
    hands = {}
    for h in range(7):
        seven = order[7 * h:7 * h + 7]
        parts = [[_as_read(c, hows[DECK.index(c)]) for c in seven[:2]],
                 [_as_read(c, hows[DECK.index(c)]) for c in seven[2:]]]
        for i in twice:
            if i // 7 == h and seven[i % 7] != "Jk":
                c = seven[i % 7]
                parts[0 if i % 7 < 2 else 1].append(_as_read(c, "rank_ink"))
        hands[f"pile {h + 1}"] = hand_tally(parts)
    assert over_counts(hands) == []


@settings(max_examples=100, deadline=None)
@given(st.permutations(DECK[:-1]), st.integers(0, 51))
def test_a_card_of_a_second_deck_is_found_once_both_its_twins_are_read(order: list[str], pick: int) -> None:
    """A card from a second deck in one hand, and both cards of its rank and ink read (by name or by
    rank and ink) in the others: a duplicate by count."""
    extra = order[pick]
    twin = next(c for c in order if c != extra and c[0] == extra[0] and INK[c[1]] == INK[extra[1]])
    hands = {"pile 1": hand_tally([[ReadCard(card=extra)], []]),
             "pile 2": hand_tally([[ReadCard(rank=twin[0], ink=INK[twin[1]])], []]),
             "pile 3": hand_tally([[], [ReadCard(rank=extra[0], ink=INK[extra[1]])]])}
    over = over_counts(hands)
    if extra[0] == "J":
        assert over == []  # a jack read by rank alone may be the joker: not counted
    else:
        assert [(o.rank, o.ink, o.count) for o in over] == [(extra[0], INK[extra[1]], 3)]
