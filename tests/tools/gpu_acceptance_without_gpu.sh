#!/usr/bin/env bash
# bench/gpu-acceptance.sh (as docs/gpu-bundle.md shows it) on a machine without a GPU (or with nvidia-smi finding none): a valid summary.json in
# which every step is "skipped" with a reason naming the missing device, nothing "passed", exit code 0.
set -euo pipefail
SRC=$1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cd "$SRC"
# Hide any nvidia-smi: the no-GPU path must hold even on a GPU node.
mkdir -p "$OUT/nobin"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver"\nexit 9\n' \
  > "$OUT/nobin/nvidia-smi"
chmod +x "$OUT/nobin/nvidia-smi"
# docs/gpu-bundle.md, "The acceptance run on the GPU machine", second block, literally.
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/gpu-bundle.md "## The acceptance run on the GPU machine" 2)
nobin=$OUT/nobin result=$OUT/result
PATH="$nobin:$PATH" OUT=$result bash -euo pipefail -c "$command"
python3 - "$OUT/result/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
names = [x["step"] for x in s["steps"]]
assert names == ["gpu_tests", "example_campaigns", "engine_vs_cublas", "gemm_vs_cublas", "kda_vs_fla",
                 "kda_fla_output_verified_by_kforge", "engine_decode_1b", "rmsnorm_vs_peak_and_torch",
                 "engine_decode_1b_bf16"], names
for x in s["steps"]:
    assert x["status"] == "skipped", x
    assert x["reason"].startswith("no CUDA device: nvidia-smi found no GPU (NVIDIA-SMI has failed"), x
assert s["counts"] == {"passed": 0, "failed": 0, "timeout": 0, "skipped": 9}, s["counts"]
assert s["ok"] is True and s["gpu"] is None and s["target"] is None
print("gpu-acceptance without a GPU: 9 steps skipped with the reason")
PY
test -s "$OUT/result/acceptance.log"
