"""Post-hoc review of recordings (issue 9): the live chain over video files, as fast as the machine allows.

Read in order: ``sidecars`` (what lies beside a recording: ground truth, the console and dice log),
``jobs`` (one file's job and result, plain data that crosses process and machine boundaries),
``checkpoint`` (where a file's review stopped), ``feed`` (the procedure monitor with snapshots),
``file_review`` (one file, frame by frame), ``clips`` (a snapshot and a short clip per alert),
``fanout`` (files one after another, or over Dask), ``merge`` (one session from its files),
``report_json`` / ``report_html`` (the outputs) and ``store_writer`` (the session into the store).
"""
