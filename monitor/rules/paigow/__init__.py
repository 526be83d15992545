"""Pai Gow Poker game logic: settings and fouls, showdown, house way, settlement, banker rotation, dice.

Everything here is pure (no I/O, no global state) and cites the seed rule it implements
(``seed 000 rule 50`` is Livermore's rule 50; see /work/shared/seeds/README.md).
"""
