"""Procedure monitors: deterministic state machines over table events that raise rule-cited alerts.

Entry points: :class:`monitor.procedure.monitor.Monitor` (Python API), :mod:`monitor.procedure.feed`
(a live stream others push into), :mod:`monitor.procedure.feed_contract` (one event in, its alerts and
hand histories out: the shape the API's ingest and the review push into), :mod:`monitor.procedure.replay`
(JSONL files).
"""
