#!/usr/bin/env bash
# kernel_spaces.sh REPO OUT: the 16 fully measured GPU search spaces that bench/search_efficiency is measured on,
# copied out of a git clone of AutoTuningAssociation/benchmark_hub (MIT license) at the commit the figures in
# bench/README.md used, as OUT/cache/KERNEL-GPU.json.gz (Kernel Tuner caches).
#   git clone https://github.com/AutoTuningAssociation/benchmark_hub && bench/kernel_spaces.sh benchmark_hub spaces
# A bare clone or mirror serves as well: the files are read with `git show COMMIT:PATH`, never from a work tree,
# so the set is the same whatever the clone has checked out. The caches stay outside this repository (30 MB).
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BENCHMARK_HUB_CLONE OUT_DIR" >&2
  exit 2
fi
repo=$1 out=$2
commit=8eeb99e7179e6838af95d392ac6c60cebfd8c434
if ! git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "$0: $repo is not a clone of benchmark_hub holding commit $commit (git fetch it there first)" >&2
  exit 1
fi
mkdir -p "$out/cache"
copy() {  # copy PATH_IN_REPO NAME
  if ! git -C "$repo" show "$commit:$1" > "$out/cache/$2.json.gz.part"; then
    echo "$0: $1 is missing from $repo (a shallow or partial clone? its large files must be fetched)" >&2
    rm -f "$out/cache/$2.json.gz.part"
    exit 1
  fi
  mv "$out/cache/$2.json.gz.part" "$out/cache/$2.json.gz"
}
for kernel in convolution_milo dedispersion_milo; do
  for gpu in A100 A4000 A6000 MI250X W6600 W7800; do copy "cachefiles/$kernel/$gpu.json.gz" "$kernel-$gpu"; done
done
# Two kernels outside the tuning of "default": an older convolution (other parameters) and point-in-polygon.
for kernel in convolution pnpoly; do
  for gpu in RTX_2080_Ti RTX_3090; do copy "currently_unused/cachefiles/$kernel/$gpu.json.gz" "$kernel-$gpu"; done
done
echo "16 spaces in $out/cache"
