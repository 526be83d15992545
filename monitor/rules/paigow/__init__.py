"""Pai Gow Poker game logic: settings and fouls, showdown, house way, settlement, banker rotation, dice.

Everything here is pure (no I/O, no global state) and cites the rule it implements by its rulebook
and number ("Livermore rule 50"; the rulebooks are in monitor/rules/references/ and docs/rules.md).
"""
