#!/usr/bin/env bash
# The Slurm path as an unprivileged user runs it (run under slurm/scripts/with-cluster.sh, as root):
#   H. a campaign with a relative --out, run from another directory: every path handed to Slurm is absolute
#   I. every task fails to launch (slurmd cannot open the job's output file): the campaign stops with exit 3,
#      a diagnosis naming the missing output file and slurmd's own message, and nothing archived
#   J. Ctrl-C (SIGINT) cancels the campaign's arrays and exits 130; the same command resumes and completes
#   K. SIGTERM leaves the arrays running (exit 143); `kforge cancel DIR` (no driver) cancels them; a cancelled
#      campaign is refused until DIR/CANCELLED is removed
#   L. `kforge cancel DIR` while a driver runs: the driver cancels its arrays and stops
#   M. the user's own scancel of a whole array: reported, not resubmitted; the generation failed whole -> exit 3
#   N. `kforge status DIR` without a reachable controller: exit 0, what the directory knows, and a note
set -euo pipefail
BIN=$1 SRC=$2

# shellcheck source=../slurm/slurm_test_user.sh
source "$(dirname "$0")/slurm_test_user.sh" slurm
# shellcheck source=tests/support/helpers.sh
source "$SRC/tests/support/helpers.sh"  # has_file_matching
mkdir "$WORK/home" && chown "$USER_NAME" "$WORK/home"
# The user runs copies of the binaries: the build tree may sit in a folder other users cannot enter.
mkdir "$WORK/bin" && cp "$BIN/kforge" "$BIN/kforge-eval" "$WORK/bin/" && chmod 755 "$WORK/bin"/*
# The slurmd log is read for the evidence of launch failures: let the user read this test cluster's.
CLUSTER=$(dirname "$SLURM_CONF")
chmod 755 "$CLUSTER" "$CLUSTER/log" && chmod 644 "$CLUSTER/log/slurmd.log"

# setpriv execs the command itself (runuser would stay in between and keep Ctrl-C from it).
as_user() { setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups env HOME="$WORK/home" "$@"; }

# One island (hopper), one generation of 3 tasks (1 candidate each), no retries: small and quick.
sed -e 's|targets: \[hopper, blackwell\]|targets: [hopper]|' -e 's|generations: 2|generations: 1|' \
    -e 's|offspring: 6|offspring: 3|' -e 's|population: 4|population: 3|' \
    "$SRC/tests/slurm/data/two-islands.yaml" > "$WORK/home/small.yaml"
sed -e 's|max_task_retries: 2|max_task_retries: 0|' -e 's|max_concurrent_tasks: 2|max_concurrent_tasks: 1|' \
    "$SRC/site-configs/local-slurm.yaml" > "$WORK/home/site.yaml"
chmod 644 "$WORK/home"/*.yaml

# kforge run as the user from $WORK/home, output relative to it. Called in a subshell: exec makes $! kforge.
run_in() { cd "$WORK/home" && exec setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups \
  env HOME="$WORK/home" "$WORK/bin/kforge" run small.yaml --site site.yaml --out "$1"; }

jobs_of() { squeue -h -u "$USER_NAME" -t PENDING,RUNNING,CONFIGURING,COMPLETING -o '%i' | wc -l; }
wait_running() {
  for _ in $(seq 1 300); do
    [[ -n $(squeue -h -u "$USER_NAME" -t RUNNING -o '%i') ]] && return 0
    sleep 0.2
  done
  echo "no task of $USER_NAME ever ran"; squeue; return 1
}
wait_no_jobs() {
  for _ in $(seq 1 100); do [[ $(jobs_of) -eq 0 ]] && return 0; sleep 0.2; done
  echo "jobs of $USER_NAME still queued or running:"; squeue -u "$USER_NAME"; return 1
}
expect_exit() {  # CODE PID LOG
  local code=0
  wait "$2" || code=$?
  [[ $code -eq $1 ]] || { cat "$3"; echo "exit code $code, expected $1"; exit 1; }
}

echo "== H: relative --out from the user's directory; every record ok and owned by the user"
( run_in runs/h ) > "$WORK/h.log" 2>&1 || { cat "$WORK/h.log"; exit 1; }
cat "$WORK/h.log"
grep -q "in $WORK/home/runs/h " "$WORK/h.log"
grep -q "^#SBATCH --output=$WORK/home/runs/h/g0000/logs/array-0-%A_%a.out" "$WORK/home/runs/h/g0000/slurm/array-0.sbatch"
has_file_matching "$WORK/home/runs/h/g0000/logs" 'array-0-[0-9]+_0\.out'
[[ $(stat -c %U "$WORK/home/runs/h/gen-0000.h5") == "$USER_NAME" ]]
/usr/bin/python3 - "$WORK/home/runs/h" "$SRC" <<'PY'
import sys; sys.path.insert(0, sys.argv[2] + "/share/python")
import kforge_archive
df = kforge_archive.load_records(sys.argv[1], with_text=True)
assert len(df) == 3 and (df["status"] == "ok").all(), df[["status", "evidence"]].to_dict("records")
print("H: 3 records ok")
PY

echo "== I: slurmd cannot open the output file of any task"
mkdir -p "$WORK/home/runs/i/g0000/logs"
chown "$USER_NAME" "$WORK/home/runs" "$WORK/home/runs/i" "$WORK/home/runs/i/g0000"  # logs/ stays root's, 755
( run_in runs/i ) > "$WORK/i.log" 2>&1 &
expect_exit 3 $! "$WORK/i.log"
cat "$WORK/i.log"
grep -q 'generation 0 stopped the campaign: 3 of 3 records failed for infrastructure reasons' "$WORK/i.log"
grep -q 'does not exist' "$WORK/i.log"
grep -q 'Could not open stdout file' "$WORK/home/runs/i/g0000/infra-failure.txt"
grep -q 'JobState=FAILED' "$WORK/home/runs/i/g0000/infra-failure.txt"
[[ ! -e "$WORK/home/runs/i/gen-0000.h5" ]] || { echo "a failed generation was archived"; exit 1; }

echo "== J: Ctrl-C cancels the arrays; the same command resumes"
( run_in runs/j ) > "$WORK/j.log" 2>&1 &
pid=$!
wait_running
kill -INT "$pid"
expect_exit 130 "$pid" "$WORK/j.log"
cat "$WORK/j.log"
grep -q 'interrupted: cancelled Slurm array(s) [0-9]' "$WORK/j.log"
wait_no_jobs
( run_in runs/j ) > "$WORK/j2.log" 2>&1 || { cat "$WORK/j2.log"; exit 1; }
[[ -f "$WORK/home/runs/j/gen-0000.h5" ]]

echo "== K: SIGTERM leaves the arrays running; kforge cancel DIR cancels them"
( run_in runs/k ) > "$WORK/k.log" 2>&1 &
pid=$!
wait_running
kill -TERM "$pid"
expect_exit 143 "$pid" "$WORK/k.log"
grep -q 'stopped by SIGTERM: Slurm arrays left running' "$WORK/k.log"
[[ $(jobs_of) -gt 0 ]] || { echo "SIGTERM cancelled the arrays"; exit 1; }
(cd "$WORK/home" && as_user "$WORK/bin/kforge" cancel runs/k) | tee "$WORK/k-cancel.log"
grep -q 'no driver is running; cancelled Slurm array(s) [0-9]' "$WORK/k-cancel.log"
wait_no_jobs
set +e
(cd "$WORK/home" && as_user "$WORK/bin/kforge" run small.yaml --site site.yaml --out runs/k) 2> "$WORK/k-refused.log"
code=$?
set -e
{ [[ $code -eq 1 ]] && grep -q 'was cancelled' "$WORK/k-refused.log"; } || { cat "$WORK/k-refused.log"; exit 1; }
rm "$WORK/home/runs/k/CANCELLED"
( run_in runs/k ) > "$WORK/k2.log" 2>&1 || { cat "$WORK/k2.log"; exit 1; }

echo "== L: kforge cancel DIR while a driver runs"
( run_in runs/l ) > "$WORK/l.log" 2>&1 &
pid=$!
wait_running
(cd "$WORK/home" && as_user "$WORK/bin/kforge" cancel runs/l) | tee "$WORK/l-cancel.log"
grep -q 'sent SIGTERM to the driving kforge run' "$WORK/l-cancel.log"
expect_exit 143 "$pid" "$WORK/l.log"
grep -q 'campaign cancelled: its Slurm arrays were cancelled' "$WORK/l.log"
wait_no_jobs

echo "== M: the user's own scancel of the whole array"
( run_in runs/m ) > "$WORK/m.log" 2>&1 &
pid=$!
wait_running
job=$(head -n 1 "$WORK/home/runs/m/g0000/slurm/jobs" | cut -d' ' -f1)
as_user scancel "$job"
expect_exit 3 "$pid" "$WORK/m.log"
cat "$WORK/m.log"
grep -q "is not retried: Slurm array task ${job}_[0-9] CANCELLED" "$WORK/m.log"
grep -q 'cancelled outside kforge (scancel)' "$WORK/home/runs/m/g0000/infra-failure.txt"
[[ $(wc -l < "$WORK/home/runs/m/g0000/slurm/jobs") -eq 1 ]] || { echo "resubmitted after a scancel"; exit 1; }

echo "== N: kforge status DIR without a controller"
( run_in runs/n ) > "$WORK/n.log" 2>&1 &
pid=$!
wait_running
kill -TERM "$pid"
expect_exit 143 "$pid" "$WORK/n.log"
(cd "$WORK/home" && as_user env SLURM_CONF=/nonexistent/slurm.conf "$WORK/bin/kforge" status runs/n) | tee "$WORK/n1.log"
grep -q 'live Slurm job states unavailable' "$WORK/n1.log"
grep -q 'live state unavailable' "$WORK/n1.log"
(cd "$WORK/home" && as_user "$WORK/bin/kforge" cancel runs/n) > /dev/null
wait_no_jobs
kill "$(cat "$CLUSTER/run/slurmctld.pid")"  # the controller goes away; this test is the last to need it
sleep 1
(cd "$WORK/home" && as_user "$WORK/bin/kforge" status runs/n --json) | tee "$WORK/n2.json"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["live_states_note"], d; assert d["arrays"], d' "$WORK/n2.json"

echo "all user, failure and signal checks passed"
