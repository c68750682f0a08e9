#!/usr/bin/env bash
# bench/engine_kda_prefill.py at a tiny size: every KDA_* setting's engine serves the trace with the same greedy
# tokens as the recurrence's (KDA_CHUNK 0), and the JSON carries a row, a time and a ratio per setting. Speed is not
# judged here (bench/README.md has the figures).
set -euo pipefail
BUILD=$1
out=$(/usr/bin/python3 bench/engine_kda_prefill.py --build "$BUILD" --layers 2 --hidden 64 --heads 2 --head-dim 32 \
      --mlp-hidden 128 --vocab 256 --requests 3 --prompt-min 20 --prompt-max 90 --runs 1 --json)
/usr/bin/python3 - "$out" <<'PY'
import json, sys
result = json.loads(sys.argv[1])
assert result["schema_version"] == 1 and result["benchmark"] == "engine_kda_prefill", result
rows = result["rows"]
assert [r["kda"] for r in rows][0] == "0,64,2,8" and len(rows) == 6, rows
for r in rows:
    assert r["tokens_equal_recurrence"], r
    assert r["kda_ms"] > 0 and r["ratio_vs_recurrence"] > 0, r
print("engine_kda_prefill tiny:", [(r["kda"], round(r["ratio_vs_recurrence"], 2)) for r in rows])
PY
