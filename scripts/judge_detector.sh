#!/usr/bin/env bash
# Judge a trained detector run against the shipped one, the way the gate's ship criterion
# (scripts/gate.sh) asks:
#   1. export it (train detector --evaluate-only: ONNX + test-split metrics in runs/detector/RUN/export);
#   2. a models folder runs/m_RUN = models/ with the run's detector in place of the shipped one;
#   3. `detect --score` on the held-out full-resolution frames (data/detect_v4/fullres/test), the run
#      and the shipped models in the same run: recall of unoccluded cards, spurious boxes, false identity
#      (the run also with the classical finder refining its boxes, and with it off);
#   4. `check-rendered` on the fault set (scripts/render_fault_set.sh) and the sample recording, perceived
#      afresh into the cache data/e2e_cache_RUN (a rerun replays it).
# Usage: scripts/judge_detector.sh RUN [best|last]     (results in runs/judge_RUN/)
set -euo pipefail
cd "$(dirname "$0")/.."
run=$1; ckpt=${2:-best}
tm=.venv/bin/table-monitor
out=runs/judge_$run; models=runs/m_$run
mkdir -p "$out" "$models"
YOLO_OFFLINE=1 $tm train detector --data data/detect_v4/obb.yaml --name "$run" --imgsz 512 --evaluate-only \
  --checkpoint "$ckpt" > "$out/export.log" 2>&1
find models -maxdepth 1 -type f -exec cp {} "$models/" \; && cp runs/detector/"$run"/export/detector.* "$models/"
$tm detect data/detect_v4/fullres/test/*.png --score --threads 1 --models "$models" > "$out/score_$run.txt" 2>&1
# the classical finder beside it (auto) costs a seventh of a review's CPU: is it still needed?
for mode in refine off; do
  $tm detect data/detect_v4/fullres/test/*.png --score --threads 1 --models "$models" --classical $mode \
    > "$out/score_${run}_$mode.txt" 2>&1
done
[ -s "$out/score_shipped.txt" ] || $tm detect data/detect_v4/fullres/test/*.png --score --threads 1 > "$out/score_shipped.txt" 2>&1
tail -n 12 "$out"/score_*.txt
rounds=(data/e2e/paigow_*/)
$tm check-rendered "${rounds[@]%/}" monitor/render/rounds/sample_recording --out "$out/faults" --models "$models" \
  --backend openvino --detections-cache "data/e2e_cache_$run" > "$out/faults.log" 2>&1 || true
tail -n 30 "$out/faults.log"
