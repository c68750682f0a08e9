#!/usr/bin/env bash
# node-netns.sh up DIR N | down DIR | exec DIR NODE CMD... — the network of a multi-node test cluster on one machine.
#
# `up` gives each of N test nodes (kfnode1..kfnodeN) its own network namespace, joined to the host by a veth
# pair on a private bridge: node i has address SUBNET.(10+i), the host (slurmctld, munge, the kforge driver)
# SUBNET.1. A node therefore has its own IP, its own link (which a test can take down) and, under `exec`, its
# own hostname and an /etc/hosts naming every node (DIR/hosts, bind-mounted in a mount namespace of its own).
# The filesystem is shared, as a cluster's shared filesystem is. What `up` made is written to DIR/nodes:
#     NAME ADDRESS NETNS HOST_VETH
# and DIR/nodes.env (NODE_BRIDGE, NODE_SUBNET, NODE_HOST_ADDR). `down` removes it all, killing whatever still
# runs inside the namespaces. Names derive from DIR, so several clusters can coexist. As root; needs iproute2.
set -euo pipefail

die() { echo "node-netns: $*" >&2; exit 1; }
usage() { echo "usage: $0 up DIR N | down DIR | exec DIR NODE CMD..." >&2; exit 2; }
[[ $# -ge 2 ]] || usage
ACTION=$1
DIR=$(cd "$2" && pwd)
# Interface names are limited to 15 characters: a 6-character tag of DIR keeps every name below that.
TAG=$(printf '%s' "$DIR" | sha1sum | cut -c1-6)
BRIDGE=kfbr$TAG

# A /24 in 10.0.0.0/8 that no interface or route of this machine uses yet.
pick_subnet() {
  local used subnet
  used=$(ip -4 -o addr show; ip -4 route show)
  for _ in $(seq 100); do
    subnet=10.$((100 + RANDOM % 150)).$((RANDOM % 256))
    grep -q " ${subnet//./\\.}\." <<<"$used" || { echo "$subnet"; return 0; }
  done
  die "no free 10.x.y.0/24 subnet found"
}

up() {
  local n=$1 subnet i ns veth addr
  [[ $n =~ ^[1-9][0-9]?$ ]] || die "node count must be 1..99, not '$n'"
  command -v ip >/dev/null || die "'ip' not found: apt-get install -y --no-install-recommends iproute2"
  [[ ! -e $DIR/nodes ]] || die "$DIR/nodes exists: run '$0 down $DIR' first"
  subnet=$(pick_subnet)
  ip link add "$BRIDGE" type bridge
  ip addr add "$subnet.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  printf 'NODE_BRIDGE=%s\nNODE_SUBNET=%s\nNODE_HOST_ADDR=%s\n' "$BRIDGE" "$subnet" "$subnet.1" >"$DIR/nodes.env"
  : >"$DIR/nodes.tmp"
  for i in $(seq "$n"); do
    ns=kf-$TAG-n$i veth=kfv$TAG$i addr=$subnet.$((10 + i))
    ip netns add "$ns"
    ip link add "$veth" type veth peer name eth0 netns "$ns"
    ip link set "$veth" master "$BRIDGE" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
    echo "kfnode$i $addr $ns $veth" >>"$DIR/nodes.tmp"
  done
  mv "$DIR/nodes.tmp" "$DIR/nodes"
  # Every node resolves every other node and the controller's host by name, as a cluster's DNS would.
  { printf '127.0.0.1 localhost\n%s %s\n' "$subnet.1" "$(hostname -s)"; awk '{print $2, $1}' "$DIR/nodes"; } >"$DIR/hosts"
}

down() {
  local ns veth pids
  if [[ -f $DIR/nodes ]]; then
    while read -r _ _ ns veth; do
      pids=$(ip netns pids "$ns" 2>/dev/null || true)
      # shellcheck disable=SC2086  # one pid per word
      [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
      ip link del "$veth" 2>/dev/null || true
      ip netns del "$ns" 2>/dev/null || true
    done <"$DIR/nodes"
  fi
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -f "$DIR/nodes" "$DIR/nodes.env" "$DIR/nodes.tmp" "$DIR/hosts"
}

# exec DIR NODE CMD...: CMD inside NODE's network namespace, with NODE as its hostname (a UTS namespace of its
# own) and DIR/hosts as /etc/hosts. Not `ip netns exec`: that remounts /sys, hiding the cgroup mounts slurmd
# needs ("No filesystem mounted on /sys/fs/cgroup").
node_exec() {
  local node=$1 ns
  shift
  ns=$(awk -v n="$node" '$1 == n {print $3}' "$DIR/nodes")
  [[ -n $ns ]] || die "no node '$node' in $DIR/nodes"
  # shellcheck disable=SC2016  # $0, $1 and $@ are the inner sh's
  exec nsenter --net="/run/netns/$ns" -- unshare --mount --uts --propagation slave -- \
    sh -c 'mount --bind "$1" /etc/hosts && hostname "$0" && shift && exec "$@"' "$node" "$DIR/hosts" "$@"
}

case $ACTION in
  up) [[ $# -eq 3 ]] || usage; up "$3" ;;
  down) [[ $# -eq 2 ]] || usage; down ;;
  exec) [[ $# -ge 4 ]] || usage; shift 2; node_exec "$@" ;;
  *) usage ;;
esac
