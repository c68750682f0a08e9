#!/usr/bin/env bash
# docs/gpu-bundle.md, run literally from the repository root: "Build the bundle", "The drill on a bare Debian 12"
# (libraries resolve, a host campaign runs, the gpu tests skip with "no CUDA device") and the wheel download of
# "The acceptance run on the GPU machine". Minutes, root and network: label bundle_drill, outside the default run.
set -euo pipefail
SRC=$1
cd "$SRC"
doc() { /usr/bin/python3 tests/docs/run_doc_block.py docs/gpu-bundle.md "$@"; }
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
bash -euo pipefail -c "$(doc "## Build the bundle")"
bash -euo pipefail -c "$(doc "## The drill on a bare Debian 12")" | tee "$LOG"
grep -q '^drill: ok$' "$LOG"
grep -q '^kforge_kernels_cuda_gpu_test: [1-9][0-9]* skipped, 0 passed$' "$LOG"
bash -euo pipefail -c "$(doc "## The acceptance run on the GPU machine" 1)"
ls .whl/fla_core-0.6.0-py3-none-any.whl .whl/einops-0.8.2-py3-none-any.whl .whl/packaging-*-py3-none-any.whl
