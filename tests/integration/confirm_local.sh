#!/usr/bin/env bash
# `kforge confirm` and the automatic confirmation after the last generation, on a real local campaign: the round
# tasks run through mpirun + kforge-eval, DIR/confirmation.h5 holds the paired speedups with their intervals, the
# report quotes them, h5py reads the same numbers, and a second confirm of the same plan gives the same figures.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The small gemm campaign with a lean automatic confirmation: the best 2, 4 rounds.
sed 's/^  confirm_top: 0 .*$/  confirm_top: 2\n  confirm_rounds: 4/' \
  "$SRC/tests/integration/data/gemm-small.yaml" > "$WORK/campaign.yaml"
grep -q 'confirm_rounds: 4' "$WORK/campaign.yaml"
"$BIN/kforge" run "$WORK/campaign.yaml" --out "$WORK/c" | tee "$WORK/run.log"
grep -q '^kforge confirm: re-timing the best 2 candidate(s) of each target against 2 baseline(s) in 4 rounds' "$WORK/run.log"
test -f "$WORK/c/confirmation.h5"
test -f "$WORK/c/confirm/tasks/0003.yaml" && test -f "$WORK/c/confirm/shards/0003.h5"
grep -q '^confirm_round: 3' "$WORK/c/confirm/tasks/0003.yaml"
h5dump -H "$WORK/c/confirmation.h5" > "$WORK/confirmation.txt"
grep -q 'GROUP "confirmation"' "$WORK/confirmation.txt" && grep -q 'DATASET "speedups"' "$WORK/confirmation.txt"
grep -q 'confirmation_schema_version' "$WORK/confirmation.txt"

"$BIN/kforge" report "$WORK/c" > "$WORK/report.txt"
cat "$WORK/report.txt"
grep -q '^headline: .* confirmed over 4 paired rounds$' "$WORK/report.txt"
grep -q '^confirmation: best 2 of each target, 4 paired rounds, 95% bootstrap intervals' "$WORK/report.txt"
grep -Eq '^host +1 .* reference +4 .*(faster|slower) than reference \(interval [0-9.]+-[0-9.]+\)$' "$WORK/report.txt"
"$BIN/kforge" report "$WORK/c" --json > "$WORK/report.json"
/usr/bin/python3 "$SRC/tests/integration/check_confirmation.py" "$WORK/c" "$WORK/report.json" \
  --top 2 --rounds 4 --baselines reference,openblas

# Resuming the finished campaign confirms nothing again: the confirmation covers its generations.
"$BIN/kforge" run "$WORK/campaign.yaml" --out "$WORK/c" > "$WORK/resume.log"
if grep -q 'kforge confirm' "$WORK/resume.log"; then echo "a finished, confirmed campaign was confirmed again"; exit 1; fi

# On demand, another plan replaces the confirmation; the same plan again reuses its rounds: the same figures.
"$BIN/kforge" confirm "$WORK/c" --top 1 --rounds 3
"$BIN/kforge" report "$WORK/c" --json > "$WORK/report1.json"
/usr/bin/python3 "$SRC/tests/integration/check_confirmation.py" "$WORK/c" "$WORK/report1.json" \
  --top 1 --rounds 3 --baselines reference,openblas
"$BIN/kforge" confirm "$WORK/c" --top 1 --rounds 3
"$BIN/kforge" report "$WORK/c" --json > "$WORK/report2.json"
/usr/bin/python3 - "$WORK/report1.json" "$WORK/report2.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["confirmation"] for p in sys.argv[1:])
assert a == b, (a, b)
PY

# Bad requests: usage errors exit 2, a folder that is no campaign exits 1; neither writes a confirmation.
rc=0; "$BIN/kforge" confirm "$WORK/c" --top 0 2> "$WORK/err" || rc=$?
[[ $rc == 2 ]] && grep -q -- '--top must be at least 1' "$WORK/err"
rc=0; "$BIN/kforge" confirm "$WORK/c" --top 2 --rounds 1 2> "$WORK/err" || rc=$?
[[ $rc == 2 ]] && grep -q -- '--rounds must be at least 2' "$WORK/err"
mkdir "$WORK/empty"
rc=0; "$BIN/kforge" confirm "$WORK/empty" --top 2 2> "$WORK/err" || rc=$?
[[ $rc == 1 ]] && grep -q 'is not a kforge campaign directory' "$WORK/err"
test ! -e "$WORK/empty/confirmation.h5"
echo "confirm_local: ok"
