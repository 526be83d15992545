"""The lab: benchmarks and checks of the product, run by the ``bench-*`` and ``check-*`` commands.

Each module measures or checks one part of the product from outside (the API under load, the live
pipeline, the procedure monitor, a review, perception on video, the oracle check on scripted
rounds, the fan reader and the spot chip finder against rendered truth, the poker games' rules
against pokerkit). The lab imports the product and the renderer freely; the product never imports
the lab (``tests/test_import_direction.py`` fails on any such import).
"""
