#!/usr/bin/env bash
# with-cluster.sh [--nodes N] CMD [ARGS...] — run CMD against a fresh Slurm cluster, then tear it down.
#
# One node by default. With --nodes N (N > 1) the cluster has N nodes, kfnode1..kfnodeN, each slurmd in its own
# network namespace (cluster-up.sh, node-netns.sh); the folder's `nodes` file lists them for CMD.
#
# The cluster lives in a new temporary folder; SLURM_CONF is exported for CMD. The exit status is CMD's.
# Unless KFORGE_SLURMCTLD_PORT / KFORGE_SLURMD_PORT are set, free ports are picked, so that several runs
# (and a developer's own cluster on 16817/16818) can coexist. The other cluster-up.sh variables
# (KFORGE_SLURM_MAX_ARRAY_SIZE, ...) pass through. On failure the folder, with its logs, is kept.
set -euo pipefail

usage() { echo "usage: $0 [--nodes N] CMD [ARGS...]" >&2; exit 2; }
if [[ ${1:-} == --nodes ]]; then
  [[ $# -ge 3 && $2 =~ ^[1-9][0-9]?$ ]] || usage
  export KFORGE_SLURM_NODES=$2
  shift 2
fi
[[ $# -ge 1 ]] || usage
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
COMMAND_LINE="$*"

# True when nothing accepts connections on 127.0.0.1:$1.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port_pair() {
  local base
  for _ in $(seq 50); do
    base=$((20000 + RANDOM % 20000))
    if port_free "$base" && port_free $((base + 1)); then echo "$base"; return 0; fi
  done
  echo "with-cluster: no free port pair found" >&2
  return 1
}

if [[ -z ${KFORGE_SLURMCTLD_PORT:-} || -z ${KFORGE_SLURMD_PORT:-} ]]; then
  base=$(pick_port_pair)
  export KFORGE_SLURMCTLD_PORT=$base KFORGE_SLURMD_PORT=$((base + 1))
fi

DIR=$(mktemp -d "${TMPDIR:-/tmp}/kforge-slurm.XXXXXX")
status=1
# shellcheck disable=SC2317  # called by the EXIT trap
teardown() {
  "$SCRIPTS/cluster-down.sh" "$DIR" 2>/dev/null || true
  if [[ $status -eq 0 ]]; then
    rm -rf "$DIR"
  else
    # The command failed: keep the cluster's logs and show their ends, which often hold the cause
    # (slurmd: "Could not open stdout file", slurmctld: a refused job).
    echo "with-cluster: '$COMMAND_LINE' exited with $status; cluster folder kept: $DIR (logs in $DIR/log)" >&2
    for log in "$DIR"/log/slurmctld.log "$DIR"/log/slurmd*.log; do
      [[ -f $log ]] && { echo "--- last lines of $log" >&2; tail -n 15 "$log" >&2; }
    done
  fi
}
trap teardown EXIT
trap 'exit 143' TERM INT  # so that the EXIT trap tears the cluster down when ctest times out

"$SCRIPTS/cluster-up.sh" "$DIR" >/dev/null
export SLURM_CONF=$DIR/slurm.conf
set +e
"$@"
status=$?
set -e
exit "$status"
