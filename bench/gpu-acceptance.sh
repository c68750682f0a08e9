#!/usr/bin/env bash
# The GPU acceptance run (docs/gpu-bundle.md): from the GPU bundle, on one Hopper or Blackwell GPU, within a
# wall-clock budget (default 600 s: a lent GPU machine has 15 minutes in all, its start included), every step under
# its own timeout.
#   usage: bench/gpu-acceptance.sh OUT_DIR [BUNDLE_DIR]        (default bundle: $KFORGE_BUNDLE, else build/gpu-bundle)
# Writes OUT_DIR/summary.json (one entry per step: passed, failed, timeout or skipped, with a reason and
# figures), OUT_DIR/acceptance.log (every step's output) and OUT_DIR/gpu-tests-*.json (GoogleTest reports):
# at most 8 files, as the GPU machine returns. A step that cannot run is "skipped" with why, never "passed".
# Exit code: 0 when no step failed or timed out (skips allowed), 1 otherwise, 2 on bad usage.
set -uo pipefail
(($# >= 1)) || { echo "usage: $0 OUT_DIR [BUNDLE_DIR]" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1" && OUT=$(cd "$1" && pwd)
BUNDLE=${2:-${KFORGE_BUNDLE:-$SRC/build/gpu-bundle}}
BUDGET_S=${KFORGE_ACCEPTANCE_BUDGET_S:-600}
START=$SECONDS
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
STEPS=$WORK/steps.jsonl
LOG=$OUT/acceptance.log
: > "$STEPS"
: > "$LOG"
rm -f "$OUT"/gpu-tests-*.json "$OUT/summary.json"

# record NAME STATUS SECONDS REASON [FIGURES_JSON_FILE]
record() {
  python3 "$SRC/bench/gpu_acceptance_step.py" "$@" >> "$STEPS"
  echo "acceptance: $1: $2${4:+ ($4)}" | tee -a "$LOG"
}

# What stops every step: no GPU of a target kforge knows, or no bundle.
GPU_INFO=$(nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader 2>&1 | head -1)
TARGET=""
BLOCKED=""
if ! nvidia-smi -L > /dev/null 2>&1; then
  BLOCKED="no CUDA device: nvidia-smi found no GPU (${GPU_INFO:-nvidia-smi missing})"
  GPU_INFO=""
else
  case $(cut -d, -f2 <<< "$GPU_INFO" | tr -d ' ') in
    9.0) TARGET=hopper ;;
    10.0) TARGET=blackwell ;;
    *) BLOCKED="the GPU ($GPU_INFO) is neither sm_90 nor sm_100" ;;
  esac
fi
if [[ -z $BLOCKED && ! -e $BUNDLE/env.sh ]]; then BLOCKED="no GPU bundle at $BUNDLE (tools/gpu-bundle.sh makes it)"; fi
if [[ -z $BLOCKED ]]; then
  # shellcheck disable=SC1091
  . "$BUNDLE/env.sh"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# The campaigns' site: one GPU, so one rank, which owns it (two would time on it at once), left unbound so that the
# double reference checking its candidates on the CPU gets the node's cores (KFORGE_CPUS_PER_RANK, docs/engines.md
# "The cuda engine"): at 1B parameters one core spends about 85 s per candidate on the verification script alone.
cat > "$WORK/site.yaml" <<'YAML'
site:
  name: gpu-acceptance
  executor: local
  max_task_retries: 1
local:
  ranks_per_task: 1
  max_concurrent_tasks: 1
  mpirun: mpirun
  mpirun_args: [--bind-to, none]
YAML

# step NAME TIMEOUT_S COMMAND...: runs COMMAND (a shell function) under its timeout and the remaining budget.
# COMMAND may write figures to $FIGURES (JSON) and a skip reason to $WORK/skip (then the step is skipped).
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((BUDGET_S - (SECONDS - START)))
  if [[ -n $BLOCKED ]]; then record "$name" skipped 0 "$BLOCKED"; return; fi
  if ((left < 15)); then record "$name" skipped 0 "the acceptance budget of $BUDGET_S s is spent"; return; fi
  ((limit > left)) && limit=$left
  FIGURES=$WORK/$name.figures.json
  export FIGURES
  rm -f "$WORK/skip" "$FIGURES"
  echo "=== $name (timeout $limit s) ===" >> "$LOG"
  local t0=$SECONDS rc=0
  timeout --kill-after=10 "$limit" bash -c "$(declare -f "$@" campaign_figures); $*" >> "$LOG" 2>&1 || rc=$?
  local took=$((SECONDS - t0)) figures=()
  [[ -s $FIGURES ]] && figures=("$FIGURES")
  if [[ -s $WORK/skip ]]; then
    record "$name" skipped "$took" "$(head -c 400 "$WORK/skip")" "${figures[@]}"
  elif ((rc == 124 || rc == 137)); then
    record "$name" timeout "$took" "killed after $limit s" "${figures[@]}"
  elif ((rc != 0)); then
    record "$name" failed "$took" "exit code $rc; see acceptance.log" "${figures[@]}"
  else
    record "$name" passed "$took" "" "${figures[@]}"
  fi
}
export SRC OUT WORK TARGET BUNDLE

# A campaign of the bundle's examples at a small budget on this GPU's target; PROBLEM replaces its problem, SED
# (a sed -E expression) edits the rest.
# usage: campaign_figures EXAMPLE GENERATIONS POPULATION [PROBLEM [BASELINES [SED]]] -> report JSON on stdout
campaign_figures() {
  local yaml=$WORK/$1-$RANDOM.yaml dir
  "$SRC/tools/small-campaign.sh" "$KFORGE_BUNDLE/share/kforge/$1.yaml" "$yaml" "$2" "$3" >&2
  sed -i -E "s/^(  targets:) .*/\1 [$TARGET]/" "$yaml"
  [[ -n ${4:-} ]] && sed -i -E "s/^(  problem:) \{[^}]*\}/\1 {$4}/" "$yaml"
  [[ -n ${5:-} ]] && sed -i -E "s/^(  baselines:) \[[^]]*\]/\1 [$5]/" "$yaml"
  [[ -n ${6:-} ]] && sed -i -E "$6" "$yaml"
  dir=$(mktemp -d "$WORK/campaign.XXXXXX")
  kforge run "$yaml" --site "$WORK/site.yaml" --out "$dir/c" >&2 && kforge report "$dir/c" --json > "$dir/report.json" ||
    return 1
  # A campaign in which no candidate verified has no figure to give: the step fails.
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(None if (r.get("best") or {}).get("time_ms")
              else sys.argv[2] + ": no candidate verified")' "$dir/report.json" "$1" || return 1
  cat "$dir/report.json"
}

gpu_tests() {
  local failed=0 t
  for t in "$KFORGE_BUNDLE"/tests/*; do
    [[ $t == *.xz ]] && continue  # packed copies; env.sh unpacked them beside
    "$t" --gtest_output="json:$OUT/gpu-tests-$(basename "$t").json" || failed=1
  done
  python3 "$SRC/bench/gpu_acceptance_step.py" --gtest-figures "$OUT"/gpu-tests-*.json > "$FIGURES"
  # A skipped test proved nothing: all skipped is a skipped step, some skipped a failed one.
  python3 - "$FIGURES" "$WORK/skip" <<'PY' || failed=1
import json, sys
f = json.load(open(sys.argv[1]))
# The check for nodes without a GPU skips on a GPU node by design.
expected = sum(1 for name in f["skipped_tests"] if "WithoutAGpu" in name)
f["skipped"] -= expected
f["tests"] -= expected
if f["skipped"] and f["skipped"] == f["tests"]:
    open(sys.argv[2], "w").write(f"all {f['skipped']} gpu tests skipped (their reason: acceptance.log)")
elif f["skipped"]:
    sys.exit(f"{f['skipped']} of {f['tests']} gpu tests skipped on a GPU machine: {f['skipped_tests']}")
PY
  return $failed
}

example_campaigns() {
  local family report
  echo "{" > "$FIGURES"
  for family in gemm kda rmsnorm; do
    report=$(campaign_figures "$family-cuda" 2 8) || return 1
    echo "\"$family\": $report," >> "$FIGURES"
  done
  echo '"generations": 2, "population": 8}' >> "$FIGURES"
}

# The cuda engine example (llama, 4 layers, hidden 512) evolved for 2 generations of 6 on this GPU: the best
# engine's serving figures against the cuBLAS engine (the default kernels, every projection by cublasSgemm), same
# trace, same run; every candidate verified against the double reference first. The double reference runs on the
# CPU (about 3 s of one core per candidate's verification and as much for its spot check, measured on the build
# machine), which sizes the budget.
engine_vs_cublas() {
  campaign_figures engine-cuda 2 6 > "$FIGURES"
}

# Decode on a 1B-shaped model (engine-cuda-1b.yaml: Llama-3.2-1B's shape, random weights) at concurrency 1 and 8,
# one generation of two engines (the initial bf16 + kf_gemv one and one drawn): the best engine's output tokens/s,
# its memory_bandwidth_fraction (the physical limit: the share of the GPU's measured copy bandwidth that its steps'
# weight bytes took), its genome, and the cuBLAS engines (fp32 and bf16) of the same run. The double reference checks
# every candidate on the CPU first: most of the step's time.
engine_decode_1b() {
  local c report sep=""
  echo "[" > "$FIGURES"
  for c in 1 8; do
    report=$(campaign_figures engine-cuda-1b 1 2 "" "" "s/^(  concurrency:) [0-9]+/\1 $c/") || return 1
    echo "$sep{\"concurrency\": $c, \"report\": $report}" >> "$FIGURES"
    sep=","
  done
  echo "]" >> "$FIGURES"
}

# The bf16 engine under the activation contract (engine-cuda-1b-bf16.yaml: the same model and trace, every engine
# held to 1e-2 with bf16 activations: the prompts' projections and attention on tensor cores, a bf16 KV cache) at
# concurrency 8, one generation of two engines: the best one's figures beside the same cuBLAS engines.
engine_decode_1b_bf16() {
  campaign_figures engine-cuda-1b-bf16 1 2 "" "" "s/^(  concurrency:) [0-9]+/\1 8/" > "$FIGURES"
}

gemm_vs_cublas() {
  local shape report sep=""
  echo "[" > "$FIGURES"
  for shape in "M: 4096, N: 4096, K: 4096" "M: 1, N: 4096, K: 4096" "M: 16, N: 4096, K: 4096" \
               "M: 64, N: 4096, K: 4096" "M: 1, N: 8192, K: 8192" "M: 16, N: 8192, K: 8192" "M: 64, N: 8192, K: 8192"; do
    report=$(campaign_figures gemm-cuda 1 4 "$shape" "reference, cublas") || return 1
    echo "$sep{\"problem\": \"$shape\", \"report\": $report}" >> "$FIGURES"
    sep=","
  done
  echo "]" >> "$FIGURES"
}

# kforge's KDA under both contracts (docs/isolation.md, "Two KDA contracts") against FLA's chunk_kda: kda_bf16 (strict,
# fp32 arithmetic) and kda_bf16_tc (tensor cores, FLA's own accuracy bound) at H=64, T=8192 (FlashKDA's benchmark
# shape), and the tensor-core kernel on a variable-length batch of 8192 tokens (sequences of 1, 1365, 2730, 4096).
kda_vs_fla() {
  local run family example b t h varlen report kforge_json=$WORK/kda-kforge.json sep=""
  echo "[" > "$kforge_json"
  for run in "kda_bf16 1 8192 64 0" "kda_bf16_tc 1 8192 64 0" "kda_bf16_tc 4 2048 32 1"; do
    read -r family b t h varlen <<< "$run"
    example=${family//_/-}-cuda
    report=$(campaign_figures "$example" 1 4 "B: $b, T: $t, H: $h, varlen: $varlen") || return 1
    echo "$sep{\"family\": \"$family\", \"B\": $b, \"T\": $t, \"H\": $h, \"varlen\": $varlen, \"report\": $report}" \
      >> "$kforge_json"
    sep=","
  done
  echo "]" >> "$kforge_json"
  python3 "$SRC/bench/gpu_acceptance_torch.py" kda "$kforge_json" "$SRC/.whl" > "$FIGURES" 2> "$WORK/skip.tmp"
  local rc=$?
  [[ $rc == 3 ]] && mv "$WORK/skip.tmp" "$WORK/skip" && return 0
  cat "$WORK/skip.tmp"
  return $rc
}

# kforge's verification (every verification case: T = 1, partial chunks, variable-length batches, the gate at both
# bounds, huge and tiny values; then a variable-length main problem) applied to FLA's chunk_kda: in fp32 by the kda
# family's check, in bf16 (bf16 q, k, v, beta in, bf16 o out) by kda_bf16's (the strict contract) and kda_bf16_tc's
# (the tensor-core contract, FLA's own bound). The step passes when the checks ran; FLA's verdicts are its figures
# (a wrong FLA is a finding, not a broken step).
kda_fla_output_verified_by_kforge() {
  local dir=$WORK/kda-outside problem="B=4,T=2048,H=32,varlen=1" rc=0 family suffix
  for family in kda kda_bf16 kda_bf16_tc; do  # fp32 cases in $dir, bf16 ones in $dir-bf16 and $dir-bf16-tc
    suffix=${family#kda}; suffix=${suffix//_/-}
    kforge-check-outputs "$family" --problem "$problem" --write-inputs "$dir$suffix" || return 1
    rc=0
    python3 "$SRC/bench/gpu_acceptance_torch.py" kda-outputs "$dir$suffix" "$SRC/.whl" > /dev/null 2> "$WORK/skip.tmp" \
      || rc=$?
    [[ $rc == 3 ]] && mv "$WORK/skip.tmp" "$WORK/skip" && return 0
    cat "$WORK/skip.tmp"
    ((rc == 0)) || return $rc
    rc=0
    kforge-check-outputs "$family" --problem "$problem" --check "$dir$suffix" > "$WORK/check$suffix.json" || rc=$?
    ((rc <= 1)) || return 1
  done
  python3 -c 'import json, sys; print(json.dumps({"problem": sys.argv[1], "fla_fp32": json.load(open(sys.argv[2])),
              "fla_bf16_strict": json.load(open(sys.argv[3])), "fla_bf16_tensor_core": json.load(open(sys.argv[4]))}))' \
    "$problem" "$WORK/check.json" "$WORK/check-bf16.json" "$WORK/check-bf16-tc.json" > "$FIGURES"
}

rmsnorm_vs_peak_and_torch() {
  local kforge_json=$WORK/rms-kforge.json
  campaign_figures rmsnorm-cuda 1 4 "rows: 8192, hidden: 7168" > "$kforge_json" || return 1
  python3 "$SRC/bench/gpu_acceptance_torch.py" rmsnorm "$kforge_json" > "$FIGURES"
}

step gpu_tests 150 gpu_tests
step example_campaigns 150 example_campaigns
step engine_vs_cublas 120 engine_vs_cublas
step gemm_vs_cublas 120 gemm_vs_cublas
step kda_vs_fla 90 kda_vs_fla
step kda_fla_output_verified_by_kforge 100 kda_fla_output_verified_by_kforge
step engine_decode_1b 300 engine_decode_1b
step rmsnorm_vs_peak_and_torch 45 rmsnorm_vs_peak_and_torch
step engine_decode_1b_bf16 150 engine_decode_1b_bf16

python3 "$SRC/bench/gpu_acceptance_step.py" --summary "$STEPS" "$((SECONDS - START))" "$BUDGET_S" "$GPU_INFO" \
  "$TARGET" "$BUNDLE" > "$OUT/summary.json"
echo "acceptance: summary in $OUT/summary.json"
! grep -Eq '"status": "(failed|timeout)"' "$STEPS"
