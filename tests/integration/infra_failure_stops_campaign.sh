#!/usr/bin/env bash
# A generation that fails whole for infrastructure reasons stops the campaign (local executor, no Slurm):
# mpirun cannot be started, so no task produces a shard. kforge must exit 3 with a diagnosis, archive nothing
# and breed nothing; after the cause is fixed the same command completes. A bad threshold is a config error.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
sed -e 's/generations: 2/generations: 1/' -e 's/offspring: 8/offspring: 4/' \
    "$SRC/tests/integration/data/gemm-small.yaml" > "$WORK/c.yaml"
cat > "$WORK/broken-site.yaml" <<'YAML'
site: {name: broken, executor: local, max_task_retries: 1}
local: {ranks_per_task: 1, mpirun: /nonexistent/mpirun}
YAML
set +e
"$BIN/kforge" run "$WORK/c.yaml" --site "$WORK/broken-site.yaml" --out "$WORK/run" > "$WORK/out.log" 2>&1
code=$?
set -e
cat "$WORK/out.log"
[[ $code -eq 3 ]] || { echo "exit code $code, expected 3"; exit 1; }
grep -q 'generation 0 stopped the campaign: 4 of 4 records failed for infrastructure reasons' "$WORK/out.log"
grep -q 'kforge: retry 1/1 of task 0 (generation 0, host) because attempt 1 exited with code 127' "$WORK/out.log"
grep -q "could not start /nonexistent/mpirun" "$WORK/run/g0000/infra-failure.txt"
[[ ! -e "$WORK/run/gen-0000.h5" && ! -e "$WORK/run/g0001" ]] || { echo "a failed generation was archived or bred from"; exit 1; }

# The cause fixed (the site may change between resumes): the same directory completes.
printf 'site: {name: fixed, executor: local}\nlocal: {ranks_per_task: 1, mpirun_args: [--oversubscribe]}\n' > "$WORK/site.yaml"
"$BIN/kforge" run "$WORK/c.yaml" --site "$WORK/site.yaml" --out "$WORK/run" | tee "$WORK/ok.log"
[[ -f "$WORK/run/gen-0000.h5" ]]

printf 'site: {name: b, executor: local, stop_at_infra_error_share: 0}\n' > "$WORK/bad.yaml"
set +e
"$BIN/kforge" validate "$WORK/c.yaml" --site "$WORK/bad.yaml" 2> "$WORK/bad.err"
code=$?
set -e
cat "$WORK/bad.err"
[[ $code -eq 2 ]] && grep -q "bad.yaml:1:[0-9]*: site.stop_at_infra_error_share: " "$WORK/bad.err"
echo "infrastructure failure checks passed"
