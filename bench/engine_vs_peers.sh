#!/usr/bin/env bash
# kforge's engine against PyTorch eager, llama.cpp and vLLM on the same model, weights and trace (bench/README.md).
# Makes (once) a virtual environment with the peers: torch (the CPU wheel when its index is reachable, else PyPI's),
# safetensors, numpy, gguf, PyYAML and llama-cpp-python (built from source; when that fails the benchmark reports
# llama.cpp as skipped and still runs the others), and BUILD_DIR/vllm-venv with vLLM's CPU backend
# (bench/vllm_venv.sh; when that fails vLLM is reported as skipped). Then runs bench/engine_vs_peers.py.
#   usage: bench/engine_vs_peers.sh [--build BUILD_DIR] [engine_vs_peers.py arguments...]
#   KFORGE_PEERS_VENV: where the environment lives (default BUILD_DIR/peers-venv)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build
PEERS=torch,llama.cpp,vllm  # engine_vs_peers.py's default
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  if [[ ${args[i]} == --build ]]; then BUILD=${args[i + 1]}; fi
  if [[ ${args[i]} == --peers ]]; then PEERS=${args[i + 1]}; fi
done
VENV=${KFORGE_PEERS_VENV:-$BUILD/peers-venv}
# shellcheck source=bench/peers_venv.sh
. bench/peers_venv.sh
peers_venv "$VENV"
PY=$PEERS_PY
if ! "$PY" -c "import numpy, safetensors, gguf, yaml" 2>/dev/null; then
  "$PY" -m pip install --quiet numpy safetensors gguf pyyaml
fi
# llama-cpp-python compiles llama.cpp (minutes on 2 cores); a failed build is remembered, not retried every run.
if ! "$PY" -c "import llama_cpp" 2>/dev/null && [[ ! -f $VENV/llama-cpp-build-failed.log ]]; then
  # Only the library: no multimodal (mtmd), tools, examples or tests (a third fewer objects to compile).
  if ! CMAKE_BUILD_PARALLEL_LEVEL=2 CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF" \
    "$PY" -m pip install llama-cpp-python > "$VENV/llama-cpp-build.log" 2>&1; then
    mv "$VENV/llama-cpp-build.log" "$VENV/llama-cpp-build-failed.log"
    echo "engine_vs_peers: llama-cpp-python did not build (log: $VENV/llama-cpp-build-failed.log);" \
      "llama.cpp is skipped" >&2
  fi
fi
# vLLM pins a torch of its own: an environment of its own, made once (minutes, ~6 GB) when vllm is among the
# peers; a failure is remembered.
if [[ ,$PEERS, == *,vllm,* && ! -f $BUILD/vllm-venv-failed.log ]] &&
  ! bench/vllm_venv.sh "$BUILD/vllm-venv" > /dev/null 2> "$BUILD/vllm-venv.log"; then
  mv "$BUILD/vllm-venv.log" "$BUILD/vllm-venv-failed.log"
  rm -rf "$BUILD/vllm-venv"
  echo "engine_vs_peers: vLLM's environment did not install (log: $BUILD/vllm-venv-failed.log); vLLM is skipped" >&2
fi
exec "$PY" bench/engine_vs_peers.py "$@"
