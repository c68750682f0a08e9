#!/usr/bin/env bash
# Sets up kforge on Debian 12: installs the Debian packages it needs (only those missing; safe to rerun) and
# builds it into build/. Extra CMake arguments: KFORGE_CMAKE_ARGS="-DKFORGE_WERROR=ON" ./setup.sh
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  cmake g++ make                                   # toolchain
  libhdf5-dev hdf5-tools                           # archive (HDF5 1.10) and h5dump
  libyaml-cpp-dev libboost-program-options-dev     # configs, command lines
  libopenmpi-dev openmpi-bin                       # kforge-eval ranks
  libopenblas-dev                                  # the gemm family's OpenBLAS baseline
  zlib1g-dev nlohmann-json3-dev                    # the replay backend's gzipped JSON caches
  libgtest-dev                                     # tests
  slurm-wlm slurmctld slurmd libslurm-dev munge    # Slurm adapter and the real single-node test cluster
  iproute2                                         # the 3-node test cluster's network namespaces (ip netns)
  python3 python3-h5py python3-pandas python3-numpy  # the archive reader in share/python
  python3-yaml python3-matplotlib                  # kforge plot, kforge report --html (share/python/kforge_plot.py)
  clang libclang-rt-14-dev llvm-14                 # fuzz targets: clang 14, libFuzzer + ASan/UBSan runtimes, symbolizer
  man-db lmod                                      # the install test: man -l on the man pages, Lmod loads the modulefile
  clang-format-14 clang-tidy-14 shellcheck         # tools/check-habits.sh (CI's habits step)
  python3-venv                                     # its ruff (not packaged by Debian 12), pinned, in build/habits-venv
  patchelf xz-utils                                # tools/gpu-bundle.sh: RPATH $ORIGIN/../lib, the packed OpenBLAS runtime
  curl procps                                      # docs/serving.md's client and its tests; pgrep/pkill of test users
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The CUDA toolkit (NVRTC) is optional: with it the cuda backend's compile stage is built and tested (no GPU needed).
cuda_args=()
[[ -x /usr/local/cuda/bin/nvcc ]] && cuda_args=(-DCUDAToolkit_ROOT=/usr/local/cuda)
# shellcheck disable=SC2086  # KFORGE_CMAKE_ARGS is a list of arguments: split on purpose
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cuda_args[@]}" ${KFORGE_CMAKE_ARGS:-} > build-configure.log || {
  cat build-configure.log; exit 1; }
# Only what a campaign needs (the demo, the daemon, kforge serve): tests/run-all.sh builds the rest (tests,
# benchmarks, man pages) before it runs them, so a newcomer sees the demo without waiting for the test binaries.
targets=(kforge kforge-eval kforged kforge-serve)
# With the cuda backend: kforge-check-outputs, kforge's verification of an outside kernel (docs/cli.md).
# grep reads all of cmake's output (no -q): under pipefail an early exit would SIGPIPE cmake and hide the target.
cmake --build build --target help | grep ' kforge-check-outputs$' >/dev/null && targets+=(kforge-check-outputs)
cmake --build build -j"$(nproc)" --target "${targets[@]}"
echo "setup: built ${targets[*]/#/build/bin/} (tests/run-all.sh builds the tests)"
