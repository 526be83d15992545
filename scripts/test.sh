#!/usr/bin/env bash
# The tests on a fresh machine: set up the runtime and the dev extra (scripts/setup.sh dev), then lint,
# type checks and the test suite. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
.venv/bin/ruff check monitor tests
.venv/bin/mypy
exec .venv/bin/pytest -q "$@"
