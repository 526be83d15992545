import pytest

from monitor.rules.cards import (
    JOKER,
    PAI_GOW_53,
    Card,
    card_from_index,
    check_distinct,
    parse_card,
    parse_cards,
)
from monitor.rules.errors import CardParseError, DuplicateCardError


def test_parse_and_format_round_trip_for_whole_deck() -> None:
    assert len(PAI_GOW_53) == 53 and len(set(PAI_GOW_53)) == 53
    for c in PAI_GOW_53:
        assert parse_card(c.text) == c
        assert card_from_index(c.index) == c


def test_aliases() -> None:
    assert parse_card("10d") == parse_card("Td") == Card(10, "d")
    assert parse_card("JK") is JOKER or parse_card("JK") == JOKER
    assert parse_cards("AsKd") == (Card(14, "s"), Card(13, "d"))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Xs", "unknown rank 'X'"), ("Ax", "unknown suit 'x'"), ("A", "two characters"), (" As", "whitespace")],
)
def test_bad_cards_name_the_input(text: str, fragment: str) -> None:
    with pytest.raises(CardParseError, match=fragment):
        parse_card(text)


def test_duplicate_named() -> None:
    with pytest.raises(DuplicateCardError, match="As"):
        check_distinct(parse_cards("As Kd As"), "pile 3")
