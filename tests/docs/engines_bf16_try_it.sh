#!/usr/bin/env bash
# docs/engines.md, "Activations": the bf16 engine's 1B campaign (share/examples/engine-cuda-1b-bf16.yaml, the one
# bench/gpu-acceptance.sh's engine_decode_1b_bf16 runs) validated, then one generation of four engines compiled for
# both targets and resource-checked, run literally from the repository root. Every record is held to the activation
# contract, and each one that compiled carries the tensor-core kernels it launches.
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/engines.md "## Activations")
echo "running from $SRC:"
echo "$command"
log=$(mktemp)
trap 'rm -rf "$SRC/runs/engine-cuda-1b-bf16" "$SRC/runs/engine-cuda-1b-bf16.yaml" "$log"' EXIT
rm -rf runs/engine-cuda-1b-bf16 runs/engine-cuda-1b-bf16.yaml
KFORGE_CUDA_CACHE=$(mktemp -d) bash -euo pipefail -c "$command" | tee "$log"
grep -Eq '^share/examples/engine-cuda-1b-bf16.yaml: ok ' "$log"
grep -Eq '^generation 0 \(1 of 1\)  evaluated 8  ' "$log"  # 4 engines x 2 targets
# The report says why it names no best, and asks for no confirmation of what was never timed.
grep -Eq '^best: none: [0-9]+ candidates ok, none timed \(a compile-only campaign times nothing\)$' "$log"
grep -q '^confirmation: not confirmed: nothing timed yet to confirm$' "$log"
/usr/bin/python3 - <<'PY'
import sys
sys.path.insert(0, "share/python")
import kforge_archive
df = kforge_archive.load_records("runs/engine-cuda-1b-bf16", with_text=True)
assert len(df) == 8 and set(df["target"]) == {"hopper", "blackwell"}, df[["target", "status"]]
assert df["params"].str.contains('activations="bf16"').all(), df["params"].tolist()
assert set(df["status"]) <= {"ok", "resource_reject"}, df[["status", "evidence"]].to_dict("records")
ok = df[df["status"] == "ok"]
assert len(ok) >= 2, df[["status", "evidence"]].to_dict("records")  # the initial engine, on both targets at least
for _, r in ok.iterrows():
    assert ".entry kf_gemm_tc(" in r["ptx"] and "mma.sync.aligned.m16n8k16" in r["ptx"], r["ptx"][:300]
    assert "cp.async" in r["ptx"] and "ldmatrix" in r["ptx"], "kf_gemm_tc's pipeline is in the module's PTX"
for _, r in df[df["status"] == "resource_reject"].iterrows():
    assert "resource_reject: kf_" in r["evidence"], r["evidence"][-1000:]
print(f"bf16 engines compiled: {len(ok)} ok of {len(df)}, all under the activation contract")
PY
