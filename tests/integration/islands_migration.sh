#!/usr/bin/env bash
# Two islands on the local executor: every child is bred from its own island's population (islands stay
# separate), and with migration_interval 1 each island's best joins the other island after every generation.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
sed -e 's/^  name: gemm-small/  name: islands/' -e 's/^  targets: \[host\]/  targets: [left, right]/' \
    -e 's/^  generations: 2/  generations: 3/' -e 's/^  seed: 7/  seed: 7\n  migration_interval: 1\n  migration_size: 1/' \
    "$SRC/tests/integration/data/gemm-small.yaml" > "$WORK/islands.yaml"
grep -q 'migration_interval: 1' "$WORK/islands.yaml"
"$BIN/kforge" run "$WORK/islands.yaml" --out "$WORK/c" | tee "$WORK/run.log"
grep -q '^gen 3/3  evaluated 16' "$WORK/run.log"
/usr/bin/python3 - "$WORK/c" "$SRC" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(sys.argv[2], "share", "python"))
import kforge_archive
records = kforge_archive.load_records(sys.argv[1])
population = kforge_archive.load_population(sys.argv[1])
population["generation"] = population["generation_file"].str.extract(r"(\d+)\.h5$")[0].astype(int)
# The same genome may be born on both islands (dedup is per target): keep every island a candidate was born on.
born_on = kforge_archive.load_candidates(sys.argv[1]).groupby("id")["island"].apply(set).to_dict()
assert set(zip(records["island"], records["target"])) == {(0, "left"), (1, "right")}
for _, r in records[records["generation"] > 0].iterrows():
    if not r["parents"]:
        continue
    prev = population[(population["generation"] == r["generation"] - 1) & (population["island"] == r["island"])]
    for p in r["parents"].split(","):
        assert p in set(prev["candidate_id"]), f"child {r['candidate_id']} of island {r['island']} has a parent from elsewhere"
migrants = 0
for g in sorted(population["generation"].unique()):
    for island in (0, 1):
        pop = population[(population["generation"] == g) & (population["island"] == island)]
        foreign = [c for c in pop["candidate_id"] if island not in born_on.get(c, {island})]
        migrants += len(foreign)
        assert foreign, f"generation {g}: no migrant reached island {island}"
print("ok: islands separate, migrants in every generation:", migrants)
PY
