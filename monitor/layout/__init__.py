"""The layout tool: making a table layout from a room's measurements (or points clicked on a picture of
its felt), drawing it with every zone labelled, and explaining each zone in words.

``table-monitor layout make|draw|explain`` (``monitor/commands/layout.py``) runs these; the layout
format and the zone rules are written in docs/layout.md.
"""
