"""Sources: timestamped camera frames (OpenCV) and dice readings (serial).

Both kinds of source run their own capture thread, reconnect by themselves and
report faults as typed status events rather than raising into the pipeline.
Design notes: docs/sources.md; the dice line protocol: hardware/PROTOCOL.md.
"""

from monitor.sources.dice_reader import DiceReader
from monitor.sources.frame import Frame
from monitor.sources.policy import ConsumePolicy, FillPolicy
from monitor.sources.state import SourceState, SourceStateError
from monitor.sources.video_source import SourceOptions, VideoSource, open_source

__all__ = [
    "ConsumePolicy",
    "DiceReader",
    "FillPolicy",
    "Frame",
    "SourceOptions",
    "SourceState",
    "SourceStateError",
    "VideoSource",
    "open_source",
]
