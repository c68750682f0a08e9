#!/usr/bin/env bash
# docs/cli.md, "kforge-cuda-figures": the block run literally from the repository root gives ptxas's figures for
# every genome of kda_bf16_tc's space on both targets: 144 genomes each, none failing to compile, every compiled one
# with registers and shared memory and no spills, every rejected one with its reason; then an unknown family or
# target is exit 2 naming what is known.
set -euo pipefail
SRC=$1
cd "$SRC"
cache=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$cache" "$log"' EXIT
export KFORGE_CUDA_CACHE=$cache  # a cold cache: every genome is compiled here
heading=$(grep -m1 '^## kforge-cuda-figures ' docs/cli.md)
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/cli.md "$heading")
echo "running from $SRC: $command"
bash -euo pipefail -c "$command" > "$log"
python3 - "$log" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
rows = [line.split(None, 7) for line in lines[1:] if re.match(r"^(hopper|blackwell) ", line)]
assert len(rows) == 288, len(rows)
for target in ("hopper", "blackwell"):
    mine = [r for r in rows if r[0] == target]
    assert len({r[1] for r in mine}) == 144, (target, len(mine))
    ok = [r for r in mine if r[2] == "ok"]
    assert len(ok) > 40, (target, len(ok))
    for r in ok:
        assert int(r[3]) > 0 and int(r[4]) > 0 and int(r[5]) == 0, r
    for r in mine:
        assert r[2] in ("ok", "resource_reject"), r
        if r[2] == "resource_reject":
            assert len(r) == 8 and "resource_reject" in r[7], r
    summary = next(line for line in lines if line.startswith(f"{target}: 144 genomes: "))
    assert summary.endswith(", 0 compile errors"), summary
    print(summary)
PY
rc=0
out=$(build/bin/kforge-cuda-figures kda_fp8 2>&1) || rc=$?
[[ $rc == 2 && $out == *"kda_bf16_tc"* ]] || { echo "unknown family: exit $rc: $out"; exit 1; }
rc=0
out=$(build/bin/kforge-cuda-figures rmsnorm --targets ampere 2>&1) || rc=$?
[[ $rc == 2 && $out == *ampere* ]] || { echo "unknown target: exit $rc: $out"; exit 1; }
echo "kforge-cuda-figures: every kda_bf16_tc genome on both targets has its figures; bad names are exit 2"
