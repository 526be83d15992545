"""Fast paths of the hand evaluator: integer lookup tables, per-call scorers, numpy/numba batches.

Every fast path returns exactly ``HandValue.score`` of ``monitor.rules.hands`` for the same cards and profile.
"""
