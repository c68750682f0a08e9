#!/usr/bin/env bash
# A replay campaign end to end (scheduler, local executor, kforge-eval ranks, archive) on the convolution space
# measured on an A100, bred by the model-based strategy (search.strategy: surrogate): every evaluation is a
# new configuration, each record carries the cache's measured time, and the best found is reported against
# the optimum of the whole space. The campaign file is the example itself, copied beside the repository's
# share/data/ so that its own relative replay_cache path is what the run resolves (no rewriting of the path).
set -euo pipefail
BIN=$1 SRC=$2
CACHE=$SRC/share/data/kernel-spaces/cache/convolution_milo-A100.json.gz
[[ -f $CACHE ]] || { echo "FAIL: $CACHE missing from the clone" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# Same layout as share/: examples/ beside data/, so ../data/kernel-spaces/... resolves as in the repository.
mkdir -p "$WORK/share/examples"
ln -s "$SRC/share/data" "$WORK/share/data"
sed -e 's/generations: 5/generations: 3/' -e 's/offspring: 24/offspring: 16/' \
    "$SRC/share/examples/convolution-replay.yaml" > "$WORK/share/examples/campaign.yaml"
grep -q 'strategy: surrogate' "$WORK/share/examples/campaign.yaml"
grep -q '^  replay_cache: \.\./data/kernel-spaces/' "$WORK/share/examples/campaign.yaml"
"$BIN/kforge" run "$WORK/share/examples/campaign.yaml" --out "$WORK/c" > "$WORK/run.log"
grep -q '^generation 2 (3 of 3)' "$WORK/run.log"
/usr/bin/python3 - "$WORK/c" "$SRC" "$CACHE" <<'PY'
import gzip, json, os, sys
sys.path.insert(0, os.path.join(sys.argv[2], "share", "python"))
import kforge_archive as ka
records = ka.load_records(sys.argv[1])
assert len(records) == 16 * 3, len(records)
assert (records["op"] == "surrogate").all(), records["op"].value_counts()
assert records["params"].is_unique, "a configuration was evaluated twice"
cache = json.load(gzip.open(sys.argv[3]))["cache"]
times = [v["time"] for v in cache.values() if isinstance(v.get("time"), (int, float))]
optimum = min(times)
ok = records[records["status"] == "ok"]
best = ok["time_median_ms"].min()
fraction = optimum / best
weights = ka.load_operator_weights(sys.argv[1])
assert set(weights["op"]) == {"surrogate"}, weights
print("ok: %d evaluations, best %.4f ms, optimum %.4f ms, fraction of optimum %.3f" % (len(records), best, optimum, fraction))
assert fraction > 0.5, fraction
PY
