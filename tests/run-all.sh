#!/usr/bin/env bash
# The whole test suite against build/ (./setup.sh configures it and builds the programs; this builds the rest).
# GPU tests skip themselves without a device.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tiers the default run leaves out (docs/testing.md, "Tiers"): habits (tools/check-habits.sh; CI runs it first),
# sanitize (the unit tier under ASan and UBSan), spack (a real Spack), peers (bench/engine_vs_peers against PyTorch
# and llama.cpp, FLA on CPU; they install from PyPI), bundle_drill (the GPU bundle in a debootstrap root),
# sweep (every genome of the cuda templates on the CPU emulation).
# ./setup.sh builds only the programs; the test binaries, benchmarks and man pages are built here.
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure --timeout 600 -j"$(nproc)" -LE "${KFORGE_EXCLUDE_LABELS:-^(habits|sanitize|spack|peers|bundle_drill|sweep)$}" "$@"
