#!/usr/bin/env bash
# docs/isolation.md when the rank is NOT root (a user's own Slurm job): there is no other user to drop to, so
# Landlock, seccomp and the harness's non-dumpable state alone must hold. Runs the hostile-candidate test as an
# unprivileged user this script creates (root only; removed on exit).
#   tests/faults/hostile_candidates_as_user.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
[[ $(id -u) -eq 0 ]] || { echo "needs root (creates a test user)"; exit 1; }
user=kf-hostile-$$
work=$(mktemp -d)
cleanup() { userdel "$user" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
useradd --system --no-create-home --shell /bin/bash "$user"
chown "$user" "$work"
cd "$work"
# TMPDIR: the user's own temp folder, so nothing of root's /tmp is in its way.
setpriv --reuid "$user" --regid "$user" --init-groups --reset-env \
  env TMPDIR="$work" PATH=/usr/local/bin:/usr/bin:/bin \
  "$build/bin/test_eval_faults" --gtest_filter='EvalFaults.HostileCandidatesReachNothingButTheirOwnRecord'
