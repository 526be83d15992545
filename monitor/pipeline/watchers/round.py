"""Round open and close: told by the console, or, with none, seen as the table fills and goes clear.

From vision (``round_from_vision``, no console): whichever comes first opens a round
(``round_started``, its ``opened_by`` saying which): chips coming to rest in a betting spot
(``chips``), a card or pile coming to rest on a pile slot (``pile``) or anywhere else on the table
(``cards``), or a roll from the dice reader (``dice``, :meth:`RoundWatcher.open_for`). A room whose
chips the camera cannot tell from its felt, or whose bets were down before the camera saw the
table, still has its rounds judged. The table clear of the round's cards and chips for ``clear_s``
closes it (``round_ended``, dated when the last of them left). The tray holds the house's chips
and the discards between rounds: never the round's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from monitor.calibration.zones import zone_kind
from monitor.events.schema import EventBase, OpenedBy
from monitor.pipeline.observe import Seen
from monitor.pipeline.watchers.emit import Outbox
from monitor.pipeline.watchers.held import Held
from monitor.pipeline.watchers.rest import RestWatcher
from monitor.pipeline.watchers.view import FrameView

if TYPE_CHECKING:
    from monitor.pipeline.extract import ExtractorSettings


class RoundWatcher:
    """Whether a round is open. ``on_open``: called as vision opens a round, before its event (the
    other watchers forget the last round there)."""

    def __init__(self, settings: ExtractorSettings, rest: RestWatcher, out: Outbox,
                 on_open: Callable[[], None]) -> None:
        self.s, self.rest, self.out, self.on_open = settings, rest, out, on_open
        self.reset()

    def reset(self) -> None:
        # with a console, every frame is read as a round's until it says otherwise
        self.open = not self.s.round_from_vision
        self.clear = Held()  # the table empty of the round's objects, since

    def opened(self) -> None:
        self.open = True

    def closed(self) -> None:
        self.open = False

    def open_for(self, reason: OpenedBy, at: tuple[float, int] | None = None) -> list[EventBase]:
        """Open a round for ``reason`` (seen or told) if none is open and rounds come from vision;
        returns its ``round_started`` (empty where nothing opened)."""
        if self.open or not self.s.round_from_vision:
            return []
        self._open(reason, at)
        return self.out.take()

    def _open(self, reason: OpenedBy, at: tuple[float, int] | None = None) -> None:
        self.on_open()
        self.open = True
        self.out.emit("round_started", banker_seat=self.s.banker_seat, opened_by=reason, at=at)

    def frame(self, view: FrameView) -> list[EventBase]:
        if not self.s.round_from_vision:
            return self.out.take()
        now = view.media_time
        on_table = [o for o in view.present.values() if o.zone not in ("off_table", "tray")]
        self.clear.update(not on_table, now, view.index)
        if not self.open:
            reason = _opening(o for o in on_table if self.rest.at_rest(o))
            if reason is not None:
                self._open(reason)
        elif self.clear.value and self.clear.held(now, self.s.clear_s):
            self.open = False
            # dated when its last card or chip left (a review skips the still frames that follow)
            self.out.emit("round_ended", at=(self.clear.since, self.clear.since_frame))
        return self.out.take()


def _opening(resting: Iterable[Seen]) -> OpenedBy | None:
    """What among the objects come to rest opens a round: chips on a betting spot first (the usual
    start), then a card or pile on a pile slot, then a card anywhere else on the table."""
    found: set[OpenedBy] = set()
    for o in resting:
        if o.kind == "chips" and zone_kind(o.zone) == "bet":
            found.add("chips")
        elif o.kind in ("card", "pile"):
            found.add("pile" if zone_kind(o.zone) == "pile" else "cards")
    return next((r for r in ("chips", "pile", "cards") if r in found), None)
