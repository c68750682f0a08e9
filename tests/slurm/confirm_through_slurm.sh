#!/usr/bin/env bash
# The confirmation through a real Slurm cluster, as an unprivileged user (run under slurm/scripts/with-cluster.sh,
# as root): after the last generation the best 2 candidates are re-timed in 3 rounds by the Slurm executor, one
# array task per round (job name kf:NAME:confirm:TARGET, ledger in DIR/confirm/slurm), and DIR/confirmation.h5
# holds the paired intervals that `kforge report` and h5py show; `kforge confirm` then replaces it on demand.
set -euo pipefail
BIN=$1 SRC=$2
source "$SRC/tests/slurm/slurm_test_user.sh" confirm
mkdir "$WORK/home" && chown "$USER_NAME" "$WORK/home"
# The user runs copies of the binaries: the build tree may sit in a folder other users cannot enter.
mkdir "$WORK/bin" && cp "$BIN/kforge" "$BIN/kforge-eval" "$WORK/bin/" && chmod 755 "$WORK/bin"/*
sed 's/^  confirm_top: 0 .*$/  confirm_top: 2\n  confirm_rounds: 3/' "$SRC/tests/slurm/data/one-island.yaml" > "$WORK/home/c.yaml"
grep -q '^  confirm_rounds: 3$' "$WORK/home/c.yaml"
cp "$SRC/site-configs/local-slurm.yaml" "$WORK/home/site.yaml"
chmod 644 "$WORK/home"/*.yaml
kf() { (cd "$WORK/home" && setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups \
  env HOME="$WORK/home" "$WORK/bin/kforge" "$@"); }

kf run c.yaml --site site.yaml --out runs/c 2>&1 | tee "$WORK/run.log"  # submissions are told on stderr
grep -q '^kforge confirm: re-timing the best 2 candidate(s) of each target against 1 baseline(s) in 3 rounds' "$WORK/run.log"
grep -Eq '^kforge: submitted kf:one-island:confirm:hopper as Slurm array [0-9]+ \(3 task\(s\)\)' "$WORK/run.log"
DIR=$WORK/home/runs/c
[[ $(wc -l < "$DIR/confirm/slurm/jobs") -eq 1 ]]
grep -q -- '--partition=hopper' "$DIR/confirm/slurm/array-0.sbatch"
[[ $(stat -c %U "$DIR/confirmation.h5") == "$USER_NAME" ]]
kf report runs/c | tee "$WORK/report.txt"
grep -q '^headline: .* confirmed over 3 paired rounds$' "$WORK/report.txt"
grep -Eq '^hopper +1 .* reference +3 .*\(interval [0-9.]+-[0-9.]+\)$' "$WORK/report.txt"
kf report runs/c --json > "$WORK/report.json"
/usr/bin/python3 "$SRC/tests/integration/check_confirmation.py" "$DIR" "$WORK/report.json" \
  --top 2 --rounds 3 --baselines reference

kf confirm runs/c --top 1 --rounds 2 | tee "$WORK/confirm.log"
grep -q '^kforge confirm: wrote ' "$WORK/confirm.log"
kf report runs/c --json > "$WORK/report1.json"
/usr/bin/python3 "$SRC/tests/integration/check_confirmation.py" "$DIR" "$WORK/report1.json" \
  --top 1 --rounds 2 --baselines reference
echo "confirmation through Slurm: all checks passed"
