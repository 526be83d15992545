"""Procedure monitors: deterministic state machines over table events that raise rule-cited alerts.

Entry points: :class:`monitor.procedure.monitor.Monitor` (Python API), :mod:`monitor.procedure.feed`
(``MonitorFeed``: the monitor behind the feed contract, which the API's ingest and a review push into),
:mod:`monitor.procedure.feed_contract` (one event in, its alerts and hand histories out),
:mod:`monitor.procedure.replay` (JSONL files).
"""
