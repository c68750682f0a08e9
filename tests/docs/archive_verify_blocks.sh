#!/usr/bin/env bash
# docs/cli.md "kforge verify DIR" and docs/archive-schema.md "Verifying an archive": both blocks run literally from
# the repository root; the first verifies a fresh campaign clean (exit 0), the second also shows a generation file
# in another generation's place reported with its name and exit 4.
set -euo pipefail
SRC=$1
cd "$SRC"
out=$(mktemp)
trap 'rm -rf "$SRC/runs/gemm-verify" "$out"' EXIT

rm -rf runs/gemm-verify
block=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/cli.md "## kforge verify DIR")
echo "$block"
bash -euo pipefail -c "$block" | tee "$out"
grep -q '^runs/gemm-verify: whole (2 generation files, 2 seals, 4 shards checked; 0 problems)$' "$out"

rm -rf runs/gemm-verify
block=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/archive-schema.md "## Verifying an archive")
echo "$block"
bash -euo pipefail -c "$block" | tee "$out"
grep -q '^runs/gemm-verify: whole (2 generation files, 2 seals, 4 shards checked; 0 problems)$' "$out"
grep "^runs/gemm-verify/gen-0001.h5: reading generation file: its SHA-256 (" "$out" |
  grep -q "differs from its seal in campaign.h5 (.*): changed after the generation was sealed: its 'generation' attribute says 0 but its name says 1: "
grep -q '^runs/gemm-verify: DAMAGED (' "$out"
grep -q '^kforge verify exit 4$' "$out"
echo "ok: both documented verify blocks behave as documented"
