#!/usr/bin/env bash
# Faults of a real multi-node cluster (as root, under slurm/scripts/with-cluster.sh --nodes 3: kfnode1..3, each
# slurmd in its own network namespace with its own address and hostname; slurmctld and munged shared). An
# unprivileged user runs a 3-generation campaign of 3 array tasks per generation, 2 at a time; every task spans
# two nodes, one MPI rank on each (OpenMPI over TCP between the namespaces), and the tasks spread over all three
# nodes (LLN). Mid-generation:
#   gen 0  the node running a task's batch script crashes: its slurmd and everything it started are killed
#          with SIGKILL. Once Slurm marks it DOWN (SlurmdTimeout) it requeues that task, and kforge sees the
#          requeue; tasks with only a rank there fail instead (srun loses its step) and kforge retries them. They
#          run again on the other two nodes. After the generation the node comes back (slurmd started again).
#   gen 1  the link of a node running a rank of a task goes down (ip link set ... down): unreachable, its
#          processes running on. The task fails (kforge retries it, avoiding the node that stopped responding) or
#          is requeued once the node is DOWN; it runs again on the other two nodes. Then the link comes back up.
#   gen 2  a node under a running task is drained (scontrol update ... state=drain): that task finishes and is
#          kept; the task that starts afterwards runs on the other nodes.
# Checked in the archive with h5py: 18 records, every candidate once, all ok, each task's ranks on different
# nodes, all three nodes used; the records of the tasks that ran again say why (the failed attempt and/or Slurm's
# requeue, with the nodes' states: the dead one "down*", "Not responding") and ran elsewhere.
# If mpirun/srun could not span the namespaces, the two-hosts-per-task check would fail: it does span them, since
# each node has its own address, its own /tmp for PMIx (TmpFS=.../%n) and its own hostname for OpenMPI.
# The tasks last a few seconds (a compiler wrapper sleeps), so the faults land while they run; the cluster's
# short SlurmdTimeout and cred_expire (tests/slurm/CMakeLists.txt) keep a node failure to ~20 s.
set -euo pipefail
shopt -s extglob  # node_is takes patterns such as '@(idle|mixed)'
BIN=$1 SRC=$2
: "${SLURM_CONF:?run me under slurm/scripts/with-cluster.sh --nodes 3}"
CLUSTER=$(dirname "$SLURM_CONF")
[[ -f $CLUSTER/nodes && $(wc -l <"$CLUSTER/nodes") -eq 3 ]] || { echo "needs a 3-node cluster (with-cluster.sh --nodes 3)"; exit 1; }

# shellcheck source=slurm_test_user.sh
source "$(dirname "$0")/slurm_test_user.sh" nodes
mkdir "$WORK/home" "$WORK/bin" && chown "$USER_NAME" "$WORK/home"
# The user runs copies of the binaries: the build tree may sit in a folder other users cannot enter.
cp "$BIN/kforge" "$BIN/kforge-eval" "$WORK/bin/"
printf '#!/bin/sh\n# a compiler that takes a while, so that faults land while tasks run\nsleep 6\nexec c++ "$@"\n' >"$WORK/bin/slow-cxx"
chmod 755 "$WORK/bin"/*
chmod 755 "$CLUSTER" "$CLUSTER/log" && chmod 644 "$CLUSTER"/log/slurmd-*.log  # read for the evidence

# One island of the host gemm family, 3 generations of 6 candidates, 1 per rank: 3 tasks of 2 ranks each.
cat >"$WORK/home/campaign.yaml" <<YAML
campaign: {name: three-nodes, family: gemm, backend: host, targets: [hopper]}
space:
  parameters:
    MC: [16, 32, 48, 64]
    NC: [32, 64, 128]
    KC: [32, 64, 128]
    MR: [1, 2, 4]
    NR: [4, 8, 16]
    VEC: [1, 4, 8]
    UNROLL: [1, 2, 4]
    PACK: [0, 1]
    LOOP_ORDER: [jpi, pji, jip]
  constraints: ["NR % VEC == 0", "MC % MR == 0", "NC % NR == 0"]
search: {generations: 3, population: 4, offspring: 6, elite: 1, tournament: 2, seed: 5}
evaluation:
  problem: {M: 64, N: 64, K: 64}
  baselines: [reference]
  max_repeats: 5
  time_cap_s: 0.1
  compile_flags: "-O1"
  compiler: $WORK/bin/slow-cxx
  compile_timeout_s: 120
  candidates_per_rank: 1
  confirm_top: 0
YAML
cp "$SRC/tests/slurm/data/three-nodes-site.yaml" "$WORK/home/site.yaml"
chmod 644 "$WORK/home"/*.yaml
OUT=$WORK/home/run

node_field() { awk -v n="$1" -v f="$2" '$1 == n {print $f}' "$CLUSTER/nodes"; }  # NODE FIELD(3 netns, 4 veth)
node_state() { sinfo -h -N -n "$1" -o '%T' | head -n 1; }
# Bounded waits: a guard against hanging forever, not a timing assertion.
wait_for() {  # WHAT CMD...: until CMD succeeds, at most 120 s (or until kforge ends, unless ANY_TIME=1)
  local what=$1
  shift
  for _ in $(seq 600); do
    "$@" && return 0
    [[ ${ANY_TIME:-0} == 1 ]] || kill -0 "$driver" 2>/dev/null || break  # kforge ended: it will not come
    sleep 0.2
  done
  echo "gave up waiting for $what"; sinfo -N; squeue; cat "$WORK/kforge.log"; exit 1
}
# shellcheck disable=SC2053  # $2 is a pattern
node_is() { [[ $(node_state "$1") == $2 ]]; }
generation_done() { [[ -f $OUT/gen-000$1.h5 ]]; }
array_name() { echo "kf:three-nodes:g$1:hopper"; }
task_running() { [[ -n $(squeue -h -t RUNNING -n "$(array_name "$1")" -o '%i' 2>/dev/null) ]]; }
first_running_task() { squeue -h -t RUNNING -n "$(array_name "$1")" -o '%i' | head -n 1; }
batch_host() { scontrol --oneliner show job "$1" | grep -o 'BatchHost=[^ ]*' | cut -d= -f2; }
task_nodes() { scontrol show hostnames "$(squeue -h -j "$1" -o '%N')"; }
check() {  # WHAT CMD...: CMD must succeed
  local what=$1
  shift
  "$@" || { cat "$WORK/kforge.log"; echo "FAILED: $what"; exit 1; }
}

cd "$WORK/home"
setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups env HOME="$WORK/home" \
  "$WORK/bin/kforge" run campaign.yaml --site site.yaml --out "$OUT" >"$WORK/kforge.log" 2>&1 &
driver=$!

# gen 0: the node that runs a task's batch script crashes. The script dies with it, so only SlurmdTimeout tells
# the controller, which then requeues the task (deterministic: no srun is left to fail it first).
echo "== generation 0: a node crashes (slurmd and everything it started killed) under a running task"
wait_for "a running generation-0 task" task_running 0
task=$(first_running_task 0)
CRASHED=$(batch_host "$task")
echo "task $task runs on $(task_nodes "$task" | tr '\n' ' ')with its batch script on $CRASHED: crashing $CRASHED"
# shellcheck disable=SC2046  # one pid per word
kill -KILL $(ip netns pids "$(node_field "$CRASHED" 3)")
wait_for "$CRASHED marked down" node_is "$CRASHED" 'down\*'
sinfo -N -o '%N %T %E' | sort -u
wait_for "generation 0 to finish" generation_done 0
"$SRC/slurm/scripts/node-netns.sh" exec "$CLUSTER" "$CRASHED" slurmd -f "$SLURM_CONF" -N "$CRASHED"
ANY_TIME=1 wait_for "$CRASHED back in service" node_is "$CRASHED" '@(idle|mixed|allocated)'

# gen 1: the link of a node that runs only a rank of a task goes down: its processes run on, unreachable. srun on
# the batch host fails the task (kforge retries it) or the controller marks the node DOWN first and requeues it.
echo "== generation 1: the link of a node under a running task goes down"
wait_for "a running generation-1 task" task_running 1
task=$(first_running_task 1)
UNLINKED=$(task_nodes "$task" | grep -vx "$(batch_host "$task")" | head -n 1)
echo "task $task runs on $(task_nodes "$task" | tr '\n' ' ')with its batch script on $(batch_host "$task"): unlinking $UNLINKED"
ip link set "$(node_field "$UNLINKED" 4)" down
wait_for "$UNLINKED marked down" node_is "$UNLINKED" 'down\*'
sinfo -N -o '%N %T %E' | sort -u
wait_for "generation 1 to finish" generation_done 1
# The link is repaired; the admin returns the node to service (Slurm would itself, at its next registration).
ip link set "$(node_field "$UNLINKED" 4)" up
scontrol update nodename="$UNLINKED" state=resume
ANY_TIME=1 wait_for "$UNLINKED back in service" node_is "$UNLINKED" '@(idle|mixed|allocated)'

# gen 2: a node under a running task is drained: that task finishes; the task that starts later avoids the node.
echo "== generation 2: a node under a running task is drained"
wait_for "a running generation-2 task" task_running 2
DRAINED=$(batch_host "$(first_running_task 2)")
# The tasks running at the drain (listed just before and just after it) may use the drained node; no other may.
squeue -h -t RUNNING -n "$(array_name 2)" -o '%i' >"$WORK/running-at-drain"
scontrol update nodename="$DRAINED" state=drain reason="kforge test: drained mid-generation"
squeue -h -t RUNNING -n "$(array_name 2)" -o '%i' >>"$WORK/running-at-drain"
squeue -o '%.12i %.24j %.8T %N'
sinfo -N -o '%N %T %E' | sort -u

wait "$driver" || { cat "$WORK/kforge.log"; echo "FAILED: kforge run"; exit 1; }
cat "$WORK/kforge.log"
check "every generation complete" grep -q '^generation 2 (3 of 3)  evaluated 6  ok 6' "$WORK/kforge.log"
check "the requeue told" grep -q "kforge: Slurm requeued array task .*$CRASHED down\* (Not responding)" "$WORK/kforge.log"
check "$DRAINED drained" [ "$(node_state "$DRAINED")" == drained ]
check "the drain reason kept" grep -q 'kforge test: drained mid-generation' <<<"$(sinfo -h -n "$DRAINED" -o '%E')"
for g in 0 1 2; do check "3 shards in g000$g" [ "$(find "$OUT/g000$g/shards" -name '*.h5' | wc -l)" -eq 3 ]; done

KFORGE_SOURCE_DIR=$SRC /usr/bin/python3 - "$OUT" "$WORK/running-at-drain" "$CRASHED" "$UNLINKED" "$DRAINED" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["KFORGE_SOURCE_DIR"], "share", "python"))
import kforge_archive
df = kforge_archive.load_records(sys.argv[1], with_text=True)
# Nothing lost, nothing duplicated: 3 generations x 6 candidates, each candidate once per target.
assert len(df) == 18, f"{len(df)} records"
assert not df.duplicated(["candidate_id", "target"]).any(), "an evaluation is in the archive twice"
assert (df.groupby("generation").size() == 6).all(), df.groupby("generation").size()
bad = df[df["status"] != "ok"]
assert bad.empty, bad[["candidate_id", "status", "evidence"]].to_dict("records")
# Each task's ranks ran on different nodes (a rank takes candidates while there are any, so a quick rank may
# evaluate both of its task's: then that task shows one rank); rank 1's records reached rank 0's shard over MPI
# between two namespaces. Over the campaign the arrays used all three nodes.
task = ["generation", "slurm_job_id", "slurm_array_task"]
assert (df.groupby(task + ["rank"])["host"].nunique() == 1).all(), "a rank on two nodes"
tasks = df.groupby(task).agg(ranks=("rank", "nunique"), hosts=("host", "nunique"))
assert (tasks["ranks"] == tasks["hosts"]).all(), tasks
assert (tasks["ranks"] == 2).sum() >= 1, "no task had records from both its ranks"
print(f"{(tasks['ranks'] == 2).sum()} of {len(tasks)} tasks: records from both ranks, on two nodes each")
assert set(df["host"]) == {"kfnode1", "kfnode2", "kfnode3"}, set(df["host"])

def ran_again(g, node, how):
    """Records of generation g whose task ran again after `node` failed: why, and where they ran then."""
    rows = df[(df["generation"] == g) & df["evidence"].str.contains("scheduler: task ")]
    assert len(rows) >= 2, f"generation {g}: no record says its task ran again"
    for text in rows["evidence"]:
        assert any(h in text for h in how) and node in text, text
    assert node not in set(rows["host"]), f"a task ran on {node} again: {set(rows['host'])}"
    print(f"generation {g}: {len(rows)} records of tasks that ran again, on {sorted(set(rows['host']))}; evidence:")
    print("   ", rows["evidence"].iloc[0][rows["evidence"].iloc[0].find("scheduler: task "):][:600])

crashed, unlinked, drained = sys.argv[3:6]
ran_again(0, crashed, ["Slurm requeued array task"])
ran_again(1, unlinked, ["retried by kforge", "Slurm requeued array task"])
g2 = df[df["generation"] == 2]
at_drain = set(open(sys.argv[2]).read().split())
ids = g2["slurm_job_id"].astype(str) + "_" + g2["slurm_array_task"].astype(str)
after = g2[~ids.isin(at_drain)]
assert len(after) >= 2, f"no generation-2 task started after the drain (running then: {at_drain})"
assert drained not in set(after["host"]), f"a task started after the drain ran on {drained}: {set(after['host'])}"
assert not g2["evidence"].str.contains("scheduler: task ").any(), "a generation-2 task had to run again"
print(f"generation 2: {len(g2) - len(after)} records of tasks running at the drain kept; "
      f"{len(after)} started after it, on {sorted(set(after['host']))}")
print("archive ok:", len(df), "records, each candidate once, all ok")
PY
echo "multi-node faults: all checks passed"
