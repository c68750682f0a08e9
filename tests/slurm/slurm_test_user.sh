# shellcheck shell=bash
# Sourced by the Slurm tests that act as an unprivileged user (run under slurm/scripts/with-cluster.sh, as
# root): creates user kf-<PREFIX>-<pid> and a world-readable $WORK, lets the user read this test cluster's
# slurm.conf, and on exit cancels the user's jobs and removes user and $WORK.
#   source slurm_test_user.sh PREFIX      -> sets USER_NAME and WORK
: "${SLURM_CONF:?run me under slurm/scripts/with-cluster.sh}"
[[ $(id -u) -eq 0 ]] || { echo "needs root (creates a test user)"; exit 1; }
USER_NAME=kf-$1-$$
WORK=$(mktemp -d)
kforge_test_user_cleanup() {
  scancel -u "$USER_NAME" 2>/dev/null || true
  userdel "$USER_NAME" 2>/dev/null || true
  rm -rf "$WORK"
}
trap kforge_test_user_cleanup EXIT
useradd --system --no-create-home --shell /bin/bash "$USER_NAME"
chmod 755 "$WORK" "$(dirname "$SLURM_CONF")"
