#!/usr/bin/env bash
# docs/cli.md, "kforge confirm": the block run literally from the repository root. The test campaign turns the
# automatic confirmation off (confirm_top: 0; tests/integration/confirm_local.sh tests that one), so
# `kforge confirm` confirms the best 2 over 5 rounds, and the report quotes the confirmed figures with their intervals.
set -euo pipefail
SRC=$1
cd "$SRC"
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/cli.md "## kforge confirm DIR --top K [--rounds N]")
echo "running from $SRC:"
echo "$command"
log=$(mktemp)
rm -rf runs/gemm-confirm
trap 'rm -rf "$SRC/runs/gemm-confirm" "$log"' EXIT
bash -euo pipefail -c "$command" | tee "$log"
if grep -q 'in 10 rounds' "$log"; then echo 'the test campaign confirmed by itself'; exit 1; fi
grep -q '^kforge confirm: re-timing the best 2 candidate(s) of each target against 2 baseline(s) in 5 rounds' "$log"
grep -q '^headline: .* confirmed over 5 paired rounds$' "$log"
grep -q '^confirmation: best 2 of each target, 5 paired rounds, 95% bootstrap intervals' "$log"
[[ $(grep -cE '^host +[12] .*\(interval [0-9.]+-[0-9.]+\)$' "$log") == 4 ]]  # 2 candidates x 2 baselines
test -f runs/gemm-confirm/confirmation.h5
