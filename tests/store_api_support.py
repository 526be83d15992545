"""The old name of tests/support/api.py and tests/support/postgres.py (the fixtures are in conftest.py),
kept while test files that still import it are being edited; import from tests.support instead."""

from tests.conftest import db_url, pg_cluster, sqlite_url  # noqa: F401
from tests.support.api import *  # noqa: F403
from tests.support.api import TOKENS, WRONG_TOKEN, ServerThread, auth, event, faulty_round, make_settings  # noqa: F401
from tests.support.postgres import PgCluster, free_port  # noqa: F401
