"""Rules of the room's other games (seed ``004_de25eb682010f199.txt``), pure and without I/O.

- ``poker``: Texas Hold'em (high; hi-lo eight or better), Omaha (high; hi-lo eight or better),
  Pineapple and Lo-Ball: deal structures and ``showdown`` (who wins what share of each pot, why).
- ``lowball``: the Lo-Ball draw round (discards and replacements) checked card by card.
- ``push_nine``: the seed's 36-row hand table, showdown and push pot.
- ``pan``: conditions (sets and runs), foul hands, turns, the house rate and settlement.
- ``deal``: deal structures as data (hole cards, burns, board cards, draws, betting periods).
- ``deck``: each game's deck and the strict card checks (card twice, card not in the deck).
- ``low``/``high``: ace-to-five and eight-or-better lows; high hands on ``monitor.rules.hands``.
- ``profile``: every room variation as data (``GameProfile``).

Every error is a ``monitor.rules.errors.RulesError`` naming the bad input and where it was.
"""
