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
grep -q '^generation 2 (3 of 3)  evaluated 16' "$WORK/run.log"
# Both islands' bests on the console line (best so far per target) and in the report (issue 12, item 2).
grep -Eq '^generation 2 \(3 of 3\) .*best so far .*  per target: left [0-9.e-]+ ms .* right [0-9.e-]+ ms' "$WORK/run.log"
"$BIN/kforge" report "$WORK/c" > "$WORK/report.txt"
grep -A2 '^best per target:$' "$WORK/report.txt" | grep -Eq '^  right: [0-9a-f]{32} '
/usr/bin/python3 - "$WORK/c" "$SRC" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(sys.argv[2], "share", "python"))
import kforge_archive
records = kforge_archive.load_records(sys.argv[1])
population = kforge_archive.load_population(sys.argv[1])
population["generation"] = population["generation_file"].str.extract(r"(\d+)\.h5$")[0].astype(int)
# Migration copies each island's best to the other island: after every generation the best survivor of each
# island is also a survivor of the other one (true whether the best is home-grown or itself a migrant).
for g in sorted(population["generation"].unique()):
    for island in (0, 1):
        here = population[(population["generation"] == g) & (population["island"] == island)]
        there = population[(population["generation"] == g) & (population["island"] == 1 - island)]
        best = here.sort_values("fitness_ms").iloc[0]["candidate_id"]
        assert best in set(there["candidate_id"]), f"generation {g}: island {island}'s best {best} did not migrate"
migrants = len(population["generation"].unique()) * 2
print("ok: islands separate; each island's best present on the other island in", migrants // 2, "generations")
PY
