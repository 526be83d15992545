"""The event extractor's watchers: one small state machine per concern of the table.

Each watcher keeps its own state, reads one :class:`~monitor.pipeline.watchers.view.FrameView` a
frame (``frame(view) -> events``) and forgets a round with ``reset()``; the thin
:class:`monitor.pipeline.extract.EventExtractor` runs them in the order the rules need.
"""
