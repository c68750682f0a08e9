#!/usr/bin/env bash
# Campaigns through a real Slurm cluster (run under slurm/scripts/with-cluster.sh with MaxArraySize 4):
#   A. a full two-island campaign: each island's arrays in its own partition with its own GRES; 6 tasks per
#      island and generation are split into arrays of at most 4; every record evaluated exactly once
#   B. a user's scancel of one running array task: a decision, reported and not resubmitted; its candidate is
#      recorded as infra_error saying so, and the campaign completes
#   C. kforge status lists each island's arrays with pending/running/done/failed tasks; kforge killed with
#      SIGKILL while its arrays run, restarted: it re-attaches, nothing is evaluated twice
#   D. a site naming a partition the cluster does not have: exit 2, the key and Slurm's message
#   E. slurmd stopped in the middle of a generation and started again: the campaign completes, nothing lost
#   F. an array task that exceeds its time limit, retries spent: the only task of the generation failed, so the
#      campaign stops with exit code 3 and a diagnosis naming Slurm's TIMEOUT state
#   G. agent operators run as Slurm jobs in the site's agent_partition: an agent's children are accepted, and
#      one that hangs past its time limit is timed_out (its job cancelled) while the campaign completes
set -euo pipefail
BIN=$1 SRC=$2
: "${SLURM_CONF:?run me under slurm/scripts/with-cluster.sh}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CAMPAIGN=$SRC/tests/slurm/data/two-islands.yaml
SITE=$SRC/site-configs/local-slurm.yaml
# Always called in a subshell (pipeline or &): exec makes $! the pid of kforge itself.
run() { exec "$BIN/kforge" run "$CAMPAIGN" --site "$SITE" --out "$1"; }

check_archive() {  # DIR: 24 records, islands kept apart, all ok, all with a Slurm job id
  KFORGE_SOURCE_DIR=$SRC /usr/bin/python3 - "$1" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["KFORGE_SOURCE_DIR"], "share", "python"))
import kforge_archive
df = kforge_archive.load_records(sys.argv[1], with_text=True)
assert len(df) == 24, f"{len(df)} records"
assert not df.duplicated(["candidate_id", "target"]).any(), "an evaluation is in the archive twice"
bad = df[df["status"] != "ok"]
assert bad.empty, bad[["candidate_id", "status", "evidence"]].to_dict("records")
assert set(zip(df["island"], df["target"])) == {(0, "hopper"), (1, "blackwell")}, set(zip(df["island"], df["target"]))
assert (df.groupby("target").size() == 12).all()
assert (df["slurm_job_id"] > 0).all() and (df["slurm_array_task"] >= 0).all()
print("archive ok:", len(df), "records")
PY
}

echo "== A: two islands through Slurm, arrays split at MaxArraySize"
( run "$WORK/a" ) | tee "$WORK/a.log"
grep -q '^generation 1 (2 of 2)  evaluated 12  ok 12' "$WORK/a.log"
check_archive "$WORK/a"
[[ $(wc -l < "$WORK/a/g0000/slurm/jobs") -eq 4 ]] || { cat "$WORK/a/g0000/slurm/jobs"; echo "expected 2 arrays per island"; exit 1; }
grep -q -- '--partition=blackwell' "$WORK/a/g0000/slurm/array-0.sbatch"
grep -q -- '--gres=gpu:b200:1' "$WORK/a/g0000/slurm/array-0.sbatch"

wait_for_running() {  # NAME: prints "jobid_taskid" of a running task of that job name
  for _ in $(seq 1 300); do
    task=$(squeue -h -t RUNNING -n "$1" -o '%i' | grep '_' | head -n 1 || true)
    [[ -n $task ]] && { echo "$task"; return 0; }
    sleep 0.2
  done
  return 1
}

echo "== B: scancel one running array task"
run "$WORK/b" > "$WORK/b.log" 2>&1 &
pid=$!
victim=$(wait_for_running "kf:two-islands:g0:hopper") || { cat "$WORK/b.log"; echo "no task ever ran"; exit 1; }
squeue -o '%.18i %.40j %.10T %P' | tee "$WORK/squeue.txt"
grep -q 'kf:two-islands:g0:hopper' "$WORK/squeue.txt"
scancel "$victim"
echo "cancelled $victim"
wait "$pid" || { cat "$WORK/b.log"; exit 1; }
cat "$WORK/b.log"
grep -q "is not retried: Slurm array task $victim CANCELLED" "$WORK/b.log"
[[ $(wc -l < "$WORK/b/g0000/slurm/jobs") -eq 4 ]] || { echo "the cancelled task was resubmitted"; exit 1; }
KFORGE_SOURCE_DIR=$SRC /usr/bin/python3 - "$WORK/b" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["KFORGE_SOURCE_DIR"], "share", "python"))
import kforge_archive
df = kforge_archive.load_records(sys.argv[1], with_text=True)
assert len(df) == 24 and not df.duplicated(["candidate_id", "target"]).any(), len(df)
bad = df[df["status"] != "ok"]
assert len(bad) == 1 and bad["evidence"].str.contains("cancelled outside kforge").all(), bad.to_dict("records")
print("the scancelled task's candidate is recorded:", bad["evidence"].iloc[0][:120])
PY

echo "== C: SIGKILL the driver while its arrays run, restart"
run "$WORK/c" > "$WORK/c1.log" 2>&1 &
pid=$!
wait_for_running "kf:two-islands:g1:hopper" > /dev/null || { cat "$WORK/c1.log"; exit 1; }
"$BIN/kforge" status "$WORK/c" | tee "$WORK/c-status.txt"  # squeue-like: each island's arrays and their tasks
grep -qE '^[0-9]+ +hopper +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+' "$WORK/c-status.txt"
grep -qE '^[0-9]+ +blackwell ' "$WORK/c-status.txt"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
[[ ! -f "$WORK/c/gen-0001.h5" ]] || { echo "generation 1 ended before the kill"; exit 1; }
( run "$WORK/c" ) | tee "$WORK/c2.log"
grep -q '^generation 1 (2 of 2)' "$WORK/c2.log"
# Re-attached (or found the arrays' shards): generation 1's arrays were never submitted a second time.
[[ $(wc -l < "$WORK/c/g0001/slurm/jobs") -eq 4 ]] || { cat "$WORK/c/g0001/slurm/jobs"; echo "resubmitted"; exit 1; }
check_archive "$WORK/c"

echo "== D: a partition the cluster does not have"
sed 's/partition: hopper, gres/partition: nosuch, gres/' "$SITE" > "$WORK/bad-site.yaml"
set +e
"$BIN/kforge" run "$CAMPAIGN" --site "$WORK/bad-site.yaml" --out "$WORK/d" 2> "$WORK/d.err"
code=$?
set -e
cat "$WORK/d.err"
[[ $code -eq 2 ]] || { echo "exit code $code, expected 2"; exit 1; }
grep -q "bad-site.yaml:[0-9]*:[0-9]*: slurm.targets.hopper.partition: Slurm rejected the submission: .*[Pp]artition" "$WORK/d.err"
echo "== E: slurmd stopped mid-generation and started again"
CLUSTER=$(dirname "$SLURM_CONF")
run "$WORK/e" > "$WORK/e.log" 2>&1 &
pid=$!
wait_for_running "kf:two-islands:g0:hopper" > /dev/null || { cat "$WORK/e.log"; exit 1; }
kill "$(cat "$CLUSTER/run/slurmd.pid")"
echo "slurmd stopped"
sleep 4
slurmd -f "$SLURM_CONF"
echo "slurmd started again"
wait "$pid" || { cat "$WORK/e.log"; exit 1; }
check_archive "$WORK/e"

echo "== F: an array task beyond its time limit"
# The compiler wrapper sleeps past the 1-minute limit, so Slurm ends the task with TIMEOUT.
cat > "$WORK/slow-cxx.sh" <<'SH'
#!/bin/sh
sleep 300
exec c++ "$@"
SH
chmod +x "$WORK/slow-cxx.sh"
sed -e "s|generations: 2|generations: 1|" -e "s|offspring: 6|offspring: 2|" -e "s|population: 4|population: 2|" \
    -e "s|targets: \[hopper, blackwell\]|targets: [hopper]|" -e "s|candidates_per_rank: 1|candidates_per_rank: 2|" \
    -e "s|  compile_flags: \"-O1\"|  compile_flags: \"-O1\"\n  compiler: $WORK/slow-cxx.sh\n  compile_timeout_s: 600|" \
    "$CAMPAIGN" > "$WORK/timeout.yaml"
sed -e "s|time_limit_min: 10|time_limit_min: 1|" -e "s|max_task_retries: 2|max_task_retries: 0|" "$SITE" > "$WORK/timeout-site.yaml"
set +e
"$BIN/kforge" run "$WORK/timeout.yaml" --site "$WORK/timeout-site.yaml" --out "$WORK/f" > "$WORK/f.log" 2>&1
code=$?
set -e
cat "$WORK/f.log"
[[ $code -eq 3 ]] || { echo "exit code $code, expected 3 (a whole generation failed)"; exit 1; }
grep -q 'generation 0 stopped the campaign: 2 of 2 records failed for infrastructure reasons' "$WORK/f.log"
grep -q 'TIMEOUT' "$WORK/f/g0000/infra-failure.txt"
[[ ! -e "$WORK/f/gen-0000.h5" ]] || { echo "the failed generation was archived and bred from"; exit 1; }

echo "== G: agent operators as Slurm jobs in the site's agent partition"
cat > "$WORK/slurm-agent.py" <<'PY'
import json, os, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
brief = json.load(open(args["--brief"][:-len(".yaml")] + ".json"))
open("slurm_job.txt", "w").write(os.environ.get("SLURM_JOB_ID", "") + "\n")
child = {"source": brief["parents"][0]["source"] + "\n// proposed by an agent that ran as a Slurm job\n",
         "rationale": "the best parent, unchanged, to show where agents run"}
json.dump({"children": [child]}, open(args["--children"], "w"))
PY
printf '#!/bin/sh\nsleep 600\n' > "$WORK/hanging-agent.sh"
chmod +x "$WORK/hanging-agent.sh"
{ sed -e "s|targets: \[hopper, blackwell\]|targets: [hopper]|" "$CAMPAIGN"
  cat <<YAML
agents:
  - {name: slurm-agent, command: [python3, $WORK/slurm-agent.py], weight: 0.2, timeout_s: 60}
  - {name: hanging, command: [$WORK/hanging-agent.sh], weight: 0.2, timeout_s: 5}
YAML
} > "$WORK/agents.yaml"
sed -e "s|  poll_interval_s: 1|  poll_interval_s: 1\n  agent_partition: blackwell|" "$SITE" > "$WORK/agents-site.yaml"
grep -q 'agent_partition: blackwell' "$WORK/agents-site.yaml"
"$BIN/kforge" run "$WORK/agents.yaml" --site "$WORK/agents-site.yaml" --out "$WORK/g" | tee "$WORK/g.log"
grep -q '^agent slurm-agent (island 0): ok, 1 children accepted' "$WORK/g.log"
grep -q '^agent hanging (island 0): timed_out, 0 children accepted' "$WORK/g.log"
grep -Eq '^[0-9]+$' "$WORK/g/g0001/agents/slurm-agent-island0/slurm_job.txt"  # it ran inside a Slurm job
grep -q 'Slurm job [0-9]* in partition blackwell' "$WORK/g/g0001/agents/slurm-agent-island0/outcome.txt"
grep -q 'Slurm job [0-9]* in partition blackwell' "$WORK/g/g0001/agents/hanging-island0/outcome.txt"
grep -q '^generation 1 (2 of 2)' "$WORK/g.log"

echo "all Slurm campaign checks passed"
