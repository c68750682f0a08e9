#!/usr/bin/env bash
# Runs every benchmark against build/ and prints one JSON object per line (schema_version + context in each).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
"$BUILD/bin/bench_harness_overhead" --json
"$BUILD/bin/bench_archive_throughput" --json
bench/demo_vs_openblas.sh "$BUILD" | tail -n 1
/usr/bin/python3 bench/engine_kda_prefill.py --build "$BUILD" --json
