#!/usr/bin/env bash
# kill -9 the foreground `kforge run` in the middle of a generation, rerun the same command: it completes and the
# archive holds every evaluation exactly once.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CAMPAIGN="$SRC/tests/integration/data/gemm-resume.yaml"
# shellcheck source=tests/support/helpers.sh
source "$SRC/tests/support/helpers.sh"  # must_fail

"$BIN/kforge" run "$CAMPAIGN" --out "$WORK/c" > "$WORK/first.log" 2>&1 &
pid=$!
# Mid-generation: generation 1's first task has written its shard, its second has not.
for _ in $(seq 1 600); do
  [[ -f "$WORK/c/g0001/shards/0000.h5" ]] && break
  kill -0 "$pid" 2>/dev/null || { cat "$WORK/first.log"; echo "kforge ended before it could be killed"; exit 1; }
  sleep 0.2
done
[[ -f "$WORK/c/g0001/shards/0000.h5" ]] || { cat "$WORK/first.log"; echo "generation 1 never started"; exit 1; }
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
[[ ! -f "$WORK/c/gen-0001.h5" ]] || { echo "generation 1 finished before the kill: the test proves nothing"; exit 1; }
echo "killed kforge (pid $pid) in the middle of generation 1"
sleep 1  # let the task's processes see their parent die

"$BIN/kforge" run "$CAMPAIGN" --out "$WORK/c" | tee "$WORK/second.log"
grep -q '^generation 2 (3 of 3)' "$WORK/second.log"
must_fail grep -q '^generation 0 (1 of 3)' "$WORK/second.log"  # generation 0 was finished: not run again
"$BIN/kforge" report "$WORK/c" --json > "$WORK/report.json"
/usr/bin/python3 - "$WORK/c" "$WORK/report.json" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ.get("KFORGE_SOURCE_DIR", "."), "share", "python"))
import kforge_archive
df = kforge_archive.load_records(sys.argv[1])
assert len(df) == 24, len(df)
assert not df.duplicated(["candidate_id", "target"]).any(), "an evaluation is in the archive twice"
report = json.load(open(sys.argv[2]))
assert report["evaluations"] == 24 and report["generations"] == 3, report
print("ok: 24 evaluations, each exactly once")
PY
