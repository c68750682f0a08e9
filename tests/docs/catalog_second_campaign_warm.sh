#!/usr/bin/env bash
# docs/catalog.md "Where it is", docs/getting-started.md "A second campaign starts warm" and docs/cli.md "kforge
# suggest" and "kforge catalog", run literally from the repository root after the README's demo command: the catalog folder the site
# document creates, then the second
# demo campaign, which starts warm from the first by itself (nothing in its campaign file asks for it) and evaluates
# the first campaign's best configuration within its first 4 evaluations, where the first needed dozens; kforge
# suggest names the best configurations with their evidence. Both campaigns' records are read back with h5py
# (share/python).
set -euo pipefail
SRC=$1
cd "$SRC"
site_folder=/srv/kforge/catalog
if [[ -e $site_folder ]]; then
  echo "$site_folder exists already: this test makes it and removes it, so it leaves a machine's own alone"
  exit 1
fi
made=$(mktemp -d)  # what this test moves aside and brings back: a reader's own runs of the demo
restore() {
  rm -rf /srv/kforge runs/gemm-host runs/gemm-host-again
  for d in gemm-host gemm-host-again; do [[ -e $made/$d ]] && mv "$made/$d" "runs/$d"; done
  rm -rf "$made"
}
trap restore EXIT
for d in gemm-host gemm-host-again; do [[ -e runs/$d ]] && mv "runs/$d" "$made/$d"; done

echo "== docs/catalog.md, Where it is"
bash -euo pipefail -c "$(/usr/bin/python3 tests/docs/run_doc_block.py docs/catalog.md "## Where it is")"
[[ $(stat -c %a "$site_folder") == 1777 ]] || { echo "the catalog folder is not mode 1777"; exit 1; }
export KFORGE_CATALOG=$site_folder  # the environment's setting of that table; ctest's none is overridden here

echo "== README: the demo"
readme=$(/usr/bin/python3 tests/docs/run_doc_block.py README.md "## Two commands (fresh Debian 12 machine, as root or with sudo)")
demo=$(grep -o 'build/bin/kforge run share/examples/gemm-host.yaml --out runs/gemm-host$' <<<"$readme")
bash -euo pipefail -c "$demo" > "$made/first.log"
grep -q "catalog: no earlier campaign of this space" "$made/first.log"

echo "== docs/getting-started.md, A second campaign starts warm"
block=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/getting-started.md "## A second campaign starts warm")
echo "$block"
bash -euo pipefail -c "$block" | tee "$made/second.log"
grep -q "^catalog: warm start from 1 earlier campaign of this space in $site_folder" "$made/second.log"
grep -q "^prior $SRC/runs/gemm-host (target host): rank correlation" "$made/second.log"
grep -q "^best known configurations of this space, from 2 campaigns of the catalog:" "$made/second.log"
echo "== docs/cli.md, kforge suggest"
block=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/cli.md "## kforge suggest CAMPAIGN.yaml [--site SITE.yaml] [--top N] [--json]")
bash -euo pipefail -c "$block" | tee "$made/suggest.log"
[[ $(grep -c '^[0-9]\. ' "$made/suggest.log") == 1 ]] || { echo "--top 1 did not give one configuration"; exit 1; }
[[ $(grep -c ' ms, rank [0-9]* of [0-9]* in ' "$made/suggest.log") == 2 ]] || { echo "not two campaigns' evidence"; exit 1; }
echo "== docs/cli.md, kforge catalog"
block=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/cli.md "## kforge catalog [--site SITE.yaml] [--json]")
bash -euo pipefail -c "$block" | tee "$made/catalog.log"
grep -q "^catalog $site_folder: 2 campaigns you may see$" "$made/catalog.log"
for d in gemm-host gemm-host-again; do
  grep -Eq " root +shared +gemm +gemm-host +host +readable +$PWD/runs/$d$" "$made/catalog.log" || {
    echo "kforge catalog does not list runs/$d"; exit 1; }
done
/usr/bin/python3 - <<'PY'
import sys
sys.path.insert(0, "share/python")
import kforge_archive as ka
first = ka.load_records("runs/gemm-host").sort_values("generation", kind="stable")
second = ka.load_records("runs/gemm-host-again").sort_values("generation", kind="stable")
# The first campaign's best configuration: how many evaluations each campaign spent before it evaluated it. Times
# are noisy (a re-measured configuration may differ by several percent), configurations are not.
best = first.loc[first["time_median_ms"].idxmin(), "params"]
cold = list(first["params"]).index(best) + 1
warm = list(second["params"]).index(best) + 1 if best in set(second["params"]) else None
print(f"the first campaign's best configuration: evaluation {cold} of the first campaign, {warm} of the second")
assert warm is not None and warm < cold, (cold, warm)
gen0 = list(second[second["generation"] == 0]["op"])
assert gen0[:4] == ["prior"] * 4 and "prior" not in gen0[4:], gen0  # a quarter of the 16 of generation 0, first
assert "prior" not in set(first["op"])
# What the times say, beside: the evaluations until one came within 5% of the first campaign's best time.
t = first["time_median_ms"].min()
within = [next((i + 1 for i, x in enumerate(r["time_median_ms"]) if x <= 1.05 * t), None) for r in (first, second)]
print(f"within 5% of its best time ({t:.4g} ms): after {within[0]} evaluations cold, {within[1]} warm")
PY
