#!/usr/bin/env bash
# A rehearsal, without a GPU, of bench/gpu-acceptance.sh's step kda_fla_output_verified_by_kforge: FLA's real
# chunk_kda (fla-core 0.6.0, the wheel the acceptance run carries) runs on CPU tensors under Triton's interpreter
# (bench/triton_interpreter_patches.py), through the same bench/gpu_acceptance_torch.py kda-outputs code, on the
# cases kforge-check-outputs writes for kda (fp32), kda_bf16 and kda_bf16_tc (bf16: the strict and the tensor-core
# contract); kforge-check-outputs then checks FLA's outputs.
# It proves the step's plumbing (FLA's signature with cu_seqlens, the file layouts, bf16 as torch.bfloat16) and
# gives FLA's fp32 verdicts; its bf16 verdicts come from the patched interpreter's bf16, not a GPU's (figures only).
#   usage: bench/fla_kda_on_cpu.sh [BUILD_DIR]      (default build; label peers: installs torch, triton, fla-core)
#   KFORGE_PEERS_VENV: the Python environment (default BUILD_DIR/peers-venv, shared with the other peers)
# Prints one JSON line: per family, FLA's verdict per case. Exit 1 when FLA's fp32 output fails a case.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
VENV=${KFORGE_PEERS_VENV:-$BUILD/peers-venv}
# shellcheck source=bench/peers_venv.sh
. bench/peers_venv.sh
peers_venv "$VENV" triton numpy
PY=$PEERS_PY
# fla-core 0.6.0 imports packaging without declaring it.
"$PY" -c "import fla, einops, packaging" 2>/dev/null || "$PY" -m pip install --quiet fla-core==0.6.0 einops packaging
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
problem="B=2,T=40,H=1"  # the interpreter takes about 2 s per chunk_kda call of 40 tokens on one core
for family in kda kda_bf16 kda_bf16_tc; do
  "$BUILD/bin/kforge-check-outputs" "$family" --problem "$problem" --write-inputs "$WORK/$family" > /dev/null
  KFORGE_FLA_ON_CPU=1 "$PY" bench/gpu_acceptance_torch.py kda-outputs "$WORK/$family" "$WORK/no-wheels" >&2
  rc=0
  "$BUILD/bin/kforge-check-outputs" "$family" --problem "$problem" --check "$WORK/$family" > "$WORK/$family.json" \
    || rc=$?
  ((rc <= 1)) || { echo "fla_kda_on_cpu: kforge-check-outputs $family --check: exit $rc" >&2; exit 1; }
done
python3 - "$WORK/kda.json" "$WORK/kda_bf16.json" "$WORK/kda_bf16_tc.json" <<'PY'
import json, sys
out = {}
for path in sys.argv[1:]:
    r = json.load(open(path))
    out[r["family"]] = {"ok": r["ok"], "cases": [{k: c[k] for k in ("name", "problem", "status", "max_abs_error",
                                                                     "max_rel_error", "evidence")} for c in r["cases"]]}
print(json.dumps({"fla_core": "0.6.0", "device": "cpu (Triton interpreter)", **out}))
sys.exit(0 if out["kda"]["ok"] else 1)
PY
