"""Table monitor: watches player-banked cardroom tables and flags procedure faults live."""

__version__ = "0.1.0"
