#!/usr/bin/env bash
# The project's gate for a change to perception or the chain: the fault set (18 faults over 15
# recordings, scripts/render_fault_set.sh) and the hundred clean rounds (scripts/render_random_rounds.sh
# $(seq 1000 1099)), each perceived once into a detections cache and replayed after that (seconds a
# round), two processes side by side. Ship only if the fault set loses nothing and the hundred stay at
# most one false alert (issue 8).
# Usage: scripts/gate.sh OUT [MODELS [FAULT_CACHE [CLEAN_CACHE]]]
#   defaults: models/ and the caches of the shipped models as perceived by the current code (detector_v8,
#   the whole-card member cards_v11_96 beside the corner members corners_v13 and corners_v15, weighted
#   1 : 1 : 1, threshold 0.9877 from whole val frames (calibrate-reader), the whole-card member deciding
#   alone what it reads 0.993 sure (fit-cascade), squarest quads read turned too; video's boxes not
#   snapped; card boxes that are no card dropped, felt judged also by the felt around a box),
#   data/e2e_cache_s45 and data/e2e_random_cache_s45
#   (`mkdir` them empty to perceive afresh, 50-57 min on an AVX2 machine). A cache is keyed by the
#   model files it was made with (other models perceive afresh into it, ~1 min a round) but not by the
#   code: after a change to perception itself, give new cache folders.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1; models=${2:-models}
faults_cache=${3:-data/e2e_cache_s45}; clean_cache=${4:-data/e2e_random_cache_s45}
tm=.venv/bin/table-monitor
mkdir -p "$out"
for half in 0 1; do
  clean=()
  for s in $(seq $((1000 + half)) 2 1099); do clean+=("data/e2e_random/clean_$s"); done
  $tm check-rendered "${clean[@]}" --out "$out/clean_$half" --models "$models" --detections-cache "$clean_cache" \
    --backend onnxruntime --threads 1 > "$out/clean_$half.log" 2>&1 &
done
rounds=(data/e2e/paigow_*/)
$tm check-rendered "${rounds[@]%/}" monitor/render/rounds/sample_recording --out "$out/faults" --models "$models" \
  --backend openvino --detections-cache "$faults_cache" > "$out/faults.log" 2>&1 || true
wait || true
for f in "$out"/faults.log "$out"/clean_0.log "$out"/clean_1.log; do echo "$f: $(tail -n 1 "$f")"; done
