#!/usr/bin/env bash
# The widened oracle gate (issue 55): the shipped Pai Gow scripts and CLEAN random clean rounds (seeds
# 1000, 1001, ...) played on every layout (the built-in table, calibration/layouts/small-6ft.yaml,
# calibration/layouts/crescent.yaml) with every dealing habit (plain, clockwise, clockwise_unprofiled,
# squared_stub, hand_unseen, bets_before, cards_on_circle), judged by the chain from oracle detections
# made straight from the timelines (no render). Per variation: faults alerted within 1 s of the truth,
# false alerts per 100 clean rounds, every round not judged and why (OUT/results.md, results.json).
# About 7 s a round with two processes on a busy 2-core machine (docs/benchmarks.md).
# Usage: scripts/gate_variations.sh OUT [CLEAN [WORKERS]]   (defaults: 20 clean rounds, 2 processes)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1; clean=${2:-20}; workers=${3:-2}
nice -n 15 .venv/bin/table-monitor check-variations --out "$out" --clean "$clean" --workers "$workers"
