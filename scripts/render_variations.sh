#!/usr/bin/env bash
# Render the widened gate's variations as videos for the model-perception gate (scripts/gate.sh's way):
# every layout x dealing habit, the shipped Pai Gow scripts and a clean random round per seed given,
# with the held-out vector deck, 1080p 15 fps, into data/e2e_variations/LAYOUT/HABIT/NAME. Each layout
# has its own felt (default teal, small-6ft purple, crescent tan) and each habit its own light (studio,
# dim, warm, bright in turn). Each folder holds table.yaml, the table file its video is read with,
# which check-rendered uses:
#   table-monitor check-rendered data/e2e_variations/*/*/* --out DIR --models models
# Resumable: a round marked .done is skipped. LAYOUTS, HABITS and NAMES (script names without paigow_)
# narrow it down, e.g. LAYOUTS=small HABITS=squared_stub NAMES="stub_three" scripts/render_variations.sh
#   scripts/render_variations.sh 1000 1001 1002      # the fault set and three clean rounds everywhere
set -euo pipefail
cd "$(dirname "$0")/.."
decks="${DECKS:-../shared/decks}"
tm=.venv/bin/table-monitor
declare -A layout_file=([default]="" [small]=calibration/layouts/small-6ft.yaml [crescent]=calibration/layouts/crescent.yaml)
declare -A table_file=([default]=calibration/default-table.yaml [small]=calibration/layouts/small-6ft.table.yaml
  [crescent]=calibration/layouts/crescent.table.yaml)
declare -A felt=([default]=teal [small]=purple [crescent]=tan)
lights=(studio dim warm bright)
layouts=(${LAYOUTS:-default small crescent})
habits=(${HABITS:-plain clockwise clockwise_unprofiled squared_stub hand_unseen bets_before cards_on_circle})
names=(${NAMES:-})
if [ ${#names[@]} -eq 0 ]; then
  for f in monitor/render/rounds/scripts/paigow_*.yaml; do n=$(basename "$f" .yaml); names+=("${n#paigow_}"); done
fi
mkdir -p data/e2e_variations/scripts
for s in "$@"; do
  [ -f "data/e2e_variations/scripts/clean_$s.yaml" ] || \
    $tm round-script --seed "$s" --out "data/e2e_variations/scripts/clean_$s.yaml" > /dev/null
done
i=0
for h in "${habits[@]}"; do
  light=${lights[$((i % ${#lights[@]}))]}; i=$((i + 1))
  for l in "${layouts[@]}"; do
    where=(--table "${table_file[$l]}")
    [ -n "${layout_file[$l]}" ] && where+=(--layout "${layout_file[$l]}")
    rounds=()
    for n in "${names[@]}"; do rounds+=("paigow_$n=monitor/render/rounds/scripts/paigow_$n.yaml"); done
    for s in "$@"; do rounds+=("clean_$s=data/e2e_variations/scripts/clean_$s.yaml"); done
    for r in "${rounds[@]}"; do
      out=data/e2e_variations/$l/$h/${r%%=*}
      [ -f "$out/.done" ] && continue
      mkdir -p "$out"
      nice -n 15 $tm render-round "${r#*=}" --out "$out" "${where[@]}" --habit "$h" --light "$light" \
        --design "$decks/vector-playing-cards" --table-style "${felt[$l]}" --fps 15 --resolution 1080p \
        --no-progress > "$out.log" 2>&1 || { echo "$out: render-round failed (see $out.log)"; continue; }
      touch "$out/.done"
    done
  done
done
