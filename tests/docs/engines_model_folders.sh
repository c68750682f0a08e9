#!/usr/bin/env bash
# docs/engines.md, "Model folders": the shell block run literally from the repository root
# (a random-weight SmolLM-135M folder written by tools/make-model-folder.py, then the example validated against it),
# a sharded Qwen2 folder, then what a user gets wrong: a key kforge does not compute, named by config.json's line
# and column, exit 2.
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/engines.md "### Model folders")
echo "running from $SRC:"
echo "$command"
scratch=$(mktemp -d)
keep=models/smollm-135m  # a folder the developer wrote stays; one this test wrote goes
[ -e "$keep" ] || keep=""
trap 'rm -rf "$scratch"; [ -n "$keep" ] || rm -rf models/smollm-135m' EXIT
out=$(bash -euo pipefail -c "$command" 2>&1)
echo "$out"
grep -q '^share/examples/engine-smollm.yaml: ok' <<<"$out"
/usr/bin/python3 - models/smollm-135m <<'PY'
import json, os, sys
cfg = json.load(open(os.path.join(sys.argv[1], "config.json")))
assert cfg["architectures"] == ["LlamaForCausalLM"] and cfg["num_hidden_layers"] == 30, cfg
assert cfg["hidden_size"] == 576 and cfg["vocab_size"] == 49152 and cfg["tie_word_embeddings"], cfg
assert os.path.getsize(os.path.join(sys.argv[1], "model.safetensors")) > 2 * 134_000_000, "bf16 weights"
PY
# A Qwen2.5-0.5B-shaped folder (one layer, shards) validates too; an activation kforge does not compute is refused.
/usr/bin/python3 tools/make-model-folder.py --shape qwen2.5-0.5b --dtype f16 --out "$scratch/qwen" --layers 1 --shard-mb 64
sed "s|path: .*|path: $scratch/qwen|" share/examples/engine-smollm.yaml > "$scratch/qwen.yaml"
build/bin/kforge validate "$scratch/qwen.yaml"
sed -i 's|"hidden_act": "silu"|"hidden_act": "gelu"|' "$scratch/qwen/config.json"
set +e
err=$(build/bin/kforge validate "$scratch/qwen.yaml" 2>&1)
rc=$?
set -e
echo "$err"
[ "$rc" = 2 ]
grep -q "model.path: $scratch/qwen/config.json:[0-9]*:[0-9]*: hidden_act: only silu (SwiGLU) is supported" <<<"$err"
