#!/usr/bin/env bash
# docs/engines.md, "Try it without a GPU": the cuda engine example validated, one generation of four engines
# compiled for both targets with NVRTC and resource-checked, run literally from the repository root. Every record
# carries the module's PTX with its nine kernels, resource figures, and a status the compile stage gives.
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/engines.md "### Try it without a GPU")
echo "running from $SRC:"
echo "$command"
log=$(mktemp)
trap 'rm -rf "$SRC/runs/engine-cuda-compile" "$SRC/runs/engine-cuda-compile.yaml" "$log"' EXIT
rm -rf runs/engine-cuda-compile runs/engine-cuda-compile.yaml
KFORGE_CUDA_CACHE=$(mktemp -d) bash -euo pipefail -c "$command" | tee "$log"
grep -Eq '^share/examples/engine-cuda.yaml: ok ' "$log"
grep -Eq '^generation 0 \(1 of 1\)  evaluated 8  ' "$log"  # 4 engines x 2 targets
/usr/bin/python3 - <<'PY'
import sys
sys.path.insert(0, "share/python")
import kforge_archive
df = kforge_archive.load_records("runs/engine-cuda-compile", with_text=True)
assert len(df) == 8 and set(df["target"]) == {"hopper", "blackwell"}, df[["target", "status"]]
assert set(df["status"]) <= {"ok", "resource_reject"}, df[["status", "evidence"]].to_dict("records")
ok = df[df["status"] == "ok"]
assert len(ok) >= 1, df[["status", "evidence"]].to_dict("records")
for _, r in df.iterrows():  # the module's PTX, kept as evidence, has all nine kernels for its architecture
    sm = "sm_90a" if r["target"] == "hopper" else "sm_100a"
    assert f".target {sm}" in r["ptx"], r["ptx"][:300]
    for k in ["kf_embed", "kf_rmsnorm", "kf_gemm", "kf_rope_cache", "kf_attention", "kf_kda", "kf_silu_mul", "kf_add",
              "kf_gather_rows"]:
        assert f".entry {k}(" in r["ptx"], k
    if r["status"] == "resource_reject":  # the compile stage names the kernel at fault
        assert "resource_reject: kf_" in r["evidence"], r["evidence"][-1000:]
assert (ok["registers"] > 0).all() and (ok["spill_bytes"] == 0).all()
print(f"cuda engines compiled: {len(ok)} ok of {len(df)}, registers up to {ok['registers'].max()}")
PY
