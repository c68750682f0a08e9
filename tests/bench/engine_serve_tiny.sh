#!/usr/bin/env bash
# engine_serve (bench/engine_serve.cpp) on a tiny llama: it writes the weights, the trace and the reference's logits,
# serves the trace at two concurrencies with greedy tokens identical to the double reference engine's, and prints
# valid JSON; the Python side of bench/engine_vs_peers reads what it wrote without any PyPI package, and its port of
# the serving loop takes the same steps as the harness's own loop. No PyPI, no peers (those: label peers).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
GENOME='fuse_qkv=1;fuse_gate_up=0;fold_norm=1;residual_epilogue=1;prepack=1;kv_block=16;threads=1;'
GENOME+='max_batch=2;prefill_chunk=16;schedule="prefill_first";'
GENOME+='MC=16;NC=32;KC=32;MR=2;NR=8;VEC=4;UNROLL=1;PACK=1;LOOP_ORDER="jpi"'
"$BUILD/bin/engine_serve" --layers 2 --hidden 32 --heads 4 --kv-heads 2 --head-dim 8 --mlp-hidden 48 --vocab 96 \
  --untied --requests 5 --prompt-min 3 --prompt-max 40 --output-min 1 --output-max 6 --concurrency 1,3 \
  --genome "$GENOME" --weights-out "$OUT/w.safetensors" --trace-out "$OUT/trace.json" --reference \
  --reference-logits-out "$OUT/ref.f64" > "$OUT/serve.json"
python3 -m py_compile bench/engine_vs_peers.py bench/peers/*.py
python3 bench/engine_vs_peers.py --help > /dev/null
python3 - "$OUT" <<'PY'
import json, os, struct, sys
sys.path.insert(0, "bench")
from peers.serving import Policy, load_trace, serve, token_agreement
out = sys.argv[1]
r = json.load(open(f"{out}/serve.json"))
assert r["benchmark"] == "engine_serve" and r["model"]["vocab"] == 96, r
ref = r["reference"]["outputs"]
trace = load_trace(f"{out}/trace.json")
assert [len(o) for o in ref] == [q["output_tokens"] for q in trace["requests"]], ref
assert [run["concurrency"] for run in r["runs"]] == [1, 3]
for run in r["runs"]:
    assert run["output_tokens_per_s"] > 0 and run["output_tokens"] == sum(map(len, ref)), run
    assert token_agreement(run["outputs"], ref)["identical"], (run["outputs"], ref)
    assert run["max_logit_rel_error"] < 1e-4 and run["checked_logit_rows"] == sum(map(len, ref)), run
    # The port of the serving loop, under the genome's policy, must take exactly the harness loop's steps (they
    # depend only on the policy and the lengths; a fake step answers one-hot rows).
    port = serve(trace["requests"], run["concurrency"], Policy(2, 16, False),
                 lambda seqs, tokens: [[1.0] + [0.0] * 95 for _ in seqs])
    assert port["steps"] == run["steps"], (port["steps"], run["steps"])
    assert [len(o) for o in port["outputs"]] == [len(o) for o in ref]
# safetensors: 8-byte header length, JSON header with every tensor in F32 and its shape.
with open(f"{out}/w.safetensors", "rb") as f:
    header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
assert header["model.layers.1.self_attn.k_proj.weight"]["shape"] == [16, 32], header
assert header["lm_head.weight"]["dtype"] == "F32" and header["lm_head.weight"]["shape"] == [96, 32]
assert os.path.getsize(f"{out}/ref.f64") == len(ref[0]) * 96 * 8
print("engine_serve tiny: ok", [round(run["output_tokens_per_s"]) for run in r["runs"]], "tokens/s")
PY
