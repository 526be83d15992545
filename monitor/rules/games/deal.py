"""Deal structures as data: what goes on the table, in what order, for each game of the Poker Games rulebook.

The procedure monitor walks these steps to know how many cards each player, the burn pile and
the board should hold at any point of the hand, and flags a missing burn or a wrong count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from monitor.rules.errors import CardCountError, RulesError
from monitor.rules.games.deck import Deck


class StepKind(StrEnum):
    HOLE = "hole"  # ``count`` cards to every player, one at a time in rotation
    BURN = "burn"  # ``count`` cards face down to the burn pile
    BOARD = "board"  # ``count`` community cards
    DRAW = "draw"  # every player may discard and draw up to ``count`` replacements
    BET = "bet"  # a betting period, no cards
    PLAY = "play"  # Pan: players draw and meld in turn until one goes out
    SHOWDOWN = "showdown"


@dataclass(frozen=True, slots=True)
class DealStep:
    kind: StepKind
    count: int = 0
    face_up: bool = False
    label: str = ""


@dataclass(frozen=True, slots=True)
class TableCount:
    """How many cards should be where after some steps of the deal."""

    hole_per_player: int
    burns: int
    board: int
    dealt: int  # cards out of the deck (hole + burns + board + draws)

    def stub(self, deck_size: int) -> int:
        return deck_size - self.dealt


@dataclass(frozen=True, slots=True)
class DealStructure:
    game: str
    deck: Deck
    steps: tuple[DealStep, ...]
    min_players: int
    max_players: int
    seed_ref: str

    @property
    def hole_cards(self) -> int:
        return sum(s.count for s in self.steps if s.kind is StepKind.HOLE)

    @property
    def board_cards(self) -> int:
        return sum(s.count for s in self.steps if s.kind is StepKind.BOARD)

    @property
    def burns(self) -> int:
        return sum(s.count for s in self.steps if s.kind is StepKind.BURN)

    def step_index(self, label: str) -> int:
        for i, s in enumerate(self.steps):
            if s.label == label:
                return i
        labels = ", ".join(s.label for s in self.steps if s.label)
        raise RulesError(f"{self.game}: no deal step {label!r} (steps: {labels})")

    def expected(
        self, players: int, through: int | str | None = None, draws: Mapping[str, int] | None = None
    ) -> TableCount:
        """Counts after the steps up to and including ``through`` (index or label; None = whole hand).

        ``draws`` gives how many cards each player drew at the draw round, when it is past.
        """
        if not self.min_players <= players <= self.max_players:
            raise CardCountError(
                f"{self.game} is dealt to {self.min_players}..{self.max_players} players, not {players}"
            )
        last = len(self.steps) - 1 if through is None else (
            self.step_index(through) if isinstance(through, str) else through
        )
        if not 0 <= last < len(self.steps):
            raise RulesError(f"{self.game}: step {last} out of range 0..{len(self.steps) - 1}")
        hole = burns = board = drawn = 0
        for step in self.steps[: last + 1]:
            if step.kind is StepKind.HOLE:
                hole += step.count
            elif step.kind is StepKind.BURN:
                burns += step.count
            elif step.kind is StepKind.BOARD:
                board += step.count
            elif step.kind is StepKind.DRAW:
                for who, n in (draws or {}).items():
                    if not 0 <= n <= step.count:
                        raise CardCountError(f"{self.game}: {who} drew {n} cards, the limit is {step.count}")
                    drawn += n
        dealt = hole * players + burns + board + drawn
        # Draws may run past the stub (the discards are then reshuffled), the first deal may not.
        if dealt - drawn > self.deck.size:
            raise CardCountError(
                f"{self.game}: {players} players need {dealt - drawn} cards, the deck holds {self.deck.size}"
            )
        return TableCount(hole_per_player=hole, burns=burns, board=board, dealt=dealt)


def _board_steps(burn: bool, hole: int) -> tuple[DealStep, ...]:
    """Flop-turn-river community-card games (Poker Games Hold'em order of play 1-5)."""
    steps = [DealStep(StepKind.HOLE, 1, label=f"hole {i + 1}") for i in range(hole)]
    steps.append(DealStep(StepKind.BET, label="first betting"))
    for street, n, bet in (("flop", 3, "second"), ("turn", 1, "third"), ("river", 1, "final")):
        if burn:
            steps.append(DealStep(StepKind.BURN, 1, label=f"burn {street}"))
        steps.append(DealStep(StepKind.BOARD, n, face_up=True, label=street))
        steps.append(DealStep(StepKind.BET, label=f"{bet} betting"))
    steps.append(DealStep(StepKind.SHOWDOWN, label="showdown"))
    return tuple(steps)


def board_game_structure(game: str, deck: Deck, hole: int, burn: bool, seed_ref: str) -> DealStructure:
    # 52 cards: with 3 burns and 5 board cards, (52 - 8) // hole players at most.
    return DealStructure(game, deck, _board_steps(burn, hole), 2, min(10, (deck.size - 8) // hole), seed_ref)


def draw_game_structure(game: str, deck: Deck, hand: int, max_draw: int, burn: bool) -> DealStructure:
    steps = (
        *(DealStep(StepKind.HOLE, 1, label=f"card {i + 1}") for i in range(hand)),
        DealStep(StepKind.BET, label="first betting"),
        *((DealStep(StepKind.BURN, 1, label="burn draw"),) if burn else ()),
        DealStep(StepKind.DRAW, max_draw, label="draw"),
        DealStep(StepKind.BET, label="second betting"),
        DealStep(StepKind.SHOWDOWN, label="showdown"),
    )
    return DealStructure(game, deck, steps, 2, 8, "seed 004 Lo-Ball")
