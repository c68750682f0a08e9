# shellcheck shell=bash
# Sourced by tests that act as an unprivileged user outside Slurm (run as root): creates user kf-<PREFIX>-<pid> and
# a world-readable $WORK; on exit stops the user's processes and removes user and $WORK.
#   source tests/support/test_user.sh PREFIX      -> sets USER_NAME and WORK
[[ $(id -u) -eq 0 ]] || { echo "needs root (creates a test user)"; exit 1; }
USER_NAME=kf-$1-$$
WORK=$(mktemp -d)
kforge_test_user_cleanup() {
  pkill -u "$USER_NAME" 2>/dev/null || true
  userdel "$USER_NAME" 2>/dev/null || true
  rm -rf "$WORK"
}
trap kforge_test_user_cleanup EXIT
useradd --system --no-create-home --shell /bin/bash "$USER_NAME"
chmod 755 "$WORK"
