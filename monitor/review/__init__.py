"""Post-hoc review of recordings (issue 9): the live chain over video files, as fast as the machine allows.

Read in order: ``sidecars`` (what lies beside a recording: ground truth, the console and dice log),
``jobs`` (one file's job and result, plain data that crosses process and machine boundaries),
``checkpoint`` (where a file's review stopped), ``gate``, ``zones`` and ``ring`` (cheaper stand-ins
for the live motion gate's picture, zone lookup and snapshot ring), ``file_review`` (one file, frame
by frame, judged by the API's own procedure feed with snapshots), ``clips`` (a snapshot and a short
clip per alert), ``progress`` and ``fanout`` (files one after another, or over Dask, with bars),
``merge`` (one session from its files), ``timeline``, ``report_json`` and ``report_html`` (the
outputs), ``store_writer`` (the session into the store), ``session`` (all of it, for the command).
The benchmark (``bench-review``) is ``monitor.lab.review_bench``. Design and figures: docs/review.md.
"""
