"""Deal structures as data: the counts the procedure monitor expects on the table at each step."""

import pytest

from monitor.rules.cards import parse_cards
from monitor.rules.errors import CardCountError, CardNotInDeckError, DuplicateCardError, RulesError
from monitor.rules.games.deal import StepKind
from monitor.rules.games.deck import LOWBALL_DECK, STANDARD_DECK, pan_deck
from monitor.rules.games.poker import GAMES
from monitor.rules.games.profile import GameProfile, PokerRules


def test_holdem_order_of_play_with_burns() -> None:
    # Seed 004 Hold'em order of play: two cards each, then burn + 3, burn + 1, burn + 1, betting between.
    ds = GAMES["holdem"].deal_structure()
    kinds = [(s.kind, s.count) for s in ds.steps if s.kind is not StepKind.BET]
    assert kinds == [
        (StepKind.HOLE, 1), (StepKind.HOLE, 1),
        (StepKind.BURN, 1), (StepKind.BOARD, 3), (StepKind.BURN, 1), (StepKind.BOARD, 1),
        (StepKind.BURN, 1), (StepKind.BOARD, 1), (StepKind.SHOWDOWN, 0),
    ]
    assert sum(s.kind is StepKind.BET for s in ds.steps) == 4  # four betting periods
    assert (ds.hole_cards, ds.burns, ds.board_cards) == (2, 3, 5)
    flop = ds.expected(6, through="flop")
    assert (flop.hole_per_player, flop.burns, flop.board, flop.dealt) == (2, 1, 3, 16)
    end = ds.expected(6)
    assert end.dealt == 20 and end.stub(ds.deck.size) == 32
    assert ds.expected(6, through="burn turn").burns == 2


@pytest.mark.parametrize(("game", "hole"), [("omaha", 4), ("omaha_hilo", 4), ("pineapple", 3),
                                            ("holdem_hilo", 2)])
def test_board_games_hole_counts(game: str, hole: int) -> None:
    ds = GAMES[game].deal_structure()
    assert ds.hole_cards == hole and ds.board_cards == 5 and ds.deck is STANDARD_DECK
    assert ds.expected(ds.max_players).dealt <= 52


def test_burns_are_a_profile_setting() -> None:
    no_burn = GameProfile(poker=PokerRules(burn_before_board=False))
    assert GAMES["omaha"].deal_structure(no_burn).burns == 0


def test_lowball_draw_round() -> None:
    ds = GAMES["lowball"].deal_structure()
    assert ds.deck is LOWBALL_DECK and ds.deck.size == 53
    assert [s.kind for s in ds.steps if s.kind not in (StepKind.HOLE,)] == [
        StepKind.BET, StepKind.BURN, StepKind.DRAW, StepKind.BET, StepKind.SHOWDOWN]
    before = ds.expected(4, through="first betting")
    assert before.dealt == 20
    after = ds.expected(4, draws={"s1": 2, "s2": 0, "s3": 5, "s4": 1})
    assert after.dealt == 20 + 1 + 8
    with pytest.raises(CardCountError, match="s1 drew 6 cards, the limit is 5"):
        ds.expected(4, draws={"s1": 6})


def test_structure_input_errors() -> None:
    ds = GAMES["holdem"].deal_structure()
    with pytest.raises(CardCountError, match=r"dealt to 2\.\.10 players, not 11"):
        ds.expected(11)
    with pytest.raises(RulesError, match="no deal step 'fourth street'"):
        ds.expected(4, through="fourth street")


def test_deck_checks_name_the_card_and_the_place() -> None:
    with pytest.raises(CardNotInDeckError, match=r"seat 3: Jk not in the standard 52-card deck \(52 cards\)"):
        STANDARD_DECK.check(parse_cards("As Jk"), "seat 3")
    with pytest.raises(DuplicateCardError, match="board: card\\(s\\) seen twice: As"):
        STANDARD_DECK.check(parse_cards("As Kd As"), "board")
    pan_message = r"meld: 8h 9h Th not in the Pan \(no 8, 9, 10\) deck \(6 x 40 cards\)"
    with pytest.raises(CardNotInDeckError, match=pan_message):
        pan_deck(6).check(parse_cards("Th 9h 8h 7h"), "meld")
