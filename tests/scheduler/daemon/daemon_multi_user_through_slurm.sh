#!/usr/bin/env bash
# kforged as root on a Slurm site (run under slurm/scripts/with-cluster.sh, as root): a campaign submitted by an
# unprivileged user created here becomes Slurm array jobs OF THAT USER (the controller's UserId), its tasks'
# compiler runs as that user on the node (a wrapper records `id -u`), and every file of the campaign, the
# array logs slurmd wrote included, belongs to that user. No job of the campaign belongs to root.
#   usage: daemon_multi_user_through_slurm.sh BIN_DIR SOURCE_DIR
set -euo pipefail
BIN=$1 SRC=$2
: "${SLURM_CONF:?run me under slurm/scripts/with-cluster.sh}"
[[ $(id -u) -eq 0 ]] || { echo "FAIL: needs root (creates a test user, runs kforged as root)"; exit 1; }

USER_NAME=kfdsl$$
WORK=$(mktemp -d /tmp/kforge-daemon-slurm-XXXXXX)
DAEMON=
cleanup() {
  if [[ -n $DAEMON ]]; then kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null; fi
  scancel -u "$USER_NAME" 2>/dev/null || true
  userdel -f "$USER_NAME" 2>/dev/null || true
  groupdel "$USER_NAME" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# shellcheck source=tests/support/helpers.sh
source "$SRC/tests/support/helpers.sh"
# fail, and what kforged said: helpers.sh's fail after the daemon's stderr.
fail_with_daemon_log() {
  if [[ -f $WORK/kforged.err ]]; then cat "$WORK/kforged.err" >&2; fi
  fail "$@"
}

useradd -M -U -s /usr/sbin/nologin "$USER_NAME"
# The user's kforge reads this test cluster's slurm.conf (a real site's is world-readable too).
CLUSTER=$(dirname "$SLURM_CONF")
chmod 755 "$CLUSTER" && chmod 644 "$SLURM_CONF"
uid=$(id -u "$USER_NAME")
chmod 755 "$WORK"
mkdir "$WORK/home" "$WORK/uids" && chown "$USER_NAME:" "$WORK/home" && chmod 1777 "$WORK/uids"
# Copies the user can run: the build tree may sit in a folder other users cannot enter.
mkdir "$WORK/bin" && cp "$BIN/kforge" "$BIN/kforged" "$BIN/kforge-eval" "$WORK/bin/" && chmod 755 "$WORK/bin"/*
printf '#!/bin/sh\nid -u >> %s/uids/cc\nexec c++ "$@"\n' "$WORK" > "$WORK/cc.sh" && chmod 755 "$WORK/cc.sh"

# One island (hopper), one generation of 3 tasks, no retries; the compiler is the recording wrapper.
sed -e 's|targets: \[hopper, blackwell\]|targets: [hopper]|' -e 's|generations: 2|generations: 1|' \
    -e 's|offspring: 6|offspring: 3|' -e 's|population: 4|population: 3|' \
    -e "s|^evaluation:|evaluation:\n  compiler: $WORK/cc.sh|" \
    "$SRC/tests/slurm/data/two-islands.yaml" > "$WORK/home/small.yaml"
sed -e 's|max_task_retries: 2|max_task_retries: 0|' "$SRC/site-configs/local-slurm.yaml" > "$WORK/home/site.yaml"
chmod 644 "$WORK/home"/*.yaml

SPOOL=$WORK/spool
KFORGE_SPOOL=$SPOOL "$WORK/bin/kforged" 2>"$WORK/kforged.err" &
DAEMON=$!
for _ in $(seq 100); do [[ -e $SPOOL/audit.log ]] && break; sleep 0.1; done

as_user() { setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups \
  env -i PATH="$WORK/bin:/usr/bin:/bin" HOME="$WORK/home" KFORGE_SPOOL="$SPOOL" SLURM_CONF="$SLURM_CONF" "$@"; }
[[ $(as_user kforge submit "$WORK/home/small.yaml" --site "$WORK/home/site.yaml") == two-islands ]] ||
  fail_with_daemon_log "kforge submit"
DIR=$SPOOL/campaigns/$USER_NAME/two-islands
for _ in $(seq 900); do
  [[ -e $DIR/gen-0000.h5 || -e $DIR/FAILED ]] && break
  sleep 0.2
done
[[ -e $DIR/gen-0000.h5 ]] || fail_with_daemon_log "the campaign did not finish: $(cat "$DIR/FAILED" "$DIR/kforge.log" 2>/dev/null)"
if ! { kill -TERM "$DAEMON" && wait "$DAEMON"; }; then fail_with_daemon_log "kforged did not stop cleanly"; fi
DAEMON=

# The controller's view: every array the campaign submitted belongs to the user.
[[ -s $DIR/g0000/slurm/jobs ]] || fail_with_daemon_log "no Slurm job recorded in $DIR/g0000/slurm/jobs"
while read -r job _; do
  owner=$(scontrol show job "$job" | grep -o 'UserId=[^ ]*' | sort -u)
  [[ $owner == "UserId=$USER_NAME($uid)" ]] || fail_with_daemon_log "Slurm job $job: $owner, expected $USER_NAME($uid)"
  echo "job $job: $owner"
done < "$DIR/g0000/slurm/jobs"
# The compiler ran on the node, and only as the user.
[[ -s $WORK/uids/cc ]] || fail_with_daemon_log "the compiler wrapper never ran"
[[ $(sort -u "$WORK/uids/cc") == "$uid" ]] || fail_with_daemon_log "the compiler ran as: $(sort -u "$WORK/uids/cc" | tr '\n' ' ')"
# Every file of the campaign (array logs written by slurmd included) is the user's; none is root's.
others=$(find "$SPOOL/campaigns/$USER_NAME" ! -user "$USER_NAME")
[[ -z $others ]] || fail_with_daemon_log "files of the campaign not owned by $USER_NAME: $others"
compgen -G "$DIR/g0000/logs/*_0.out" > /dev/null || fail_with_daemon_log "no array log in $DIR/g0000/logs"
grep -q "submit uid=$uid user=$USER_NAME campaign=$USER_NAME/two-islands accepted" "$SPOOL/audit.log" ||
  fail_with_daemon_log "audit.log: $(cat "$SPOOL/audit.log")"
echo "PASS: a multi-user kforged's Slurm jobs, compiler and files are the submitter's"
