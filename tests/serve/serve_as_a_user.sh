#!/usr/bin/env bash
# kforge serve run by an unprivileged user this script creates (root only; removed on exit), met by clients and
# attackers (serve_client_attacks.py): the server runs as that user, never as root.
#   tests/serve/serve_as_a_user.sh SRC_DIR BUILD_DIR
set -euo pipefail
src=$(cd "${1:?usage: $0 SRC_DIR BUILD_DIR}" && pwd)
build=$(cd "${2:?usage: $0 SRC_DIR BUILD_DIR}" && pwd)
# shellcheck source=../support/test_user.sh
source "$src/tests/support/test_user.sh" serve
chown "$USER_NAME" "$WORK"
cd "$WORK"
setpriv --reuid "$USER_NAME" --regid "$USER_NAME" --init-groups --reset-env \
  env TMPDIR="$WORK" PATH=/usr/local/bin:/usr/bin:/bin PYTHONDONTWRITEBYTECODE=1 \
  /usr/bin/python3 "$src/tests/serve/serve_client_attacks.py" "$src" "$build" "$WORK"
