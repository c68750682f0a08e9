#!/usr/bin/env bash
# docs/getting-started.md, "Extend a finished campaign": the block run literally from the repository root. The
# second run of the block appends exactly one generation and evaluates nothing of the first two again.
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/getting-started.md "## Extend a finished campaign")
echo "running from $SRC:"
echo "$command"
rm -rf runs/gemm-small runs/gemm-small-3.yaml
trap 'rm -rf "$SRC/runs/gemm-small" "$SRC/runs/gemm-small-3.yaml"' EXIT
log=$(mktemp)
trap 'rm -rf "$SRC/runs/gemm-small" "$SRC/runs/gemm-small-3.yaml" "$log"' EXIT
bash -euo pipefail -c "$command" | tee "$log"
# Each generation ran exactly once, in order, across both runs; the stored file is the extended one.
[[ $(grep -E '^generation [0-9]+ ' "$log" | cut -d' ' -f1-4 | tr '\n' '|') == \
   'generation 0 (1 of|generation 1 (2 of|generation 2 (3 of|' ]] || { echo "unexpected generations"; exit 1; }
grep -q '^generation 2 (3 of 3)' "$log"
cmp runs/gemm-small-3.yaml runs/gemm-small/campaign.yaml
test -f runs/gemm-small/gen-0002.h5
