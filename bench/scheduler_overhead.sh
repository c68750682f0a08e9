#!/usr/bin/env bash
# Scheduler-side overhead of one generation through a real Slurm controller, at 1,000 and 10,000 candidates:
# breed + split + manifests, render + submit + poll, gather, select + write, as a fraction of the generation's
# wall time, with the time inside Slurm calls shown apart. Candidates are replayed from measured GPU spaces
# (share/data/kernel-spaces), so the tasks themselves are short and the overhead is not hidden.
#   usage: bench/scheduler_overhead.sh [BUILD_DIR]     (as root: it starts a private single-node cluster)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(cd "${1:-build}" && pwd)
SRC=$PWD
SPACES=$SRC/share/data/kernel-spaces
[[ -d $SPACES ]] || { echo "scheduler_overhead: $SPACES not found" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cat > "$WORK/site.yaml" <<YAML
site: {name: bench-slurm, executor: slurm, max_task_retries: 1}
slurm:
  ranks_per_task: 1
  max_concurrent_tasks: 2
  poll_interval_s: 1
  targets:
    a100: {partition: hopper}
    mi250x: {partition: blackwell}
YAML

# campaign NAME TARGET CACHE CANDIDATES PER_RANK: one generation of CANDIDATES replayed configurations.
campaign() {
  local space=$SRC/share/examples/convolution-replay.yaml
  [[ $2 == mi250x ]] && space=$SRC/bench/data/dedispersion-replay.yaml
  sed -e "s|^  name: .*|  name: $1|" -e "s|^  targets: .*|  targets: [$2]|" -e "s|^  generations: .*|  generations: 1|" \
      -e "s|^  offspring: .*|  offspring: $4|" -e "s|^  replay_cache: .*|  replay_cache: $3|" \
      -e "s|^  candidates_per_rank: .*|  candidates_per_rank: $5|" "$space" > "$WORK/$1.yaml"
}
campaign overhead-1k a100 "$SPACES/cache/convolution_milo-A100.json.gz" 1000 100
campaign overhead-10k mi250x "$SPACES/cache/dedispersion_milo-MI250X.json.gz" 10000 200

run_both() {
  for name in overhead-1k overhead-10k; do
    "$BUILD/bin/kforge" run "$WORK/$name.yaml" --site "$WORK/site.yaml" --out "$WORK/$name" > "$WORK/$name.log" 2>&1 ||
      { cat "$WORK/$name.log"; exit 1; }
    cat "$WORK/$name/g0000/timings.json"
  done
}
export -f run_both
export BUILD WORK
slurm/scripts/with-cluster.sh bash -c run_both | /usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    t = json.loads(line)
    print(json.dumps({"schema_version": 1, "benchmark": "scheduler_overhead", "candidates": t["candidates"],
                      "tasks": t["tasks"], "executor": t["executor"], "wall_s": t["wall_s"],
                      "scheduler_s": t["scheduler_s"], "scheduler_fraction": t["scheduler_fraction"],
                      "slurm_calls_s": t["slurm_calls_s"],
                      "phases_s": {k: t[k] for k in ("plan_s", "execute_s", "execute_waiting_s", "gather_s", "select_write_s")}}))
'
