"""The live pipeline: frames and dice readings in, events to the procedure monitor, alerts out.

Read in order: ``oracle`` (ground truth as detections), ``observe`` (tracked objects on the table),
``extract`` (the event state machine), ``chain`` (one frame: place, track, extract), then the live
``orchestrator`` and its helpers. Its benchmark and the oracle check on scripted rounds are in
``monitor.lab``.
"""
