#!/usr/bin/env bash
# docs/testing.md, "Fuzzing": the documented longer run, executed literally from the repository root with each
# target capped at a few seconds (KFORGE_FUZZ_MAX_SECONDS). Every target must run and report no failure.
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/testing.md "## Fuzzing")
echo "running from $SRC:"
echo "$command"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
KFORGE_FUZZ_MAX_SECONDS=3 bash -euo pipefail -c "$command" | tee "$log"
grep -q '^fuzz: 600 s per target capped at 3 s' "$log"
for target in fuzz_campaign_config fuzz_site_config fuzz_expression fuzz_agent_brief fuzz_agent_children \
              fuzz_task_manifest fuzz_shard; do
  grep -q "^fuzz: $target: ok, [0-9]* inputs in 3 s" "$log" || { echo "no clean run of $target"; exit 1; }
done
grep -q '^fuzz: all 7 targets ran 3 s each with no crash, leak or undefined behaviour$' "$log"
