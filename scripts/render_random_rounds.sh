#!/usr/bin/env bash
# Render random clean Pai Gow rounds (one per seed) with the held-out vector deck on the held-out teal
# table, 1080p 15 fps, into data/e2e_random/clean_SEED: the end-to-end sample of docs/benchmarks.md
# ("twenty random clean rounds"). Resumable: a round marked .done (written once its render ended)
# is skipped; render-round writes check.json first, so that file is no sign of a finished round.
#   scripts/render_random_rounds.sh $(seq 1000 2 1019) & scripts/render_random_rounds.sh $(seq 1001 2 1019)
set -euo pipefail
cd "$(dirname "$0")/.."
decks="${DECKS:-../shared/decks}"
mkdir -p data/e2e_random/scripts
for s in "$@"; do
  script=data/e2e_random/scripts/clean_$s.yaml
  out=data/e2e_random/clean_$s
  [ -f "$out/.done" ] && continue
  .venv/bin/table-monitor round-script --seed "$s" --out "$script" > /dev/null
  .venv/bin/table-monitor render-round "$script" --out "$out" --design "$decks/vector-playing-cards" \
    --table-style teal --fps 15 --resolution 1080p > "data/e2e_random/clean_$s.log" 2>&1
  touch "$out/.done"
done
