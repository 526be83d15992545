"""The live pipeline: frames and dice readings in, events to the procedure monitor, alerts out.

Read in order: ``oracle`` (ground truth as detections), ``observe`` (tracked objects on the table),
``extract`` (the event state machine), ``chain`` (one frame: place, track, extract), ``scripted``
(oracle checks on scripted rounds), then the live ``orchestrator`` and its helpers.
"""
