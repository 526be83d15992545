"""Stand-ins shared by the index-reading tests: the default table, a recording reader, an
extractor that wants every hand area read."""

from __future__ import annotations

import numpy as np

from monitor.calibration import load_table
from monitor.geometry import Rect
from monitor.perception.index_geometry import index_quads
from monitor.perception.index_reader import IndexRead
from tests.support.paths import TABLE_FILE

CAL = load_table(TABLE_FILE)


class RecordingReader:
    """Stands in for the index reader: records which parts of the frame it was asked to read."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int, int, int]] = []

    def read(self, frame: np.ndarray, regions: list[tuple[int, int, int, int]],  # type: ignore[type-arg]
             cards: object = ()) -> list[IndexRead]:
        self.asked += regions
        px = CAL.table_to_image(Rect(-450.0, 250.0, 63.0, 88.0, 20.0).corners())
        return [IndexRead(q, 0.9, "Qc", None, "Qc", 0.99) for q in index_quads(px)]


def wanting_all() -> object:
    """An extractor that wants every hand area read (as when every seat's hand is set, not opened,
    and the banker's hand exposed)."""
    from monitor.pipeline.extract import EventExtractor
    from monitor.pipeline.watchers.view import TableLayout

    ex = EventExtractor("T1", layout=TableLayout.of(CAL.zones))
    hands = {n for n in CAL.zones if n == "banker" or n.endswith((".front", ".back"))}
    ex.zones_to_read = lambda: set(hands)  # type: ignore[method-assign]
    return ex
