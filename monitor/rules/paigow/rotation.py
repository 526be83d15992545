"""Banker (Player-Dealer) rotation as an immutable state machine.

Livermore rule 3 (and Lucky Chances): play rotates clockwise; each eligible player may (a) bank two
consecutive hands, (b) bank one hand and pass, or (c) refuse, and the option goes to the next player;
(d) to be eligible a player must have wagered at least three times during that round of play. Rule 40:
only a player who wagered on that spot the previous hand may be the Player-Dealer there. S&K: the bank
rotates counterclockwise, at most two hands per round; if most players do not wish to bank, any one
player may bank at all times; the game is not played without a player acting as the bank.

The profile gives the direction (``banker_rotation``), the limit (``banker_max_consecutive``), the
wager count (``banker_min_wagers_in_round``) and the S&K volunteer rule
(``banker_volunteer_when_all_refuse``).

"Round of play" is the bank's trip around the table: the last ``profile.seats`` hands. A seat is eligible
when it wagered on the previous hand and in at least ``banker_min_wagers_in_round`` of those hands - or,
early in a new game, in every hand played so far (a game cannot have a three-wager round before its
third hand, and it must not stop for that).

Every method returns a new state or raises :class:`RotationError` naming the illegal move.

>>> from monitor.rules.profile import DEFAULT_PROFILE
>>> r = BankerRotation.new(DEFAULT_PROFILE).open_game(2)
>>> r = r.hand_played({3, 5}).keep().hand_played({3, 5})
>>> r.banker, r.hands_banked, r.can_deal
(2, 2, False)
>>> r = r.pass_bank()  # offered clockwise to the next seat that wagered every hand so far
>>> r.phase.value, r.offered_to
('offering', 3)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from monitor.rules.paigow.dice import check_seat, step
from monitor.rules.paigow.errors import RotationError
from monitor.rules.profile import PaiGowProfile


class Phase(StrEnum):
    NEW_GAME = "new_game"  # nobody has banked yet: a seat opens the game
    BANKING = "banking"  # a banker is in place; hands can be dealt
    OFFERING = "offering"  # the bank was passed and is being offered to ``offered_to``
    NO_BANKER = "no_banker"  # every eligible seat refused: no game (S&K)


@dataclass(frozen=True, slots=True)
class BankerRotation:
    profile: PaiGowProfile
    phase: Phase = Phase.NEW_GAME
    banker: int | None = None
    hands_banked: int = 0
    offered_to: int | None = None
    passed_from: int | None = None
    history: tuple[frozenset[int], ...] = ()  # wagering seats of the last `seats` hands, oldest first
    hands_in_game: int = 0

    @classmethod
    def new(cls, profile: PaiGowProfile) -> BankerRotation:
        return cls(profile=profile)

    @property
    def wagered_last_hand(self) -> frozenset[int]:
        return self.history[-1] if self.history else frozenset()

    def wagers_in_round(self, seat: int) -> int:
        n = 0
        for h in self.history:
            if seat in h:
                n += 1
        return n

    @property
    def wagers_needed(self) -> int:
        return min(self.profile.banker_min_wagers_in_round, len(self.history))

    # -- queries -------------------------------------------------------------------------------------
    @property
    def can_deal(self) -> bool:
        """A hand may be dealt only with a banker in place (S&K: no game without a bank)."""
        return self.phase is Phase.BANKING and self.hands_banked < self.profile.banker_max_consecutive

    def eligible(self, seat: int) -> bool:
        """Rules 3d and 40: enough wagers this round and a wager on this spot the previous hand."""
        check_seat(seat, self.profile)
        return seat in self.wagered_last_hand and self.wagers_in_round(seat) >= self.wagers_needed

    def why_not_eligible(self, seat: int) -> str | None:
        check_seat(seat, self.profile)
        if seat not in self.wagered_last_hand:
            return f"seat {seat} had no wager on the previous hand (rule 40)"
        n = self.wagers_in_round(seat)
        need = self.wagers_needed
        if n < need:
            return f"seat {seat} wagered {n} time(s) this round, needs {need} (rule 3d)"
        return None

    # -- transitions ---------------------------------------------------------------------------------
    def open_game(self, seat: int) -> BankerRotation:
        """A seat takes the bank to open a new game (also after a game stopped for want of a banker)."""
        check_seat(seat, self.profile)
        if self.phase not in (Phase.NEW_GAME, Phase.NO_BANKER):
            raise RotationError(f"cannot open a new game while the game is {self.phase.value}")
        return BankerRotation.new(self.profile)._take_bank(seat)

    def hand_played(self, wagering_seats: Iterable[int]) -> BankerRotation:
        """Record a hand dealt with the current banker; ``wagering_seats`` are the seats that had a wager."""
        if self.phase is not Phase.BANKING or self.banker is None:
            raise RotationError(
                f"no hand can be played while the game is {self.phase.value}: "
                "the game is not played without a banker (S & K Cardroom Pai Gow Poker, rotation)"
            )
        if self.hands_banked >= self.profile.banker_max_consecutive:
            raise RotationError(
                f"banker at seat {self.banker} has banked {self.hands_banked} consecutive hands, the most "
                f"allowed ({self.profile.banker_max_consecutive}, rule 3a); the bank must pass"
            )
        n = self.profile.seats
        seats: set[int] = set()
        for s in wagering_seats:
            if type(s) is not int or not 1 <= s <= n:  # the common case inline; check_seat words the error
                check_seat(s, self.profile, "wagering seat")
            seats.add(s)
        seats.add(self.banker)  # the Player-Dealer wagers on his own spot too (rule 13)
        history = (*self.history, frozenset(seats))[-n:]
        # Built field by field: ``dataclasses.replace`` costs four times as much, and it runs every hand.
        return BankerRotation(
            self.profile, self.phase, self.banker, self.hands_banked + 1, self.offered_to, self.passed_from,
            history, self.hands_in_game + 1,
        )

    def keep(self) -> BankerRotation:
        """The banker takes the next hand too (rule 3a); only after a hand, and within the limit."""
        self._need_banker("keep the bank")
        if self.hands_banked == 0:
            raise RotationError(f"banker at seat {self.banker} has not banked a hand yet; nothing to keep")
        if self.hands_banked >= self.profile.banker_max_consecutive:
            raise RotationError(
                f"banker at seat {self.banker} cannot bank a hand number {self.hands_banked + 1} in a row "
                f"(at most {self.profile.banker_max_consecutive}, rule 3a)"
            )
        return self

    def pass_bank(self) -> BankerRotation:
        """The banker gives up the bank after at least one hand (rule 3b); it is offered in rotation."""
        banker = self._need_banker("pass the bank")
        if self.hands_banked == 0:
            raise RotationError(f"banker at seat {banker} must bank at least one hand before passing")
        moved = BankerRotation(
            self.profile, Phase.OFFERING, None, 0, self.offered_to, banker, self.history, self.hands_in_game
        )
        return moved._offer_after(banker)

    def accept(self, seat: int) -> BankerRotation:
        if self.phase is not Phase.OFFERING or self.offered_to is None:
            raise RotationError(f"seat {seat} cannot accept the bank: not on offer ({self.phase.value})")
        if seat != self.offered_to:
            raise RotationError(
                f"seat {seat} cannot take the bank: it is offered to seat {self.offered_to} in turn (rule 3)"
            )
        return self._take_bank(seat, keep_history=True)

    def refuse(self, seat: int) -> BankerRotation:
        """The offered seat refuses (rule 3c); the option goes to the next eligible seat."""
        if self.phase is not Phase.OFFERING or self.offered_to is None:
            raise RotationError(f"seat {seat} cannot refuse the bank: not on offer ({self.phase.value})")
        if seat != self.offered_to:
            raise RotationError(f"seat {seat} cannot refuse: the bank is offered to seat {self.offered_to}")
        return self._offer_after(seat)

    def volunteer(self, seat: int) -> BankerRotation:
        """S&K: after every eligible seat refused, any one player may bank."""
        check_seat(seat, self.profile)
        if self.phase is not Phase.NO_BANKER:
            raise RotationError(f"seat {seat} cannot volunteer to bank while the game is {self.phase.value}")
        if not self.profile.banker_volunteer_when_all_refuse:
            raise RotationError(
                f"seat {seat} cannot volunteer: profile {self.profile.name!r} has no volunteer banker "
                "(S & K Cardroom Pai Gow Poker, rotation: off); open a new game instead"
            )
        return self._take_bank(seat, keep_history=True)

    # -- helpers -------------------------------------------------------------------------------------
    def _need_banker(self, what: str) -> int:
        if self.phase is not Phase.BANKING or self.banker is None:
            raise RotationError(f"cannot {what}: there is no banker ({self.phase.value})")
        return self.banker

    def _offer_after(self, seat: int) -> BankerRotation:
        """Offer the bank to the next eligible seat after ``seat`` in rotation."""
        n = self.profile.seats
        last = self.wagered_last_hand
        need = self.wagers_needed
        for k in range(1, n):
            cand = step(seat, k, self.profile.banker_rotation, n)
            if cand == self.passed_from:
                break  # the offer came all the way round: the passing banker may not take it back (rule 3)
            if cand in last and self.wagers_in_round(cand) >= need:  # eligible(), the seat valid by step()
                return self._moved(Phase.OFFERING, self.banker, self.hands_banked, cand, self.passed_from)
        return self._moved(Phase.NO_BANKER, self.banker, self.hands_banked, None, self.passed_from)

    def _take_bank(self, seat: int, keep_history: bool = False) -> BankerRotation:
        return self._moved(Phase.BANKING, seat, 0, None, self.passed_from if keep_history else None)

    def _moved(
        self, phase: Phase, banker: int | None, hands_banked: int, offered_to: int | None,
        passed_from: int | None,
    ) -> BankerRotation:
        """This state with the bank moved (profile, wager history and hand count kept)."""
        return BankerRotation(
            self.profile, phase, banker, hands_banked, offered_to, passed_from, self.history,
            self.hands_in_game,
        )
