#!/usr/bin/env bash
# CONTRIBUTING.md, "Build": the block run literally from the repository root after the suite's own build, so it
# must succeed and rebuild nothing (a block that changed the build would show as compiled or linked targets).
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py CONTRIBUTING.md "## Build")
echo "running from $SRC:"
echo "$command"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bash -euo pipefail -c "$command" > "$log" 2>&1 || { cat "$log"; exit 1; }
tail -n 3 "$log"
if grep -E '^\[ *[0-9]+%\] (Building|Linking) ' "$log"; then
  echo "CONTRIBUTING.md's build block rebuilt the targets above after the suite's build"
  exit 1
fi
