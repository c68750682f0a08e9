# shellcheck shell=bash
# Sourced by the Slurm tests that act as an unprivileged user (run under slurm/scripts/with-cluster.sh, as
# root): creates user kf-<PREFIX>-<pid> and a world-readable $WORK (tests/support/test_user.sh), lets the user read
# this test cluster's slurm.conf, and on exit cancels the user's jobs and removes user and $WORK.
#   source slurm_test_user.sh PREFIX      -> sets USER_NAME and WORK
: "${SLURM_CONF:?run me under slurm/scripts/with-cluster.sh}"
# shellcheck source=../support/test_user.sh
source "$(dirname "${BASH_SOURCE[0]}")/../support/test_user.sh" "$1"
kforge_slurm_user_cleanup() {
  scancel -u "$USER_NAME" 2>/dev/null || true
  kforge_test_user_cleanup
}
trap kforge_slurm_user_cleanup EXIT
chmod 755 "$(dirname "$SLURM_CONF")"
