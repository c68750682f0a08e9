#!/usr/bin/env bash
# Builds the GPU bundle: a self-contained folder that runs kforge on a bare CUDA machine (no HDF5, yaml-cpp,
# Boost, OpenMPI or Slurm installed there), docs/gpu-bundle.md.
#   usage: tools/gpu-bundle.sh [--no-build] [BUILD_DIR [BUNDLE_DIR]]   (defaults: build, BUILD_DIR/gpu-bundle)
# --no-build takes the binaries as they are in BUILD_DIR/bin (the test suite's use: the build just ran).
# Layout: bin/ (kforge, kforge-eval, kforge-check-outputs, mpirun), tests/ (the gpu-labelled test binaries), lib/ (every shared library
# they need except glibc's, the NVIDIA driver's and the CUDA toolkit's; OpenMPI's and PMIx's plugins under
# lib/openmpi and lib/pmix), share/ (OpenMPI's help texts, the example campaigns), etc/, env.sh.
# Every ELF gets the RUNPATH $ORIGIN/../lib. NVRTC and cuBLAS are dlopen()ed from the machine's toolkit and
# libcuda from its driver, never bundled. OpenBLAS (36 MB, its kernels for every x86 core), its Fortran runtime
# and the gpu test binaries travel xz-compressed and env.sh unpacks them once, so the folder as shipped stays
# under 48 MiB.
# Exit codes: 0 built; 1 a build step failed; 2 a library cannot be resolved or the bundle is over 48 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_FIRST=1
if [[ ${1:-} == --no-build ]]; then BUILD_FIRST=0; shift; fi
BUILD=$(realpath "${1:-build}")
OUT=${2:-$BUILD/gpu-bundle}
MAX_BYTES=$((48 * 1024 * 1024))
BINARIES=(kforge kforge-eval kforge-check-outputs)
GPU_TESTS=(kforge_kernels_cuda_gpu_test kforge_kernels_cuda_isolation_test)
MPI_LIBDIR=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
PMIX_PLUGINS=/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
# Libraries the target machine brings: glibc's, the driver's, the CUDA toolkit's (dlopen()ed by kforge).
SYSTEM_LIBS='^(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|libanl\.so\.1|libcuda\.so.*|libnvidia-.*|libnvrtc.*|libcublas.*)$'
# OpenMPI plugins for networks a single GPU machine does not have (their libraries are most of OpenMPI's size),
# and for what kforge-eval never calls (MPI-IO, one-sided windows, topologies, monitoring, checkpointing).
SKIPPED_MPI_DEPS='libfabric|libuc[pmst]|libpsm|libibverbs|librdmacm|libinfinipath|libefa|libnl-|liboshmem'
SKIPPED_MPI_PLUGINS='^mca_(io|fcoll|fbtl|fs|sharedfp|osc|topo|vprotocol|crs|compress)_|monitoring|ras_(gridengine|simulator)'

for tool in patchelf xz ldd; do
  command -v $tool > /dev/null || { echo "gpu-bundle: $tool is missing (apt-get install patchelf xz-utils)" >&2; exit 1; }
done
if [[ $BUILD_FIRST == 1 ]]; then
  echo "gpu-bundle: building ${BINARIES[*]} ${GPU_TESTS[*]} in $BUILD"
  flock /tmp/kforge-build.lock cmake --build "$BUILD" -j2 --target "${BINARIES[@]}" "${GPU_TESTS[@]}" > /dev/null
fi
for b in "${BINARIES[@]}" "${GPU_TESTS[@]}"; do
  [[ -x $BUILD/bin/$b ]] || { echo "gpu-bundle: $BUILD/bin/$b is missing (build it first)" >&2; exit 1; }
done

rm -rf "$OUT"
mkdir -p "$OUT"/{bin,tests,lib/openmpi,lib/pmix,share/openmpi,share/pmix,share/kforge,etc/openmpi}
for b in "${BINARIES[@]}"; do strip -o "$OUT/bin/$b" "$BUILD/bin/$b"; done
for t in "${GPU_TESTS[@]}"; do strip -o "$OUT/tests/$t" "$BUILD/bin/$t"; done
cp "$(readlink -f "$(command -v orterun)")" "$OUT/bin/mpirun"

# OpenMPI's plugins, except those for absent networks.
for plugin in "$MPI_LIBDIR"/*.so; do
  [[ $(basename "$plugin") =~ $SKIPPED_MPI_PLUGINS ]] && continue
  needs=$(ldd "$plugin")  # not piped into grep -q: its early exit would fail the pipeline (pipefail)
  if grep -Eq "$SKIPPED_MPI_DEPS" <<< "$needs"; then continue; fi
  cp "$plugin" "$OUT/lib/openmpi/"
done
cp "$PMIX_PLUGINS"/*.so "$OUT/lib/pmix/"
cp -r /usr/share/openmpi/. "$OUT/share/openmpi/"
cp -r /usr/lib/x86_64-linux-gnu/pmix2/share/pmix/. "$OUT/share/pmix/"
rm -f "$OUT"/share/pmix/*.a "$OUT"/share/pmix/*.so*
cp /etc/openmpi/openmpi-mca-params.conf "$OUT/etc/openmpi/"
: > "$OUT/etc/openmpi/openmpi-default-hostfile"
cp share/examples/*.yaml "$OUT/share/kforge/"

# The closure: every library any ELF above needs, resolved on this (the build) machine.
missing=0
elves() { find "$OUT/bin" "$OUT/tests" "$OUT/lib" -type f \( -name '*.so*' -o -perm -u+x \) ! -name '*.xz'; }
for round in 1 2 3 4 5 6; do
  added=0
  while read -r elf; do
    while read -r name arrow path _; do
      [[ $arrow == "=>" ]] || continue
      [[ $name =~ $SYSTEM_LIBS ]] && continue
      if [[ $path == "not" ]]; then echo "gpu-bundle: $elf needs $name, not found here" >&2; missing=1; continue; fi
      [[ -e $OUT/lib/$name || -e $OUT/lib/$name.xz ]] && continue
      cp -L "$path" "$OUT/lib/$name"
      added=1
    done < <(ldd "$elf" 2>/dev/null)
  done < <(elves)
  [[ $added == 0 ]] && break
  echo "gpu-bundle: closure round $round added libraries"
done
[[ $missing == 0 ]] || exit 2

for elf in $(elves); do
  # shellcheck disable=SC2016  # the literal RUNPATH $ORIGIN, for patchelf
  case $elf in
    "$OUT"/lib/openmpi/* | "$OUT"/lib/pmix/*) rpath='$ORIGIN/..' ;;
    *) rpath='$ORIGIN/../lib' ;;
  esac
  chmod u+w "$elf"
  patchelf --set-rpath "$rpath" "$elf"
done
# Only the host backend's OpenBLAS baseline needs these; env.sh unpacks every lib/*.xz on first use.
for packed in libopenblas.so.0 libgfortran.so.5 libquadmath.so.0; do
  [[ -e $OUT/lib/$packed ]] && xz -T2 -6 "$OUT/lib/$packed"
done
# The gpu test binaries too (a third of their size packed; env.sh unpacks tests/*.xz, mode kept): room under 48 MiB.
for t in "${GPU_TESTS[@]}"; do xz -T2 -6 "$OUT/tests/$t"; done

sed "s|@BUNDLE_COMMIT@|$(git rev-parse --short HEAD 2> /dev/null || echo unknown)|" tools/gpu-bundle-env.sh > "$OUT/env.sh"
if find "$OUT" -name 'libcuda*' | grep -q .; then echo "gpu-bundle: libcuda must never be bundled" >&2; exit 2; fi
bytes=$(du -sb "$OUT" | cut -f1)
echo "gpu-bundle: $OUT: $((bytes / 1024 / 1024)) MiB ($bytes bytes), $(find "$OUT/lib" -name '*.so*' | wc -l) libraries"
if ((bytes > MAX_BYTES)); then echo "gpu-bundle: over the 48 MiB limit" >&2; exit 2; fi
