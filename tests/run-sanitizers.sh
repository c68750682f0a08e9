#!/usr/bin/env bash
# The unit tests under AddressSanitizer and UBSan (docs/testing.md, "Sanitizers"): configures the build tree
# build-asan/ when needed (CMake option KFORGE_SANITIZE=ON, the system g++), builds the target kforge_unit_tests
# (every binary of the unit tier, and the programs they run) and runs the unit tier there. A memory error, a leak
# or undefined behaviour fails the test it happens in, with the sanitizer's report in CTest's output.
#   tests/run-sanitizers.sh [CTEST ARGS...]       e.g. -R Sandbox to run some of them
# Environment: KFORGE_ASAN_BUILD (build tree, default build-asan), KFORGE_ASAN_JOBS (build jobs, default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KFORGE_ASAN_BUILD:-build-asan}
jobs=${KFORGE_ASAN_JOBS:-$(nproc)}
start=$SECONDS
mkdir -p "$build"
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -DKFORGE_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build/configure.log" || {
    cat "$build/configure.log"
    exit 1
  }
fi
cmake --build "$build" -j"$jobs" --target kforge_unit_tests > "$build/build.log" 2>&1 || {
  tail -n 60 "$build/build.log"
  exit 1
}
echo "sanitizers: built the unit tests in $build/ in $((SECONDS - start)) s"

# Every finding is fatal and shows its stack; leaks are checked at each test binary's exit.
# handle_segv=0 and allocator_may_return_null=1: the sandbox tests crash their children and exhaust their memory on
# purpose, and must see what a normal build sees (death by SIGSEGV; std::bad_alloc), not ASan's report of it.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:handle_segv=0:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
start=$SECONDS
# Left out: a sandboxed child exhausting its address-space limit (RLIMIT_AS), which ASan does not support (its shadow
# memory needs more address space than the limit gives; the child dies in ASan's own allocator).
ctest --test-dir "$build" --output-on-failure --timeout 600 -j"$jobs" -L unit \
  -E '^SandboxTest\.UnboundedAllocationIsReportedAsOutOfMemory$' "$@"
echo "sanitizers: the unit tier ran clean under ASan and UBSan in $((SECONDS - start)) s"
