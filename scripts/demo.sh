#!/usr/bin/env bash
# The main job on a fresh machine: set up the runtime (scripts/setup.sh), then run the demo on the
# built-in sample recording. Arguments go to `table-monitor demo` (e.g. --once).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/table-monitor demo "$@"
