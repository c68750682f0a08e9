#!/usr/bin/env bash
# The PTX kernel factory without a GPU (issue 14 item 3): a cuda gemm campaign in compile-only mode whose
# generation 0 keeps every record's PTX (NVRTC's) in the archive; from generation 1 share/agents/ptx_rewriter.py
# reads that PTX from its brief and proposes PTX children, which ptxas assembles for sm_90a and sm_100a with
# their own resource figures. h5py reads the PTX back: NVRTC's for the CUDA C++ candidates, the child's own
# source for the PTX ones.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export KFORGE_CUDA_CACHE=$WORK/cuda-cache
sed -e 's/generations: 1/generations: 2/' -e 's/name: gemm-cuda-compile-only/name: gemm-cuda-ptx-agent/' \
    "$SRC/tests/integration/data/gemm-cuda-compile-only.yaml" > "$WORK/campaign.yaml"
cat >> "$WORK/campaign.yaml" <<YAML
agents:
  - {name: ptx-rewriter, command: [python3, $SRC/share/agents/ptx_rewriter.py], weight: 0.5, timeout_s: 60}
YAML
"$BIN/kforge" run "$WORK/campaign.yaml" --out "$WORK/c" | tee "$WORK/run.log"
grep -Eq '^agent ptx-rewriter \(island 0\): ok, [1-9][0-9]* children accepted' "$WORK/run.log"
grep -q 'L2::256B\|L2::cache_hint\|st.global.cs\|prefetch.global.L2\|ld.global.cg\|L1::no_allocate' "$WORK/c/g0001/agents/ptx-rewriter-island0/children.yaml"
grep -q '"ptx": ' "$WORK/c/g0001/agents/ptx-rewriter-island0/brief.json"
KFORGE_SOURCE_DIR=$SRC /usr/bin/python3 - "$WORK/c" <<'PY'
import os, sys
import h5py
sys.path.insert(0, os.path.join(os.environ["KFORGE_SOURCE_DIR"], "share", "python"))
import kforge_archive
df = kforge_archive.load_records(sys.argv[1], with_text=True)
cuda = df[df["op"] != "agent:ptx-rewriter"]
agent = df[df["op"] == "agent:ptx-rewriter"]
assert len(agent) >= 2, df[["op", "status"]].to_dict("records")
for r in cuda[cuda["status"] == "ok"].itertuples():
    assert ".entry kforge_gemm" in r.ptx and ".version" in r.ptx, r.ptx[:200]
    assert r.source.lstrip().startswith("// kforge gemm (cuda) candidate"), r.source[:80]
ok = agent[agent["status"] == "ok"]
assert len(ok) >= 2 and set(ok["target"]) == {"hopper", "blackwell"}, agent[["target", "status", "evidence"]].to_dict("records")
for r in ok.itertuples():
    assert r.ptx == r.source, "a PTX candidate's PTX is its own source"
    assert any(edit in r.source for edit in ("L2::256B", "L2::cache_hint", "st.global.cs")), r.source[:300]
    assert r.registers > 0 and r.compile_ms > 0, (r.registers, r.compile_ms)
    assert "ptxas" in r.evidence or "compile only" in r.evidence, r.evidence
with h5py.File(os.path.join(sys.argv[1], "gen-0000.h5"), "r") as f:  # the raw dataset, as docs/archive-schema.md says
    assert len(f["ptx"]) == len(f["records"]) and b".entry kforge_gemm" in f["ptx"][0]
for target, group in ok.groupby("target"):
    print(f"{target}: {len(group)} PTX children assembled, registers {group['registers'].min()}..{group['registers'].max()}")
PY
