"""The old name of tests/support/procedure.py, kept while test files that still import it are being
edited; import from tests.support.procedure instead."""

from tests.support.procedure import *  # noqa: F403
from tests.support.procedure import clean_round, codes, find, find_all, only, run  # noqa: F401
