#!/usr/bin/env bash
# The sbatch scripts of share/slurm/, rendered by editing only the lines between their "EDIT HERE" markers (the
# way their headers describe; docs/getting-started.md's blocks, which override instead, run in tests/docs) and
# submitted by an unprivileged user created here to the test cluster (under slurm/scripts/with-cluster.sh, as root):
#   P. kforge-campaign.sbatch runs a whole campaign as one job; the job submits the campaign's arrays itself
#   Q. kforged-head.sbatch drives a campaign submitted to its spool to its end (--once) and exits 0
set -euo pipefail
BIN=$1 SRC=$2

# shellcheck source=../slurm/slurm_test_user.sh
source "$(dirname "$0")/slurm_test_user.sh" sbatch
# shellcheck source=tests/support/helpers.sh
source "$SRC/tests/support/helpers.sh"  # has_file_matching
HOME_DIR=$WORK/home
mkdir "$HOME_DIR" && chown "$USER_NAME" "$HOME_DIR"
# The user runs copies of the binaries: the build tree may sit in a folder other users cannot enter.
mkdir "$WORK/bin" && cp "$BIN/kforge" "$BIN/kforge-eval" "$BIN/kforged" "$WORK/bin/" && chmod 755 "$WORK/bin"/*
as_user() { (cd "$HOME_DIR" && setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups \
  env -i PATH="/usr/local/bin:/usr/bin:/bin" HOME="$HOME_DIR" USER="$USER_NAME" SLURM_CONF="$SLURM_CONF" "$@"); }

# One island (hopper), one generation of 3 candidates, one array task at a time next to the head job.
cp "$SRC/tests/slurm/data/one-island.yaml" "$HOME_DIR/small.yaml"
sed -e 's|max_concurrent_tasks: 2|max_concurrent_tasks: 1|' "$SRC/site-configs/local-slurm.yaml" > "$HOME_DIR/site.yaml"
chmod 644 "$HOME_DIR"/*.yaml

# render SCRIPT OUT KEY=VALUE...: the documented edit — inside the "EDIT HERE" blocks only, each line
# "#SBATCH --KEY=..." or "KEY=..." gets VALUE. Then prove that nothing outside the blocks changed.
render() {
  local script=$1 out=$2
  shift 2
  local args=()
  for kv in "$@"; do args+=(-e "/EDIT HERE/,/end of EDIT HERE/ s|^\(#SBATCH --\)\?${kv%%=*}=.*|\1${kv%%=*}=${kv#*=}|"); done
  sed "${args[@]}" "$script" > "$out"
  outside() { sed '/EDIT HERE/,/end of EDIT HERE/d' "$1"; }
  diff <(outside "$script") <(outside "$out") || { echo "render changed lines outside EDIT HERE"; exit 1; }
  for kv in "$@"; do grep -q -- "${kv%%=*}=${kv#*=}$" "$out" || { echo "no marked line for ${kv%%=*} in $script"; exit 1; }; done
  chmod 644 "$out"
}

# wait_job ID LOG: until the job has left the queue; then it must have COMPLETED with exit code 0.
wait_job() {
  for _ in $(seq 1 900); do
    [[ -z $(squeue -h -j "$1" -o '%i' 2>/dev/null) ]] && break
    sleep 0.2
  done
  local info
  info=$(scontrol show job "$1")
  { grep -q 'JobState=COMPLETED' <<<"$info" && grep -q 'ExitCode=0:0' <<<"$info"; } || {
    echo "$info"; squeue; cat "$2" 2>/dev/null; exit 1; }
  grep -q "UserId=$USER_NAME(" <<<"$info" || { echo "job $1 did not run as $USER_NAME"; exit 1; }
}

echo "== P: share/slurm/kforge-campaign.sbatch, partition and time as edited, the campaign run inside the job"
render "$SRC/share/slurm/kforge-campaign.sbatch" "$HOME_DIR/campaign.sbatch" \
  partition=hopper time=20 output="$HOME_DIR/campaign-%j.log" KFORGE="$WORK/bin/kforge" \
  CAMPAIGN="$HOME_DIR/small.yaml" SITE="$HOME_DIR/site.yaml" OUT="$HOME_DIR/runs/small"
job=$(as_user sbatch --parsable "$HOME_DIR/campaign.sbatch")
wait_job "$job" "$HOME_DIR/campaign-$job.log"
cat "$HOME_DIR/campaign-$job.log"
grep -q '^generation 0 (1 of 1)  evaluated 3  ok 3' "$HOME_DIR/campaign-$job.log" || {
  # Say why a candidate failed: its record's status and evidence, and the array tasks' logs.
  PYTHONPATH="$SRC/share/python" python3 -c 'import sys, kforge_archive as ka
r = ka.load_records(sys.argv[1], with_text=True)
for _, x in r[r.status != "ok"].iterrows(): print(x.candidate_id, x.status, x.rank, x.slurm_array_task, x.evidence, sep="\n  ")' \
    "$HOME_DIR/runs/small" || true
  tail -n 40 "$HOME_DIR/runs/small"/g0000/logs/* || true
  exit 1; }
grep -q 'Partition=hopper' <(scontrol show job "$job")
grep -q '^kforge: submitted kf:one-island:g0:hopper as Slurm array [0-9]' "$HOME_DIR/campaign-$job.log"
# The arrays were submitted from inside the job, by the same user.
has_file_matching "$HOME_DIR/runs/small/g0000/logs" 'array-0-[0-9]+_0\.out'
[[ $(stat -c %U "$HOME_DIR/runs/small/gen-0000.h5") == "$USER_NAME" ]]

echo "== Q: share/slurm/kforged-head.sbatch drives a submitted campaign to its end"
render "$SRC/share/slurm/kforged-head.sbatch" "$HOME_DIR/head.sbatch" \
  partition=hopper time=20 output="$HOME_DIR/kforged-%j.log" KFORGED="$WORK/bin/kforged" SPOOL="$HOME_DIR/spool"
as_user "$WORK/bin/kforge" submit small.yaml --site site.yaml --spool "$HOME_DIR/spool"
job=$(as_user sbatch --parsable "$HOME_DIR/head.sbatch")
wait_job "$job" "$HOME_DIR/kforged-$job.log"
cat "$HOME_DIR/kforged-$job.log"
grep -q 'every campaign has ended; exiting (--once)' "$HOME_DIR/kforged-$job.log"
as_user "$WORK/bin/kforge" status --spool "$HOME_DIR/spool" --json | tee "$WORK/status.json"
grep -q '"campaign":"one-island","state":"done"' "$WORK/status.json"
echo "shipped sbatch scripts: ok"
