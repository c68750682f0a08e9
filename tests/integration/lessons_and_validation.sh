#!/usr/bin/env bash
# What a campaign learns, end to end: an agent proposes a gemm that is wrong only for M = 7; the shape that
# caught it joins the validation set (stored in the archive), later manifests check every candidate on it,
# the lessons and per-generation operator weights are stored under /lessons and /operator_weights, and the
# next agent brief carries the lessons.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
cat > "$WORK/wrong-at-m7.py" <<'PY'
import json, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
brief = json.load(open(args["--brief"][:-len(".yaml")] + ".json"))
source = """// generation %d: naive, but wrong when M == 7
extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = s;
    }
  if (M == 7) C[0] += 1.0f;
}
""" % brief["generation"]
child = {"source": source, "rationale": "a deliberately wrong kernel for the test"}
json.dump({"children": [child]}, open(args["--children"], "w"))
PY
{ sed 's/generations: 2/generations: 3/' "$SRC/tests/integration/data/gemm-small.yaml"
  cat <<YAML
agents:
  - {name: wrongdoer, command: [python3, $WORK/wrong-at-m7.py], weight: 0.25, timeout_s: 30}
YAML
} > "$WORK/campaign.yaml"
"$BIN/kforge" run "$WORK/campaign.yaml" --out "$WORK/c" > "$WORK/run.log"
grep -q '^generation 2 (3 of 3)' "$WORK/run.log"
# Planned after generation 1: every task of generation 2 checks the case that caught the wrong kernel.
grep -q 'validation_cases: \[.*M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=' "$WORK/c/g0002/tasks/0000.yaml" ||
  grep -A2 'validation_cases:' "$WORK/c/g0002/tasks/0000.yaml" | grep -q 'M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed='
grep -A1 '^lessons:' "$WORK/c/g0002/agents/wrongdoer-island0/brief.yaml" | grep -q 'Operator\|runs at\|x '
/usr/bin/python3 - "$WORK/c" "$SRC" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(sys.argv[2], "share", "python"))
import kforge_archive as ka
campaign = sys.argv[1]
records = ka.load_records(campaign, with_text=True)
wrong = records[records["op"] == "agent:wrongdoer"]
assert len(wrong) == 2 and (wrong["status"] == "wrong_result").all(), wrong[["generation", "status"]]
assert wrong["failed_case"].str.startswith("M=7 N=5 K=3 ").all(), wrong["failed_case"].tolist()
validation = ka.load_validation(campaign)
assert len(validation) >= 1, validation
first = validation.iloc[0]
assert first["added_generation"] == 1 and first["caught_status"] == "wrong_result", first
assert first["caught_id"] == wrong[wrong["generation"] == 1]["candidate_id"].iloc[0]
assert first["text"] == wrong[wrong["generation"] == 1]["failed_case"].iloc[0]
# The generation-2 wrong kernel was caught too, by a standard shape or by the validation case.
weights = ka.load_operator_weights(campaign)
for label, group in weights[weights["generation_file"] != "gen-0000.h5"].groupby("generation_file"):
    assert abs(group["weight"].sum() - 1.0) < 1e-9, group
    agent = group[group["op"] == "agent:wrongdoer"].iloc[0]
    assert agent["children"] == 1 and agent["ok"] == 0 and agent["improved"] == 0, agent
g1 = weights[weights["generation_file"] == "gen-0001.h5"].set_index("op")["weight"]
assert abs(g1["agent:wrongdoer"] - 0.25) < 1e-9 and abs(g1["mutation"] - 0.75 * 0.6) < 1e-9, g1  # the prior
parameters = ka.load_lessons(campaign, "parameters")
assert set(parameters["parameter"]) >= {"MC", "NC", "KC", "LOOP_ORDER"}, set(parameters["parameter"])
assert parameters["evaluated"].sum() > 0
failures = ka.load_lessons(campaign, "failures")
assert (failures["status"] == "wrong_result").any(), failures
operators = ka.load_lessons(campaign, "operators").set_index("op")
assert operators.loc["agent:wrongdoer", "children"] == 2, operators
print("ok: validation", validation["text"].tolist(), "weights rows", len(weights))
PY
