#!/usr/bin/env bash
# CONTRIBUTING.md, "Habits": the block (tools/check-habits.sh, every step) and the quick check its text names,
# both run literally from the repository root; CI runs this test before the suite (.ci/run, tier habits).
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py CONTRIBUTING.md "## Habits")
quick='tools/check-habits.sh clang-format shellcheck ruff'
grep -qF "\`$quick\` is the quick check" CONTRIBUTING.md || { echo "CONTRIBUTING.md no longer shows: $quick"; exit 1; }
for run in "$command" "$quick"; do
  echo "running from $SRC: $run"
  bash -euo pipefail -c "$run"
done
