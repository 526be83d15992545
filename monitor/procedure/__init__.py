"""Procedure monitors: deterministic state machines over table events that raise rule-cited alerts.

Entry points: :class:`monitor.procedure.monitor.Monitor` (Python API), :mod:`monitor.procedure.feed`
(a live stream others push into), :mod:`monitor.procedure.replay` (JSONL files).
"""
