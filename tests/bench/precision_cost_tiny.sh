#!/usr/bin/env bash
# bench/precision_cost on a tiny fp32 model folder: both weight precisions and bf16 activations measured over every
# position, their rounding visible in the logits (beyond the fp32 tolerance, int8 further than bf16; bf16
# activations inside the activation contract's tolerance) and the JSON's fields in range. Figures
# are not judged here (docs/engines.md, "Precisions", has them at the SmolLM-135M shape).
set -euo pipefail
BUILD=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 tools/make-model-folder.py --shape tiny --dtype f32 --out "$work/tiny" >/dev/null
out=$("$BUILD/bin/precision_cost" --model "$work/tiny" --sequences 2 --length 24)
/usr/bin/python3 - "$out" <<'PY'
import json, sys
result = json.loads(sys.argv[1])
assert result["schema_version"] == 1 and result["benchmark"] == "precision_cost", result
bf16, int8, fp8, activations = result["precisions"]
assert [(p["weights"], p["activations"]) for p in result["precisions"]] == [
    ("bf16", "fp32"), ("int8", "fp32"), ("fp8", "fp32"), ("bf16", "bf16")], result
for p in (bf16, int8, fp8):
    assert p["rows"] == 48, p
    assert 0 <= p["kl_mean"] <= p["kl_max"], p
    assert 0 <= p["greedy_same"] <= 1, p
    assert p["max_rel_logit_error"] > result["tolerance"], p  # the rounding is material: a contract of its own
assert fp8["max_rel_logit_error"] > int8["max_rel_logit_error"] > bf16["max_rel_logit_error"], result
# Each row names its baseline and the tolerance its declaration is held to.
assert [(p["baseline"], p["tolerance"]) for p in result["precisions"]] == [("unrounded weights", 1e-4)] * 3 + [
    ("exact arithmetic on the bf16 weights", 1e-2)], result
# bf16 operands are material too (beyond the fp32 tolerance), and inside the activation contract's tolerance.
assert activations["rows"] == 48, activations
assert result["tolerance"] < activations["max_rel_logit_error"] < result["activation_tolerance"], result
print("precision_cost tiny:", [(p["weights"], p["activations"], p["max_rel_logit_error"], p["greedy_same"])
                               for p in result["precisions"]])
PY
