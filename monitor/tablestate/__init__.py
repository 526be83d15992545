"""Table state: detections placed on the table (millimetres, zones) and tracked over frames.

``placement.place`` maps one frame's detections through the table's calibration;
``tracking.ObjectTracker`` gives each physical object a stable id across frames (ByteTrack
from Roboflow's ``trackers`` package). Turning tracks into events comes on top of these.
"""

from monitor.tablestate.placement import Placed, place, zone_occupancy

__all__ = ["Placed", "place", "zone_occupancy"]
