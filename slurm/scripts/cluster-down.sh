#!/usr/bin/env bash
# cluster-down.sh DIR — stop the test cluster that cluster-up.sh started in DIR.
#
# Cancels the jobs it still holds (their slurmstepd processes would otherwise outlive slurmd), then stops
# every slurmd and slurmctld by their pid files, and removes a multi-node cluster's network namespaces
# (node-netns.sh: whatever still runs in them is killed). munged is left running: other clusters may use it.
# Stopping a DIR with nothing running is a no-op.
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
[[ -d $1 ]] || exit 0
DIR=$(cd "$1" && pwd)
export SLURM_CONF=$DIR/slurm.conf

pid_alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

cancel_all_jobs() {
  local jobs
  jobs=$(timeout 10 squeue -h -o '%A' 2>/dev/null | tr '\n' ' ' || true)
  [[ -n ${jobs// /} ]] || return 0
  # shellcheck disable=SC2086  # one id per word
  timeout 10 scancel $jobs 2>/dev/null || true
  for _ in $(seq 40); do
    [[ -z $(timeout 10 squeue -h -t running,completing -o '%A' 2>/dev/null || true) ]] && return 0
    sleep 0.25
  done
}

# stop_daemon NAME PIDFILE: SIGTERM, wait up to 10 s, then SIGKILL.
stop_daemon() {
  local name=$1 pidfile=$2 pid
  pid_alive "$pidfile" || return 0
  pid=$(cat "$pidfile")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; return 0; }
    sleep 0.1
  done
  echo "cluster-down: $name (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

if pid_alive "$DIR/run/slurmctld.pid"; then cancel_all_jobs; fi
for pidfile in "$DIR"/run/slurmd.pid "$DIR"/run/slurmd-*.pid; do
  if [[ -e $pidfile ]]; then stop_daemon "slurmd ($(basename "$pidfile" .pid))" "$pidfile"; fi
done
stop_daemon slurmctld "$DIR/run/slurmctld.pid"
[[ ! -f $DIR/nodes.env ]] || "$(dirname "$0")/node-netns.sh" down "$DIR"
echo "cluster-down: cluster in $DIR stopped" >&2
