#!/usr/bin/env bash
# docs/cli.md, "kforge plot DIR ...", and docs/archive-schema.md, "Speedups: one rule for every output": both
# blocks run literally from the repository root on one small campaign; then check_report_plots.py checks that
# the text report, its JSON, the Python reader, the pictures' data and the export agree with the archive.
set -euo pipefail
SRC=$1
cd "$SRC"
log=$(mktemp)
cleanup() { rm -rf "$SRC"/runs/gemm-plots "$SRC"/runs/gemm-plots-* "$SRC/runs/gemm-plots.html" "$log"; }
cleanup
trap cleanup EXIT
cli=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/cli.md "## kforge plot DIR [--out DIR] [--format png|svg]")
schema=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/archive-schema.md "## Speedups: one rule for every output")
echo "running from $SRC:"
echo "$cli"
bash -euo pipefail -c "$cli" | tee "$log"
# the exported kernel reran outside kforge and its own driver found it right (docs/cli.md, "kforge export")
grep -Eq '^M=[0-9]+ N=[0-9]+ K=[0-9]+: median [0-9.]+ ms over 20 calls, .* \(ok\)$' "$log"
echo "$schema"
bash -euo pipefail -c "$schema" | tee "$log.python"
build/bin/kforge plot runs/gemm-plots --out runs/gemm-plots-png >/dev/null  # the default format: png
/usr/bin/python3 tests/docs/check_report_plots.py runs/gemm-plots "$log" "$log.python"
# A task whose manifest asks for a baseline it has no timing of is a baseline failure with a reason, in the text,
# the JSON and the Python reader alike (manifests are not sealed; the archive stays whole).
cp -r runs/gemm-plots runs/gemm-plots-failure
sed -i 's/^  baselines: \[reference, openblas\]$/  baselines: [reference, openblas, mkl]/' \
    runs/gemm-plots-failure/g0001/tasks/0001.yaml
build/bin/kforge report runs/gemm-plots-failure > "$log.failure"
grep -q '^baseline mkl FAILED in generation 1 task 1 (host): not in the task.s timings' "$log.failure"
build/bin/kforge report runs/gemm-plots-failure --json > runs/gemm-plots-failure.json
/usr/bin/python3 - <<'PY'
import json, sys
sys.path.insert(0, "share/python")
import kforge_archive as ka
report = json.load(open("runs/gemm-plots-failure.json"))["baseline_failures"]
python = ka.load_baseline_failures("runs/gemm-plots-failure").to_dict("records")
assert [(f["baseline"], f["generation"], f["task"], f["reason"]) for f in report] == \
    [(f["baseline"], f["generation"], f["task"], f["reason"]) for f in python] == \
    [("mkl", 1, 1, "not in the task's timings (the backend could not time it on this target)")], (report, python)
PY
rm -f "$log.failure"
# docs/cli.md "kforge watch": the block on the finished campaign, then a live watch beside a running campaign.
watch=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/cli.md "## kforge watch DIR [--interval S] [--once]")
echo "$watch"
bash -euo pipefail -c "$watch" | tee "$log.watch"
grep -q '^generations \[#*\] 2/2 done$' "$log.watch"
grep -Eq '^generation 1: best so far [0-9.e-]+ ms \([0-9.]+x\) g[01] [0-9a-f]{8}  generation best .*  added: .*  evaluations 16$' "$log.watch"
build/bin/kforge run tests/integration/data/gemm-small.yaml --out runs/gemm-plots-live > "$log.run" 2>&1 &
run=$!
build/bin/kforge watch runs/gemm-plots-live --interval 0.5 > "$log.watch"  # returns when the campaign is done
wait "$run"
grep -q '^campaign gemm-small .* done$' "$log.watch"
[[ $(tail -n 3 "$log.watch" | grep -c '^generations \[#*\] 2/2 done$') == 1 ]]
rm -f "$log.watch" "$log.run"
rm -f "$log.python"
