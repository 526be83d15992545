#!/usr/bin/env bash
# A wheel of this checkout, installed into a clean virtual environment, runs the product: built with
# the checkout's setuptools (no build isolation: nothing fetched to build; build folders outside the
# checkout), installed with its dependencies into a new venv that does not see the system's
# site-packages, then run from a folder outside the source tree: `demo --once` (the sample recording
# through the whole monitor on the models in the wheel), `detect` on a photo, `run` on the sample
# recording for a few seconds, and a models folder without models refused by name. About 5 minutes
# on 2 cores (the demo plays the recording's 116 s; the install fetches ~400 MB of dependencies unless
# pip's cache holds them).
# Usage: scripts/check-wheel.sh [WORK]   (WORK is kept; default: a temporary folder, removed after)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
if [ $# -ge 1 ]; then
  work=$1; mkdir -p "$work"
else
  work=$(mktemp -d /tmp/check-wheel.XXXXXX); trap 'rm -rf "$work"' EXIT
fi
unset PYTHONPATH TABLE_MONITOR_MODELS
start=$SECONDS
step() { echo "check-wheel [$((SECONDS - start)) s]: $*"; }

step "building the wheel of $root"
cat > "$work/build.cfg" <<EOF
[build]
build_base = $work/build
[egg_info]
egg_base = $work
EOF
rm -rf "$work/dist"
DIST_EXTRA_CONFIG=$work/build.cfg "$py" -m pip wheel --no-deps --no-build-isolation -q -w "$work/dist" "$root"
wheel=$(ls "$work"/dist/table_monitor-*.whl)
step "$(basename "$wheel"): $(du -h "$wheel" | cut -f1)"

step "installing it into a clean venv ($work/venv)"
rm -rf "$work/venv"
"$py" -m venv "$work/venv"
venv=$work/venv
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
tm=$venv/bin/table-monitor
grep -q "include-system-site-packages = false" "$venv/pyvenv.cfg" \
  || { echo "check-wheel: the venv sees the system's packages" >&2; exit 1; }
# the package and its heaviest dependencies, each from the venv itself
for module in monitor numpy cv2 onnxruntime openvino; do
  at=$(cd / && "$venv/bin/python" -c "import $module, os; print(os.path.dirname($module.__file__))")
  case "$at" in "$venv"/*) ;; *) echo "check-wheel: $module imported from $at, not the venv" >&2; exit 1;; esac
done
site=$(cd / && "$venv/bin/python" -c 'import monitor, os; print(os.path.dirname(monitor.__file__))')
step "installed: $("$tm" --version), the package at $site"

mkdir -p "$work/elsewhere"
cd "$work/elsewhere"  # no source tree here or above

step "table-monitor demo --once"
"$tm" demo --once --port 0 --data "$work/demo" 2>&1 | tee "$work/demo.log"
grep -q "^perception: models: detector.onnx" "$work/demo.log" \
  || { echo "check-wheel: the demo did not perceive with the wheel's models" >&2; exit 1; }
grep -q "events stored" "$work/demo.log" || { echo "check-wheel: the demo did not finish" >&2; exit 1; }

step "table-monitor detect (a photo)"
"$tm" detect "$root/tests/data/perception/table_1080p.jpg" > "$work/detect.log" 2>&1
head -n 3 "$work/detect.log"
grep -q "identified)" "$work/detect.log" || { echo "check-wheel: detect read no cards" >&2; exit 1; }

step "table-monitor run (the sample recording as a camera, 10 s)"
"$tm" run --table "$site/calibration/default-table.yaml" \
  --camera "$site/render/rounds/sample_recording/video.mp4" --perception models --duration 10 --port 0 \
  --db "sqlite:///$work/run.db" --snapshot-dir "$work/snapshots" 2>&1 | tee "$work/run.log"
grep -q "^perception: models: detector.onnx" "$work/run.log" \
  || { echo "check-wheel: run did not perceive with the wheel's models" >&2; exit 1; }

step "a models folder without models"
mkdir -p "$work/no-models"
if TABLE_MONITOR_MODELS=$work/no-models "$tm" demo --once --port 0 --data "$work/demo2" > "$work/none.log" 2>&1; then
  echo "check-wheel: the demo ran without models" >&2; exit 1
fi
grep -q "no models in $work/no-models" "$work/none.log" || { cat "$work/none.log" >&2; exit 1; }
cat "$work/none.log"

step "the wheel runs demo, detect and run from a clean venv"
