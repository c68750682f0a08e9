#!/usr/bin/env bash
# A cuda campaign on the local executor in compile-only mode (no GPU here): every record has resource figures
# (registers per thread, shared memory, spills) for both architectures' islands.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export KFORGE_CUDA_CACHE=$WORK/cuda-cache
"$BIN/kforge" run "$SRC/tests/integration/data/gemm-cuda-compile-only.yaml" --out "$WORK/c" | tee "$WORK/run.log"
KFORGE_SOURCE_DIR=$SRC /usr/bin/python3 - "$WORK/c" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["KFORGE_SOURCE_DIR"], "share", "python"))
import kforge_archive
df = kforge_archive.load_records(sys.argv[1], with_text=True)
assert len(df) == 8, len(df)
assert set(df["target"]) == {"hopper", "blackwell"}, set(df["target"])
ok = df[df["status"] == "ok"]
assert len(ok) >= 6, df[["status", "evidence"]].to_dict("records")
assert (ok["registers"] > 0).all() and (ok["shared_bytes"] >= 0).all() and (ok["spill_bytes"] >= 0).all()
assert (ok["compile_ms"] > 0).all()
for target, group in ok.groupby("target"):
    print(f"{target}: {len(group)} compiled, registers {group['registers'].min()}..{group['registers'].max()}, "
          f"shared {group['shared_bytes'].max()} B, spills {group['spill_bytes'].max()} B")
PY
