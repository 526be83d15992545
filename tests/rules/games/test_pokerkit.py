"""Agreement with pokerkit on a sample of random deals (the full 100,000-deal run is
``table-monitor verify-games --deals 100000``; its result is in docs/benchmarks.md).

``full_every=1``: pokerkit's own ``from_game`` picks every best hand; a large ``full_every``:
pokerkit values each legal five-card choice (the fast path the full Omaha run uses)."""

import pytest

from monitor.lab.pokerkit_check import run_suite


@pytest.mark.parametrize(
    ("suite", "deals", "full_every"),
    [("holdem", 1500, 1), ("omaha", 300, 1), ("omaha", 1500, 10**9), ("pineapple", 600, 2),
     ("lowball", 3000, 1)],
)
def test_agrees_with_pokerkit(suite: str, deals: int, full_every: int) -> None:
    res = run_suite(suite, deals, seed=2026, full_every=full_every)
    assert res.deals == deals
    assert res.hands >= 2 * deals and res.comparisons >= deals
    if suite != "lowball":
        assert res.full_peer_deals == -(-deals // full_every)
    assert res.mismatches == []
