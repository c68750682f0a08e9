#!/usr/bin/env bash
# docs/gpu-bundle.md, "Build the bundle", run literally from the repository root (the build is up to date when
# the suite runs, so its cmake --build is a no-op): the bundle is at most 48 MiB, holds no libcuda, every ELF in
# it has the RUNPATH $ORIGIN/../lib (plugins: $ORIGIN/..), and with env.sh sourced every library an ELF needs
# resolves inside the bundle or to glibc / the base system, never to a -dev install (HDF5, MPI, yaml-cpp,
# Boost, Slurm, OpenBLAS), which this build machine has and the GPU machine has not.
set -euo pipefail
SRC=$1
cd "$SRC"
B=$SRC/build/gpu-bundle
bash -euo pipefail -c "$(/usr/bin/python3 tests/docs/run_doc_block.py docs/gpu-bundle.md "## Build the bundle")"
bytes=$(du -sb "$B" | cut -f1)
((bytes <= 48 * 1024 * 1024)) || { echo "bundle is $bytes bytes"; exit 1; }
cuda_libraries=$(find "$B" -name 'libcuda*')
[[ -z $cuda_libraries ]] || { echo "the bundle holds $cuda_libraries"; exit 1; }
for x in kforge kforge-eval mpirun; do [[ -x $B/bin/$x ]]; done
[[ -e $B/tests/kforge_kernels_cuda_gpu_test.xz && -e $B/tests/kforge_kernels_cuda_isolation_test.xz ]]
# shellcheck disable=SC1091
. "$B/env.sh"
[[ -e $B/lib/libopenblas.so.0 ]]  # unpacked by env.sh
[[ -x $B/tests/kforge_kernels_cuda_gpu_test && -x $B/tests/kforge_kernels_cuda_isolation_test ]]  # unpacked, runnable
DEV_LIBS='libhdf5|libmpi|libopen-(rte|pal)|libyaml-cpp|libboost|libslurm|libopenblas|libpmix|libhwloc|libgfortran'
checked=0
while read -r elf; do
  # shellcheck disable=SC2016  # the literal RUNPATH $ORIGIN
  case $elf in */lib/openmpi/* | */lib/pmix/*) want='$ORIGIN/..' ;; *) want='$ORIGIN/../lib' ;; esac
  [[ $(patchelf --print-rpath "$elf") == "$want" ]] || { echo "$elf: RUNPATH $(patchelf --print-rpath "$elf")"; exit 1; }
  needs=$(ldd "$elf")
  if grep -q "not found" <<< "$needs"; then echo "$elf:"; grep "not found" <<< "$needs"; exit 1; fi
  outside=$(grep -E "($DEV_LIBS)[^ ]* => " <<< "$needs" | grep -v "=> $B/" || true)
  [[ -z $outside ]] || { echo "$elf resolves outside the bundle:"; echo "$outside"; exit 1; }
  checked=$((checked + 1))
done < <(find "$B/bin" "$B/tests" "$B/lib" -type f ! -name '*.xz' ! -name 'libopenblas.so.0' ! -name 'libgfortran.so.5' ! -name 'libquadmath.so.0')
echo "gpu-bundle check: $checked ELF files, $bytes bytes, every library inside the bundle or the base system"
# The bundle's mpirun starts kforge-eval's ranks (single node, no ssh).
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe kforge-eval --help > /dev/null
