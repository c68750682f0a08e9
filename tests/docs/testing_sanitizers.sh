#!/usr/bin/env bash
# docs/testing.md, "Sanitizers": the block run literally from the repository root: the unit tier built under ASan
# and UBSan in build-asan/ and run there, clean (tier sanitize; minutes, most of them the first build).
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/testing.md "## Sanitizers")
echo "running from $SRC:"
echo "$command"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bash -euo pipefail -c "$command" 2>&1 | tee "$log"
grep -q '^sanitizers: the unit tier ran clean under ASan and UBSan in [0-9]* s$' "$log"
grep -Eq '^100% tests passed, 0 tests failed out of [1-9][0-9]*' "$log"
