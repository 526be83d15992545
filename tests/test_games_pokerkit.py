"""Agreement with pokerkit on a sample of random deals (the full 100,000-deal run is
``table-monitor verify-games --deals 100000``; its result is in docs/benchmarks.md)."""

import pytest

from monitor.commands._games_pokerkit import run_suite


@pytest.mark.parametrize(("suite", "deals"), [("holdem", 1500), ("omaha", 400), ("lowball", 3000)])
def test_agrees_with_pokerkit(suite: str, deals: int) -> None:
    res = run_suite(suite, deals, seed=2026)
    assert res.deals == deals
    assert res.hands >= 2 * deals and res.comparisons >= deals
    assert res.mismatches == []
