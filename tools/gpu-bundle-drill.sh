#!/usr/bin/env bash
# The GPU bundle on a bare machine: a minimal Debian 12 root file system made with debootstrap (no HDF5, MPI,
# yaml-cpp, Boost, Slurm or OpenBLAS; only g++ and python3, which the GPU image has), the bundle copied in,
# and inside it, as on the GPU machine: every library resolves, a small host demo campaign runs through the
# bundle's mpirun and reports, and the gpu tests skip with "no CUDA device". Needs root (chroot, mounts).
#   usage: tools/gpu-bundle-drill.sh [BUNDLE_DIR]        (default: build/gpu-bundle)
# The debootstrap root is made once (minutes; deb.debian.org must be reachable) and kept in
# $KFORGE_DRILL_CACHE (default /var/tmp/kforge-drill); each drill works on a fresh copy of it.
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=$(realpath "${1:-build/gpu-bundle}")
CACHE=${KFORGE_DRILL_CACHE:-/var/tmp/kforge-drill}
[[ -x $BUNDLE/bin/kforge ]] || { echo "drill: no bundle at $BUNDLE (tools/gpu-bundle.sh makes it)" >&2; exit 2; }

if [[ ! -x $CACHE/rootfs-base/bin/bash ]]; then
  command -v debootstrap > /dev/null || { echo "drill: debootstrap is missing (apt-get install debootstrap)" >&2; exit 2; }
  mkdir -p "$CACHE"
  rm -rf "$CACHE/rootfs-try"
  echo "drill: debootstrap bookworm into $CACHE (minutes)"
  debootstrap --variant=minbase --include=g++,python3 bookworm "$CACHE/rootfs-try" http://deb.debian.org/debian > "$CACHE/debootstrap.log"
  mv "$CACHE/rootfs-try" "$CACHE/rootfs-base"
fi

WORK=$(mktemp -d /var/tmp/kforge-drill-run.XXXXXX)
ROOT=$WORK/root
cleanup() {
  for m in dev/shm dev proc; do mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m"; done
  rm -rf "$WORK"
}
trap cleanup EXIT
cp -a "$CACHE/rootfs-base" "$ROOT"
mount -t proc proc "$ROOT/proc"
mount --bind /dev "$ROOT/dev"
mount -t tmpfs tmpfs "$ROOT/dev/shm"
cp -a "$BUNDLE" "$ROOT/opt/kforge"
tools/small-campaign.sh share/examples/gemm-host.yaml "$ROOT/opt/gemm-host-small.yaml" 1 4

echo "drill: packages a GPU machine lacks must be absent from the root"
# shellcheck disable=SC2016  # ${Package} is dpkg-query's format, not the shell's
if chroot "$ROOT" dpkg-query -W -f '${Package}\n' | grep -E '^(libhdf5|libopenmpi|openmpi|libyaml-cpp|libboost|libslurm|libopenblas|libpmix)'; then
  echo "drill: the root is not bare" >&2
  exit 1
fi

# shellcheck disable=SC2016  # the script runs inside the root: its variables are its own
chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root /bin/bash -euo pipefail -c '
. /opt/kforge/env.sh
echo "drill: every ELF of the bundle resolves inside the bundle or the base system"
for elf in $(find /opt/kforge/bin /opt/kforge/tests /opt/kforge/lib -type f ! -name "*.xz" ! -name "*.txt"); do
  if ldd "$elf" 2>&1 | grep -q "not found"; then echo "unresolved: $elf"; ldd "$elf" | grep "not found"; exit 1; fi
done
echo "drill: host demo campaign (1 generation of 4) through the bundled mpirun"
kforge run /opt/gemm-host-small.yaml --out /tmp/c
kforge report /tmp/c
echo "drill: gpu tests"
for t in /opt/kforge/tests/*; do
  [[ $t == *.xz ]] && continue  # packed copies; env.sh unpacked them beside
  "$t" > /tmp/gpu.log 2>&1 || { cat /tmp/gpu.log; exit 1; }
  grep -q "no CUDA device" /tmp/gpu.log || { cat /tmp/gpu.log; echo "$t did not skip with no CUDA device"; exit 1; }
  if grep -q "^\[  FAILED  \]" /tmp/gpu.log; then cat /tmp/gpu.log; exit 1; fi
  echo "$(basename "$t"): $(grep -c "^\[  SKIPPED \] .*(" /tmp/gpu.log) skipped, $(grep -c "^\[       OK \]" /tmp/gpu.log) passed"
  grep -m1 -A1 "Skipped$" /tmp/gpu.log | tail -1
done
'
echo "drill: ok"
