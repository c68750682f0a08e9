#!/usr/bin/env bash
# docs/testing.md, "Fuzzing": the documented longer run, executed literally from the repository root with each
# target capped at a few seconds (KFORGE_FUZZ_MAX_SECONDS). Every target must run and report no failure. The shard
# target only replays its corpus here (KFORGE_FUZZ_SHARD_MUTATE=0): mutating shards finds libhdf5's own defects within
# seconds (tests/fuzz/crashes/open/fuzz_shard/), which the longer run by hand is there to show.
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/testing.md "## Fuzzing")
echo "running from $SRC:"
echo "$command"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
KFORGE_FUZZ_MAX_SECONDS=3 KFORGE_FUZZ_SHARD_MUTATE=0 bash -euo pipefail -c "$command" | tee "$log"
grep -q '^fuzz: 600 s per target capped at 3 s' "$log"
for target in fuzz_campaign_config fuzz_site_config fuzz_expression fuzz_agent_brief fuzz_agent_children \
              fuzz_task_manifest fuzz_completion_request; do
  grep -q "^fuzz: $target: ok, [0-9]* inputs in 3 s" "$log" || { echo "no clean run of $target"; exit 1; }
done
grep -q '^fuzz: fuzz_shard: ok, seed corpus replayed' "$log"
grep -q '^fuzz: all 8 targets ran 3 s each with no crash, leak or undefined behaviour$' "$log"
