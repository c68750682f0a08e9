#!/usr/bin/env bash
# The demo campaign's best gemm against OpenBLAS single-threaded, timed in the same run on the same sizes
# (both are timed by the same harness inside every task). Prints speed ratio = OpenBLAS time / best time.
# Goal: >= 0.8.   usage: bench/demo_vs_openblas.sh [BUILD_DIR] [CAMPAIGN.yaml]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
CAMPAIGN=${2:-share/examples/gemm-host.yaml}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
start=$(date +%s)
"$BUILD/bin/kforge" run "$CAMPAIGN" --out "$OUT/c"
end=$(date +%s)
"$BUILD/bin/kforge" report "$OUT/c" --json > "$OUT/report.json"
/usr/bin/python3 - "$OUT/report.json" "$((end - start))" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
b = r["best"]
base = r["baseline_time_ms"]
print(json.dumps({"schema_version": 1, "benchmark": "demo_vs_openblas", "campaign": r["campaign"],
                  "generations": r["generations"], "evaluations": r["evaluations"], "wall_s": int(sys.argv[2]),
                  "best_time_ms": b["time_ms"], "openblas_time_ms": base.get("openblas"),
                  "reference_time_ms": base.get("reference"),
                  "speed_vs_openblas": base["openblas"] / b["time_ms"] if "openblas" in base else None,
                  "speedup_vs_reference": b["speedup_vs_reference"]}))
PY
