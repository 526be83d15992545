"""Banker rotation: seed 000 rules 3, 40; seed 004 S&K variant."""

from __future__ import annotations

import pytest

from monitor.rules.paigow.errors import RotationError
from monitor.rules.paigow.rotation import BankerRotation, Phase
from monitor.rules.profile import DEFAULT_PROFILE, S_AND_K

ALL = {1, 2, 3, 4, 5, 6, 7}


def played(r: BankerRotation, hands: int, seats: set[int]) -> BankerRotation:
    for k in range(hands):
        r = r.hand_played(seats)
        if k < hands - 1:
            r = r.keep()
    return r


def test_seed000_rule3a_at_most_two_consecutive_hands() -> None:
    r = played(BankerRotation.new(DEFAULT_PROFILE).open_game(1), 2, ALL)
    assert not r.can_deal
    with pytest.raises(RotationError, match="rule 3a"):
        r.keep()
    with pytest.raises(RotationError, match="rule 3a"):
        r.hand_played(ALL)


def test_seed000_rule3_rule3d_three_wagers_in_the_round() -> None:
    r = BankerRotation.new(DEFAULT_PROFILE).open_game(1)
    r = r.hand_played(ALL).keep().hand_played(ALL).pass_bank()
    # Two hands into a new game every seat that wagered both is eligible; seat 2 is next clockwise.
    assert r.phase is Phase.OFFERING and r.offered_to == 2
    r = r.accept(2).hand_played({3, 4}).keep().hand_played({3, 4, 5}).pass_bank()
    # Seat 3 wagered in all four hands and comes first clockwise from seat 2.
    assert r.offered_to == 3
    r = r.refuse(3)
    assert r.offered_to == 4
    r = r.refuse(4)
    assert r.offered_to == 5  # wagered in hands 1, 2 and 4: three times this round
    r = r.refuse(5)
    # Seats 6, 7, 1 had no wager on the previous hand (rule 40); the passing banker may not take it back.
    assert r.phase is Phase.NO_BANKER and not r.can_deal


def test_eligibility_needs_three_wagers_and_previous_hand_rule3d_rule40() -> None:
    r = BankerRotation.new(DEFAULT_PROFILE).open_game(1)
    r = r.hand_played({2, 3}).keep().hand_played({2, 3}).pass_bank().accept(2)
    r = r.hand_played({3, 4}).keep().hand_played({3, 4, 6})
    assert r.eligible(3) and not r.eligible(4)
    why6 = r.why_not_eligible(6) or ""
    assert "wagered 1 time(s) this round, needs 3" in why6 and "rule 3d" in why6
    assert "rule 40" in (r.why_not_eligible(5) or "")
    assert r.why_not_eligible(3) is None


def three_wager_table() -> BankerRotation:
    """A table whose profile needs one wager in the round, banked by seat 1."""
    p = DEFAULT_PROFILE.model_copy(update={"banker_min_wagers_in_round": 1})
    return BankerRotation.new(p).open_game(1)


def test_pass_offers_in_rotation_accept_refuse() -> None:
    r = three_wager_table().hand_played({2, 3, 5}).pass_bank()
    assert r.phase is Phase.OFFERING and r.offered_to == 2
    with pytest.raises(RotationError, match="offered to seat 2"):
        r.accept(3)
    r = r.refuse(2)
    assert r.offered_to == 3  # clockwise: 3 wagered on the previous hand
    r = r.refuse(3)
    assert r.offered_to == 5  # seat 4 had no wager on the previous hand (rule 40): passed over
    r = r.accept(5)
    assert r.phase is Phase.BANKING and r.banker == 5 and r.can_deal


def test_everyone_refuses_no_game_without_banker_sk() -> None:
    r = three_wager_table().hand_played({2}).pass_bank().refuse(2)
    assert r.phase is Phase.NO_BANKER and not r.can_deal
    with pytest.raises(RotationError, match="without a banker"):
        r.hand_played({2})
    with pytest.raises(RotationError, match="no volunteer banker"):
        r.volunteer(4)


def test_seed004_sk_counterclockwise_and_volunteer() -> None:
    p = S_AND_K.model_copy(update={"banker_min_wagers_in_round": 1})
    r = BankerRotation.new(p).open_game(4).hand_played({2, 3, 5, 6}).pass_bank()
    assert r.offered_to == 3  # counterclockwise from seat 4
    r = r.refuse(3).refuse(2).refuse(6).refuse(5)
    assert r.phase is Phase.NO_BANKER
    r = r.volunteer(6)
    assert r.banker == 6 and r.can_deal


def test_illegal_transitions_named() -> None:
    r = BankerRotation.new(DEFAULT_PROFILE)
    with pytest.raises(RotationError, match="no hand can be played"):
        r.hand_played({1})
    r = r.open_game(2)
    with pytest.raises(RotationError, match="at least one hand"):
        r.pass_bank()
    with pytest.raises(RotationError, match="not on offer"):
        r.accept(3)
    with pytest.raises(RotationError, match="cannot open a new game"):
        r.open_game(3)


def test_hands_in_game_counts_for_free_collection_rule63() -> None:
    r = three_wager_table().hand_played({2}).keep().hand_played({2})
    assert r.hands_in_game == 2
