#!/usr/bin/env bash
# docs/getting-started.md, "Through Slurm": the block a reader copies, run literally from the repository root
# (as root: it starts the single-node cluster itself). Its relative --out must work: every array task runs and
# every record is ok, and the Slurm output files are named with the array's job and task ids.
set -euo pipefail
SRC=$1
cd "$SRC"
# shellcheck source=tests/support/helpers.sh
source tests/support/helpers.sh  # has_file_matching
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/getting-started.md "## Through Slurm")
echo "running from $SRC:"
echo "$command"
out=$(sed -n 's/.*--out \([^ ]*\).*/\1/p' <<<"$command" | head -n 1)
[[ $out == runs/* ]] || { echo "the documented command no longer writes under runs/ ($out)"; exit 1; }
rm -rf "$out"
trap 'rm -rf "$SRC/$out"' EXIT
bash -euo pipefail -c "$command"
/usr/bin/python3 - "$out" <<'PY'
import sys
sys.path.insert(0, "share/python")
import kforge_archive
df = kforge_archive.load_records(sys.argv[1], with_text=True)
bad = df[df["status"] != "ok"]
assert len(df) == 24 and bad.empty, (len(df), bad[["status", "evidence"]].head(3).to_dict("records"))
print("documented Slurm campaign:", len(df), "records, all ok")
PY
has_file_matching "$out"/g0000/logs 'array-[0-9]+-[0-9]+_[0-9]+\.out' || { ls "$out"/g0000/logs; exit 1; }
