# Shell helpers the test scripts share (docs/testing.md, "Test support"). Source it from a bash script:
#   # shellcheck source=tests/support/helpers.sh
#   source "$SRC/tests/support/helpers.sh"
# shellcheck shell=bash

# fail MESSAGE...: says why on stderr and stops the script (exit 1).
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# must_fail CMD...: CMD must fail; fails the script naming CMD when it succeeds. For checks under `set -e`,
# where a bare `! CMD` never stops the script.
must_fail() {
  if "$@"; then fail "expected to fail: $*"; fi
}

# expect_exit CODE TEXT CMD...: CMD exits CODE and its stdout+stderr (printed) contain TEXT.
expect_exit() {
  local code=$1 text=$2
  shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  echo "$out"
  [[ $rc == "$code" ]] || fail "'$*' exited $rc, expected $code"
  [[ $out == *"$text"* ]] || fail "'$*' did not say: $text"
}

# has_file_matching DIR REGEX: some entry of DIR has a name matching the extended REGEX (the whole name).
has_file_matching() {
  local entry
  for entry in "$1"/*; do
    [[ ${entry##*/} =~ ^$2$ ]] && return 0
  done
  return 1
}
