#!/usr/bin/env bash
# bench/engine_checks_cost.py (bench/README.md, "engine_checks_cost") on a one-generation copy of the engine example:
# the campaign runs, every timed engine carries its envelope_ms, run_checks_ms and fresh_engine_ms figures, and the share printed is one of rank time.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
tools/small-campaign.sh share/examples/engine-host.yaml "$OUT/engine-small.yaml" 1 3
/usr/bin/python3 bench/engine_checks_cost.py --build "$BUILD" --examples "$OUT/engine-small.yaml" --json > "$OUT/cost.json"
/usr/bin/python3 - "$OUT/cost.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["benchmark"] == "engine_checks_cost" and len(r["rows"]) == 1, r
row = r["rows"][0]
assert row["engines_timed"] >= 1 and row["ok"] >= 1 and row["best_tokens_per_s"] > 0, row
assert all(v > 0 for v in row["parts_s"].values()) and len(row["parts_s"]) == 3, row
assert 0 < row["honesty_s"] and 0 < row["share_of_rank_time"] < 1, row
print("engine_checks_cost tiny: ok", row)
PY
