#!/usr/bin/env bash
# Render the scripted fault set (monitor/render/rounds/scripts/paigow_*.yaml) with the held-out vector
# deck on the held-out teal table, 1080p 15 fps, into data/e2e/paigow_NAME: the fault set of
# docs/benchmarks.md, judged with the sample recording by
#   table-monitor check-rendered data/e2e/paigow_* monitor/render/rounds/sample_recording --out DIR
# Resumable: a round marked .done (written once its render ended) is skipped. Names may be given
# (e.g. `scripts/render_fault_set.sh clean wrong_seat`); the default is every paigow script.
set -euo pipefail
cd "$(dirname "$0")/.."
decks="${DECKS:-../shared/decks}"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in monitor/render/rounds/scripts/paigow_*.yaml; do n=$(basename "$f" .yaml); names+=("${n#paigow_}"); done
fi
mkdir -p data/e2e
for n in "${names[@]}"; do
  out=data/e2e/paigow_$n
  [ -f "$out/.done" ] && continue
  .venv/bin/table-monitor render-round "monitor/render/rounds/scripts/paigow_$n.yaml" --out "$out" \
    --design "$decks/vector-playing-cards" --table-style teal --fps 15 --resolution 1080p > "data/e2e/paigow_$n.log" 2>&1
  touch "$out/.done"
done
