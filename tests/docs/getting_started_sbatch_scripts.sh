#!/usr/bin/env bash
# docs/getting-started.md, "A campaign as one Slurm job" and "kforged as a Slurm head job": both blocks run
# literally, as an unprivileged user created here, from the root of a copy of the repository that user can read
# (the files the blocks name and the built binaries), against the test cluster (run under
# slurm/scripts/with-cluster.sh, as root). Each submitted job must complete and its campaign finish.
set -euo pipefail
SRC=$1 BIN=$2
doc=$SRC/docs/getting-started.md

# shellcheck source=../slurm/slurm_test_user.sh
source "$SRC/tests/slurm/slurm_test_user.sh" docsb
repo=$WORK/repo
mkdir -p "$repo/build/bin" "$repo/share" "$repo/tests/slurm" "$WORK/home"
cp -r "$SRC/share/slurm" "$repo/share/"
cp -r "$SRC/tests/slurm/data" "$repo/tests/slurm/"
cp -r "$SRC/site-configs" "$repo/"
cp "$BIN/kforge" "$BIN/kforge-eval" "$BIN/kforged" "$repo/build/bin/"
chmod -R a+rX "$repo"
chown "$USER_NAME" "$WORK/home"

# run_block HEADING: the section's first shell block, as the user, from the copy's root.
run_block() {
  local command
  command=$(/usr/bin/python3 "$SRC/tests/docs/run_doc_block.py" "$doc" "$1")
  echo "== $1, from the repository root:"
  echo "$command"
  (cd "$repo" && setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups \
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK/home" USER="$USER_NAME" SLURM_CONF="$SLURM_CONF" \
    bash -euo pipefail -c "$command")
}
# wait_jobs: until the user has no job left; then every job of theirs must have COMPLETED with exit code 0.
wait_jobs() {
  for _ in $(seq 1 1500); do
    [[ -z $(squeue -h -u "$USER_NAME" -o '%i') ]] && break
    sleep 0.2
  done
  [[ -z $(squeue -h -u "$USER_NAME" -o '%i') ]] || { squeue; echo "jobs still queued"; exit 1; }
  for log in "$WORK/home"/*.log; do echo "--- $log"; cat "$log"; done
  # One line per job the controller still knows (MinJobAge keeps ended jobs 300 s): the user's, all ended well.
  scontrol -o show job | grep "UserId=$USER_NAME(" > "$WORK/jobs.txt"
  [[ -s $WORK/jobs.txt ]] || { echo "no job of $USER_NAME is known"; exit 1; }
  if grep -v 'JobState=COMPLETED .*ExitCode=0:0' "$WORK/jobs.txt"; then echo "a job of $USER_NAME did not complete"; exit 1; fi
}

run_block "### A campaign as one Slurm job"
wait_jobs
grep -q '^generation 0 (1 of 1)  evaluated 3  ok 3' "$WORK/home"/kforge-campaign-*.log
test -f "$WORK/home/kforge/runs/one-island/gen-0000.h5"

run_block "### kforged as a Slurm head job"
wait_jobs
grep -q 'every campaign has ended; exiting (--once)' "$WORK/home"/kforged-*.log
(cd "$repo" && setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups env -i HOME="$WORK/home" \
  SLURM_CONF="$SLURM_CONF" build/bin/kforge status --spool "$WORK/home/kforge-spool") | tee "$WORK/status.txt"
grep -Eq 'one-island +done ' "$WORK/status.txt"
echo "getting-started sbatch blocks: ok"
