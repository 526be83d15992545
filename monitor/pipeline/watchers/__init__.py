"""The event extractor's watchers: one small state machine per concern of the table.

Each watcher keeps its own state, reads one :class:`~monitor.pipeline.watchers.view.FrameView` a
frame (``frame(view) -> events``) and forgets a round with ``reset()``; the thin
:class:`monitor.pipeline.extract.EventExtractor` runs them in the order the rules need.

``rest``: rest and debounce (every other watcher asks it whether an object rests); ``round``: round
open and close; ``deal``: the deal card by card, from the dealer's trips; ``exposures``: faces on the
piles; ``deliveries``: piles carried to the seats; ``seats``: the seats' hands set, opened, collected;
``banker``: the banker's hand; ``bets`` and ``dice``. The facts of a round that several of them share
are one record (``round_record``); ``view`` holds the frame's view and the table's layout, ``emit``
the outbox every watcher's events go through.
"""
