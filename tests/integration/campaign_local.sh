#!/usr/bin/env bash
# A real campaign end to end: kforge run -> mpirun -np 2 kforge-eval -> shards -> generation files -> campaign.h5,
# then report / status / export, and the archive read back by h5py + pandas through share/python.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$BIN/kforge" run "$SRC/tests/integration/data/gemm-small.yaml" --out "$WORK/c" | tee "$WORK/run.log"
grep -q '^generation 1 (2 of 2)  evaluated 8' "$WORK/run.log"
test -f "$WORK/c/campaign.h5"
test -f "$WORK/c/gen-0000.h5" && test -f "$WORK/c/gen-0001.h5"

"$BIN/kforge" report "$WORK/c" --json > "$WORK/report.json"
"$BIN/kforge" report "$WORK/c"
"$BIN/kforge" status "$WORK/c" --json > "$WORK/status.json"
grep -q '"state":"done"' "$WORK/status.json"
"$BIN/kforge" export "$WORK/c" --best --to "$WORK/best"
ls "$WORK/best"/*.cpp "$WORK/best"/*.yaml > /dev/null
# The exported kernel rebuilds and reruns outside kforge: its own driver checks it against a double product.
"$WORK/best/run.sh" 5 | tee "$WORK/rerun.txt"
grep -Eq '^M=96 N=80 K=72: median [0-9.]+ ms over 5 calls, .* \(ok\)$' "$WORK/rerun.txt"
# ... and would say so if it were wrong: the same driver on a kernel that leaves C at zero exits 3.
cp -r "$WORK/best" "$WORK/broken"
for cpp in "$WORK/broken"/*.cpp; do [[ $cpp == */run.cpp ]] || best_cpp=$cpp; done
printf 'extern "C" void kforge_gemm(int M, int N, int, const float*, int, const float*, int, float* C, int ldc) {\n  for (int i = 0; i < M; ++i) for (int j = 0; j < N; ++j) C[i * ldc + j] = 0.0f;\n}\n' > "$best_cpp"
rc=0
"$WORK/broken/run.sh" 2 > "$WORK/broken.txt" || rc=$?
cat "$WORK/broken.txt"
[[ $rc == 3 ]] && grep -q '(WRONG)$' "$WORK/broken.txt"

h5dump -H "$WORK/c/campaign.h5" > "$WORK/index.txt"
grep -q 'EXTERNAL_LINK "g0001"' "$WORK/index.txt" && grep -q 'TARGETFILE "gen-0001.h5"' "$WORK/index.txt"
h5dump -H "$WORK/c/gen-0000.h5" > "$WORK/gen0.txt"  # to a file: grep -q closing a pipe early fails under pipefail
grep -q 'time_median_ms.units' "$WORK/gen0.txt"

/usr/bin/python3 "$SRC/tests/integration/check_campaign.py" "$WORK/c" "$WORK/report.json" \
  --generations 2 --per-generation 8 --expect-ok
