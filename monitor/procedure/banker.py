"""Who may bank: following the Player-Dealer rotation across rounds (Livermore rules 3, 40).

Built on ``monitor.rules.paigow.rotation.BankerRotation``. The table only tells the monitor
who banks each hand (``round_started.banker_seat`` or ``banker_changed``), not who was offered
the bank and refused, so a move of the bank to seat S is read as: the banker passed, every
seat offered before S refused, and S accepted. If S could not have been offered the bank in
turn, the reason (no wager on the previous hand, too few wagers this round of play, a third
consecutive hand) is the alert.

The monitor judges only what it has seen: nothing before it has seen one hand, and the
wager count over the hands seen so far (the rotation counts at most a round of play).
"""

from __future__ import annotations

from dataclasses import replace

from monitor.rules.paigow.errors import RotationError
from monitor.rules.paigow.rotation import BankerRotation, Phase
from monitor.rules.profile import PaiGowProfile


class BankerWatch:
    """Tracks the bank across hands; :meth:`new_banker` says why a banker is not eligible, or None."""

    def __init__(self, profile: PaiGowProfile) -> None:
        self.profile = profile
        self.rotation: BankerRotation | None = None

    @property
    def banker(self) -> int | None:
        return self.rotation.banker if self.rotation is not None else None

    def new_banker(self, seat: int) -> str | None:
        """A hand is about to be dealt with ``seat`` banking: why that breaks rule 3 or 40, if it does."""
        r = self.rotation
        if r is None:
            self.rotation = BankerRotation.new(self.profile).open_game(seat)
            return None
        if r.phase is Phase.BANKING and r.banker == seat:
            if r.hands_banked >= self.profile.banker_max_consecutive:
                self.rotation = replace(r, hands_banked=0)
                return (f"has already banked {r.hands_banked} consecutive hands, the most allowed "
                        f"(seed 000 rule 3a)")
            return None
        why = self._why_not(r, seat)
        self.rotation = self._move_to(r, seat)
        return why

    def _why_not(self, r: BankerRotation, seat: int) -> str | None:
        if not r.history or not 1 <= seat <= self.profile.seats:
            return None
        return r.why_not_eligible(seat)

    def _move_to(self, r: BankerRotation, seat: int) -> BankerRotation:
        try:
            state = r.pass_bank() if r.phase is Phase.BANKING else r
            while state.phase is Phase.OFFERING and state.offered_to not in (None, seat):
                assert state.offered_to is not None
                state = state.refuse(state.offered_to)
            if state.phase is Phase.OFFERING and state.offered_to == seat:
                return state.accept(seat)
        except RotationError:
            pass
        # Not reachable by the rules: follow the table anyway so that later hands are judged.
        return replace(r, phase=Phase.BANKING, banker=seat, hands_banked=0, offered_to=None, passed_from=None)

    def hand_played(self, wagering_seats: set[int]) -> None:
        r = self.rotation
        if r is None or r.phase is not Phase.BANKING:
            return
        seats = {s for s in wagering_seats if 1 <= s <= self.profile.seats}
        if r.hands_banked >= self.profile.banker_max_consecutive:
            r = replace(r, hands_banked=self.profile.banker_max_consecutive - 1)
        self.rotation = r.hand_played(seats)
