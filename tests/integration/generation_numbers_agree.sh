#!/usr/bin/env bash
# Generation numbers start at 0 and are the same everywhere a person or a program meets them: the console line
# "generation N (K of M)", the report's "gen" column and best/lineage, `kforge report --json`, the folders gNNNN,
# the files gen-NNNN.h5, their /generation attribute and each record's generation (read back with h5py).
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# 2 generations of 4 candidates: small and quick.
sed -e 's|offspring: 8|offspring: 4|' "$SRC/tests/integration/data/gemm-small.yaml" > "$WORK/c.yaml"
"$BIN/kforge" run "$WORK/c.yaml" --out "$WORK/c" | tee "$WORK/run.log"
grep -E '^generation [0-9]+ \([0-9]+ of [0-9]+\)' "$WORK/run.log" | sed -E 's/^generation ([0-9]+) .*/\1/' > "$WORK/console"
grep -q '^generation 0 (1 of 2)  evaluated 4' "$WORK/run.log"
grep -q '^generation 1 (2 of 2)  evaluated 4' "$WORK/run.log"

"$BIN/kforge" report "$WORK/c" > "$WORK/report.txt"
"$BIN/kforge" report "$WORK/c" --json > "$WORK/report.json"
"$BIN/kforge" status "$WORK/c" > "$WORK/status.txt"
cat "$WORK/report.txt" "$WORK/status.txt"
grep -q '^generations done 2 of 2 (0..1)' "$WORK/report.txt"
grep -Eq '^gemm-small +done +2 of 2 ' "$WORK/status.txt"
# The rows of the per-generation table: from the header "gen ..." to the first empty line.
awk '/^gen +evaluated/ {t=1; next} t && NF==0 {exit} t {print $1}' "$WORK/report.txt" > "$WORK/report-text"

/usr/bin/python3 - "$WORK" <<'PY'
import json, os, re, sys
import h5py
work = sys.argv[1]
campaign = os.path.join(work, "c")
console = [int(x) for x in open(os.path.join(work, "console")).read().split()]
text = [int(x) for x in open(os.path.join(work, "report-text")).read().split()]
report = json.load(open(os.path.join(work, "report.json")))
as_json = [g["generation"] for g in report["per_generation"]]
folders = sorted(int(m.group(1)) for n in os.listdir(campaign) if (m := re.fullmatch(r"g(\d{4})", n)))
files = sorted(int(m.group(1)) for n in os.listdir(campaign) if (m := re.fullmatch(r"gen-(\d{4})\.h5", n)))
attributes, in_records = [], []
for g in files:
    with h5py.File(os.path.join(campaign, "gen-%04d.h5" % g), "r") as f:
        attributes.append(int(f.attrs["generation"]))
        in_records.append(sorted({int(x) for x in f["records"]["generation"][()]}))
seen = dict(console=console, report_text=text, report_json=as_json, folders=folders, files=files,
            attributes=attributes)
print(seen, "record generations per file:", in_records)
assert all(v == [0, 1] for v in seen.values()), seen
assert in_records == [[0], [1]], in_records
best = report["best"]["generation"]
assert re.search(r"^best: \S+  generation %d " % best, open(os.path.join(work, "report.txt")).read(), re.M), best
print("generation numbers agree: 0-based everywhere")
PY
