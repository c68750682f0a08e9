#!/usr/bin/env bash
# cluster-up.sh DIR — start a real Slurm cluster whose every file lives in DIR: one node, or several.
#
# For tests and demos on one machine, as root. With KFORGE_SLURM_NODES=N (N > 1) the cluster has N nodes,
# kfnode1..kfnodeN, each slurmd in its own network namespace with its own address, link and hostname
# (node-netns.sh); slurmctld and munged stay on the host and are shared, as on a real cluster.
# Everything Slurm writes (config, state, spool, pid files, logs) goes under DIR, and the daemons listen on
# private ports, so a system Slurm is never touched.
# Prints `export SLURM_CONF=DIR/slurm.conf` on success. Running it on a DIR whose daemons are alive is a
# no-op. Stop with cluster-down.sh DIR.
#
# Environment overrides:
#   KFORGE_SLURMCTLD_PORT         slurmctld port            (default 16817)
#   KFORGE_SLURMD_PORT            slurmd port               (default 16818)
#   KFORGE_SLURM_MAX_ARRAY_SIZE   MaxArraySize              (default 1001, Slurm's own default)
#   KFORGE_SLURM_UP_TIMEOUT       seconds to wait for idle  (default 60)
#   KFORGE_SLURM_NODES            number of nodes           (default 1: this machine's own hostname)
#   KFORGE_SLURMD_TIMEOUT         SlurmdTimeout: seconds before a silent node is DOWN (default Slurm's, 300)
#   KFORGE_SLURM_MESSAGE_TIMEOUT  MessageTimeout            (default Slurm's, 10)
#   KFORGE_SLURM_CRED_EXPIRE      AuthInfo=cred_expire: also how long a requeued job waits (default 120, min 5)
set -euo pipefail

usage() { echo "usage: $0 DIR" >&2; exit 2; }
die() { echo "cluster-up: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || usage
[[ $(id -u) -eq 0 ]] || die "must run as root (slurmd runs jobs as their submitting user; SlurmUser=root)"
for tool in slurmctld slurmd sinfo munge unmunge munged; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] ||
    die "'$tool' not found: apt-get install -y --no-install-recommends slurm-wlm slurmctld slurmd munge"
done

mkdir -p "$1"
DIR=$(cd "$1" && pwd)
CONF=$DIR/slurm.conf
CTLD_PORT=${KFORGE_SLURMCTLD_PORT:-16817}
SLURMD_PORT=${KFORGE_SLURMD_PORT:-16818}
MAX_ARRAY_SIZE=${KFORGE_SLURM_MAX_ARRAY_SIZE:-1001}
UP_TIMEOUT=${KFORGE_SLURM_UP_TIMEOUT:-60}
HOST=$(hostname -s)
NODES=${KFORGE_SLURM_NODES:-1}
[[ $NODES =~ ^[1-9][0-9]?$ ]] || die "KFORGE_SLURM_NODES must be 1..99, not '$NODES'"
CTLD_ADDR=127.0.0.1
export SLURM_CONF=$CONF

# pid_alive PIDFILE: true when PIDFILE names a live process.
pid_alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

ensure_munge() {
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return 0; fi
  [[ -f /etc/munge/munge.key ]] || {
    /usr/sbin/mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key && chmod 600 /etc/munge/munge.key
  }
  mkdir -p /run/munge && chown munge:munge /run/munge && chmod 755 /run/munge
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  die "munged started but 'munge -n | unmunge' still fails; see /var/log/munge/munged.log"
}

# node_names: the cluster's node names, one a line: this machine's hostname, or kfnode1..N (DIR/nodes).
node_names() {
  if ((NODES == 1)); then echo "$HOST"; else awk '{print $1}' "$DIR/nodes"; fi
}

# node_lines: per node, this machine's real CPU layout from `slurmd -C`, memory a little below the real
# figure (slurmd drains a node that reports less memory than configured), its address, and the fake GPUs.
node_lines() {
  local line mem name addr
  line=$(slurmd -C | head -n 1)
  [[ $line == NodeName=* ]] || die "unexpected 'slurmd -C' output: $line"
  mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$line")
  line=${line/RealMemory=$mem/RealMemory=$((mem * 9 / 10))}
  line=${line#NodeName=* }
  if ((NODES == 1)); then
    echo "NodeName=$HOST $line NodeAddr=127.0.0.1 Gres=gpu:h100:4,gpu:b200:4 State=UNKNOWN"
    return
  fi
  while read -r name addr _; do
    echo "NodeName=$name $line NodeAddr=$addr NodeHostname=$name Gres=gpu:h100:4,gpu:b200:4 State=UNKNOWN"
  done <"$DIR/nodes"
}

# node_list: the partitions' Nodes= value.
node_list() { if ((NODES == 1)); then echo "$HOST"; else echo "kfnode[1-$NODES]"; fi; }

# partition_options: on several nodes, LLN=YES (least loaded node first) spreads an array's tasks over every
# node, as a busy cluster does; Slurm's default packing would leave the last node idle on so small a cluster.
partition_options() { ((NODES == 1)) || echo " LLN=YES"; }

# slurmd_pid_file NODE: where that node's slurmd writes its pid (slurmd expands %n to its node name).
slurmd_pid_file() { if ((NODES == 1)); then echo "$DIR/run/slurmd.pid"; else echo "$DIR/run/slurmd-$1.pid"; fi; }

# Lines only a multi-node cluster needs. Its nodes share /tmp, where the PMIx plugin makes a folder per job step
# with the same name on every node ("pmixp_mkdir: Cannot create directory /tmp/spmix_appdir_0_2.0: File
# exists"): TmpFS gives each node a /tmp of its own (slurmd expands %n), as real nodes have.
# The optional timeouts: short ones let a test see a dead or unreachable node marked DOWN within seconds.
optional_lines() {
  ((NODES == 1)) || echo "TmpFS=$DIR/tmp/%n"
  [[ -z ${KFORGE_SLURMD_TIMEOUT:-} ]] || echo "SlurmdTimeout=$KFORGE_SLURMD_TIMEOUT"
  [[ -z ${KFORGE_SLURM_MESSAGE_TIMEOUT:-} ]] || echo "MessageTimeout=$KFORGE_SLURM_MESSAGE_TIMEOUT"
  [[ -z ${KFORGE_SLURM_CRED_EXPIRE:-} ]] || echo "AuthInfo=cred_expire=$KFORGE_SLURM_CRED_EXPIRE"
}

write_config() {
  local slurmd_pid=$DIR/run/slurmd.pid slurmd_log=$DIR/log/slurmd.log
  ((NODES == 1)) || slurmd_pid=$DIR/run/slurmd-%n.pid slurmd_log=$DIR/log/slurmd-%n.log
  mkdir -p "$DIR"/{state,run,log,dev}
  for name in $(node_names); do mkdir -p "$DIR/spool/$name" "$DIR/tmp/$name"; done
  # slurmd drops a GPU GRES without File= and the node turns INVAL, so back each fake GPU with a file.
  touch "$DIR"/dev/nvidia{0..7}
  cat >"$DIR/gres.conf" <<EOF
# Fake GPUs for a test cluster: empty files stand in for device nodes.
NodeName=$(node_list) Name=gpu Type=h100 File=$DIR/dev/nvidia[0-3]
NodeName=$(node_list) Name=gpu Type=b200 File=$DIR/dev/nvidia[4-7]
EOF
  cat >"$CONF" <<EOF
# Generated by kforge slurm/scripts/cluster-up.sh: a $NODES-node test cluster. Edits are overwritten.
ClusterName=kforge-test
SlurmctldHost=$HOST($CTLD_ADDR)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$slurmd_pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$slurmd_log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
# Cancelled tasks get SIGTERM, then SIGKILL this many seconds later; short so tests stay quick.
KillWait=5
$(optional_lines)
MaxArraySize=$MAX_ARRAY_SIZE
GresTypes=gpu
$(node_lines)
PartitionName=hopper Nodes=$(node_list) Default=YES MaxTime=INFINITE State=UP$(partition_options)
PartitionName=blackwell Nodes=$(node_list) Default=NO MaxTime=INFINITE State=UP$(partition_options)
EOF
}

show_logs_and_die() {
  echo "cluster-up: $*" >&2
  sinfo -N -o '%N %T %E' >&2 2>&1 || true
  for log in "$DIR"/log/slurmctld.log "$DIR"/log/slurmd*.log; do
    [[ -f $log ]] && { echo "--- tail of $log" >&2; tail -n 20 "$log" >&2; }
  done
  exit 1
}

# all_slurmd_alive: true when every node's slurmd runs.
all_slurmd_alive() {
  local name
  ((NODES == 1)) || [[ -f $DIR/nodes ]] || return 1
  for name in $(node_names); do pid_alive "$(slurmd_pid_file "$name")" || return 1; done
}

wait_for_idle() {
  local start=$SECONDS deadline=$((SECONDS + UP_TIMEOUT)) states="" name state idle
  while ((SECONDS < deadline)); do
    # Daemons that died (port taken, bad config) will not come back: say so now rather than at the timeout.
    if ((SECONDS > start + 2)); then
      pid_alive "$DIR/run/slurmctld.pid" || show_logs_and_die "slurmctld is not running"
      for name in $(node_names); do
        pid_alive "$(slurmd_pid_file "$name")" || show_logs_and_die "slurmd of node $name is not running"
      done
    fi
    states=$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u || true)
    idle=0
    for name in $(node_names); do
      state=$(awk -v n="$name" '$1 == n {print $2; exit}' <<<"$states")
      case $state in
        idle | mixed | allocated) idle=$((idle + 1)) ;;
        *inval* | *drain*) show_logs_and_die "node $name is '$state' (config does not match the machine)" ;;
      esac
    done
    ((idle == NODES)) && return 0
    sleep 0.5
  done
  show_logs_and_die "not every node idle after ${UP_TIMEOUT}s (last states: '${states:-no answer}')"
}

# start_slurmds: one slurmd per node; on a multi-node cluster each inside its node's network namespace.
start_slurmds() {
  local name
  if ((NODES == 1)); then
    slurmd -f "$CONF" || show_logs_and_die "slurmd failed to start"
    return
  fi
  for name in $(node_names); do
    "$SCRIPTS/node-netns.sh" exec "$DIR" "$name" slurmd -f "$CONF" -N "$name" ||
      show_logs_and_die "slurmd of node $name failed to start"
  done
}

SCRIPTS=$(cd "$(dirname "$0")" && pwd)
ensure_munge
if pid_alive "$DIR/run/slurmctld.pid" && all_slurmd_alive; then
  echo "cluster-up: cluster in $DIR already running" >&2
else
  # A half-running cluster (one daemon died) is restarted whole, from a clean config.
  "$SCRIPTS/cluster-down.sh" "$DIR" >/dev/null 2>&1 || true
  if ((NODES > 1)); then
    "$SCRIPTS/node-netns.sh" up "$DIR" "$NODES" || die "could not create the nodes' network namespaces"
    CTLD_ADDR=$(sed -n 's/^NODE_HOST_ADDR=//p' "$DIR/nodes.env")
  fi
  write_config
  slurmctld -c -f "$CONF" || show_logs_and_die "slurmctld failed to start"
  start_slurmds
fi
wait_for_idle
echo "export SLURM_CONF=$CONF"
