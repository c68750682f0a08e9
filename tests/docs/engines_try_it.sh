#!/usr/bin/env bash
# docs/engines.md, "Try it": the engine campaign of share/examples/engine-host.yaml run literally from the
# repository root (the README's demo path), then the report's serving block and the pandas table. Every engine of
# the example must be verified and served; the best beats the double reference engine (its speedup > 1).
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/engines.md "## Try it")
echo "running from $SRC:"
echo "$command"
log=$(mktemp)
trap 'rm -rf "$SRC/runs/engine-host" "$log"' EXIT
rm -rf runs/engine-host
bash -euo pipefail -c "$command" | tee "$log"
grep -Eq '^generation 3 \(4 of 4\)  evaluated 8  ok [1-8] ' "$log"
grep -Eq '^    output_tokens_per_s [0-9.e+]+ tokens/s$' "$log"
grep -Eq '^    ttft_p99_ms [0-9.e+]+ ms$' "$log"
grep -Eq '^  where the time goes \(reported by the engine\):  embed ' "$log"
build/bin/kforge report runs/engine-host --json > "$log.json"
/usr/bin/python3 - "$log.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status_counts"]["ok"] >= 8, r["status_counts"]
assert r["best"]["speedup_vs_reference"] > 1, r["best"]
e = r["engine"]["serving"]
assert e["output_tokens_per_s"]["unit"] == "tokens/s" and e["output_tokens_per_s"]["value"] > 0, e
assert abs(sum(r["engine"]["breakdown"].values()) - 1) < 0.05, r["engine"]["breakdown"]
print("engine best:", e["output_tokens_per_s"]["value"], "tokens/s,", r["best"]["speedup_vs_reference"], "x reference")
PY
# The same archive as bench/engine_vs_peers.py --best reads it (bench/peers/campaign_best.py): the fastest verified
# fp32 engine (no `weights` gene: fp32) is the report's best; a precision the campaign never served is refused.
/usr/bin/python3 bench/peers/campaign_best.py runs/engine-host fp32 > "$log.best"
/usr/bin/python3 - "$log.json" "$log.best" <<'PY'
import json, sys
report, best = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert best["id"] == report["best"]["id"], (best, report["best"])
assert best["params"] == report["best"]["params"], (best, report["best"])
PY
if /usr/bin/python3 bench/peers/campaign_best.py runs/engine-host int8 2> "$log.err"; then
  echo "campaign_best.py found an int8 engine in a campaign that served none" >&2
  exit 1
fi
grep -q "runs/engine-host has no verified engine with weights=int8" "$log.err"
rm -f "$log.json" "$log.best" "$log.err"
