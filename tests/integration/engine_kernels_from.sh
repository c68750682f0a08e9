#!/usr/bin/env bash
# Kernels feed engines, and the Kimi-Linear example serves: a gemm campaign and a kda campaign run first; a smaller
# share/examples/engine-kimi-host.yaml names both in engine.kernels_from; its first generation holds an engine
# (op kernels_from) whose GEMM parameters are the gemm campaign's best and one whose KDA_* parameters are the kda
# campaign's best, and its KDA + attention engines are verified against the reference engine and served. A folder
# without a campaign is a configuration error (exit 2); a kda kernel for a llama model is refused.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
sed 's/^  generations: 2$/  generations: 1/' "$SRC/tests/integration/data/gemm-small.yaml" > "$WORK/gemm.yaml"
"$BIN/kforge" run "$WORK/gemm.yaml" --out "$WORK/gemm"
sed -e 's/^  generations: 3$/  generations: 1/' -e 's/^  population: 8$/  population: 3/' \
    -e 's/^  offspring: 8$/  offspring: 3/' -e 's/^  problem: {B: 1, H: 4, T: 256, D: 128}$/  problem: {B: 1, H: 2, T: 96, D: 64}/' \
    -e '/^  candidates_per_rank: 4$/a\  confirm_top: 0' "$SRC/share/examples/kda-host.yaml" > "$WORK/kda.yaml"
grep -q '^  problem: {B: 1, H: 2, T: 96, D: 64}$' "$WORK/kda.yaml" && grep -q '^  confirm_top: 0$' "$WORK/kda.yaml"
"$BIN/kforge" run "$WORK/kda.yaml" --out "$WORK/kda"

# The engine's space takes the gemm and kda campaigns' values, so that their best kernels are points of it.
/usr/bin/python3 - "$SRC/share/examples/engine-kimi-host.yaml" "$WORK/engine.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for key, values in {"MC": "[16, 32, 48, 64]", "NC": "[32, 64, 128]", "KC": "[32, 64, 128]", "MR": "[1, 2, 4]",
                    "NR": "[4, 8, 16]", "VEC": "[1, 4, 8]", "UNROLL": "[1, 2, 4]", "LOOP_ORDER": "[jpi, pji, jip]",
                    "KDA_DV_TILE": "[16, 32, 64, 128]", "KDA_UNROLL": "[1, 2, 4, 8]", "KDA_VEC": "[1, 4, 8]"}.items():
    text, n = re.subn(rf"^    {key}: \[[^\]]*\]", f"    {key}: {values}", text, flags=re.M)
    assert n == 1, key
for old, new in {"  layers: 4\n": "  layers: 2\n", "  requests: 16\n": "  requests: 4\n",
                 "  generations: 2\n": "  generations: 1\n", "  population: 6\n": "  population: 3\n",
                 "  offspring: 6\n": "  offspring: 3\n", "  attention_every: 4 ": "  attention_every: 2 "}.items():
    assert old in text, old
    text = text.replace(old, new)
open(sys.argv[2], "w").write(text + "\nengine:\n  kernels_from: [gemm, kda]\n")
PY
"$BIN/kforge" run "$WORK/engine.yaml" --out "$WORK/engine" | tee "$WORK/run.log"
grep -Eq '^generation 0 \(1 of 1\)  evaluated 3  ok 3 ' "$WORK/run.log"
# The stored campaign's relative paths (kernels_from: [gemm]) mean paths next to the file it was started from
# (DIR/campaign.origin), not next to the stored copy in DIR: report and status read it.
"$BIN/kforge" report "$WORK/engine" > "$WORK/report.txt"
"$BIN/kforge" status "$WORK/engine" > /dev/null
grep -q '^  where the time goes (reported by the engine):' "$WORK/report.txt"
PYTHONPATH="$SRC/share/python" /usr/bin/python3 - "$WORK" <<'PY'
import sys
import kforge_archive as ka
work = sys.argv[1]
def best_params(campaign):
    records = ka.load_records(work + "/" + campaign)
    best = records[records.status == "ok"].sort_values("time_median_ms").iloc[0]
    return best.candidate_id, dict(p.split("=", 1) for p in best.params.split(";"))
engines = ka.load_records(work + "/engine")
imported = [dict(p.split("=", 1) for p in params.split(";")) for params in engines[engines.op == "kernels_from"].params]
assert len(imported) == 2, engines[["op", "params"]]
for campaign, prefix in (("gemm", ""), ("kda", "KDA_")):
    kernel_id, kernel = best_params(campaign)
    assert any(all(e[prefix + k] == v for k, v in kernel.items()) for e in imported), (campaign, kernel, imported)
    print("kernels_from: an engine runs the", campaign, "campaign's best", kernel_id, kernel)
assert (engines.status == "ok").all(), engines[["status"]]
figures = ka.engine_metrics(work + "/engine")
assert (figures.output_tokens_per_s > 0).all() and (figures["op_share.kda"] > 0).all(), figures
print("KDA share", figures["op_share.kda"].round(3).tolist())
PY

# Extending the campaign from another working directory: kernels_from: [gemm, kda] still means folders next to the
# campaign file (it once meant next to the working directory, and the extension was refused).
sed 's/^  generations: 1$/  generations: 2/' "$WORK/engine.yaml" > "$WORK/engine-more.yaml"
(cd / && "$BIN/kforge" run "$WORK/engine-more.yaml" --out "$WORK/engine") | tee "$WORK/more.log"
grep -Eq '^generation 1 \(2 of 2\)  evaluated 3  ok 3 ' "$WORK/more.log"

# A kda kernel for a model without KDA layers (the llama example): a configuration error (exit 2, nothing written)
# at the list element, naming the folder and the architecture.
sed -e 's/^  generations: 2$/  generations: 1/' "$SRC/share/examples/engine-host.yaml" > "$WORK/llama.yaml"
printf '\nengine:\n  kernels_from: [kda]\n' >> "$WORK/llama.yaml"
set +e
"$BIN/kforge" run "$WORK/llama.yaml" --out "$WORK/llama" 2> "$WORK/llama.err" > /dev/null
code=$?
set -e
cat "$WORK/llama.err"
[[ $code -eq 2 ]] && [[ ! -e "$WORK/llama" ]]
grep -q "llama.yaml:[0-9]*:[0-9]*: engine.kernels_from\[0\]: $WORK/kda is a kda campaign, and the model (architecture llama) has no KDA layer" "$WORK/llama.err"

# A folder that holds no campaign: exit 2 at the list element, nothing written.
sed 's/kernels_from: \[gemm, kda\]/kernels_from: [nothing-here]/' "$WORK/engine.yaml" > "$WORK/bad.yaml"
set +e
"$BIN/kforge" run "$WORK/bad.yaml" --out "$WORK/bad" 2> "$WORK/bad.err"
code=$?
set -e
cat "$WORK/bad.err"
[[ $code -eq 2 ]] && grep -q 'engine.kernels_from\[0\]: no finished campaign in' "$WORK/bad.err" && [[ ! -e "$WORK/bad" ]]

# A weights file that does not fit the model (one tensor of the right name, the wrong shape, none of the others):
# refused by validate and run before anything is written, naming model.weights and the tensor.
/usr/bin/python3 - "$WORK/wrong.safetensors" <<'PY'
import json, struct, sys
header = json.dumps({"model.norm.weight": {"dtype": "F32", "shape": [100], "data_offsets": [0, 400]}}).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(header)) + header + bytes(400))
PY
sed -e 's/^  seed: 1 .*$/  weights: wrong.safetensors/' -e '/^engine:$/,$d' "$WORK/engine.yaml" > "$WORK/wrong.yaml"
grep -q '^  weights: wrong.safetensors$' "$WORK/wrong.yaml"
for command in validate "run --out $WORK/wrong"; do
  set +e
  # shellcheck disable=SC2086  # $command is a command and its options: split on purpose
  "$BIN/kforge" $command "$WORK/wrong.yaml" 2> "$WORK/wrong.err" > /dev/null
  code=$?
  set -e
  cat "$WORK/wrong.err"
  [[ $code -eq 2 ]] && grep -q "wrong.yaml:[0-9]*:[0-9]*: model.weights: .*tensor model.embed_tokens.weight is missing" "$WORK/wrong.err"
  [[ ! -e "$WORK/wrong" ]]
done
echo "engine kernels_from: all checks passed"
