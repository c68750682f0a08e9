#!/usr/bin/env bash
# Extending a finished campaign (docs/getting-started.md, "Extend a finished campaign"): raising
# search.generations and running the same command again on the same --out evaluates only the new generations.
# Any other change to the campaign file is refused with exit 2, every changed key listed, and nothing written;
# a comment-only change is accepted. The stored DIR/campaign.yaml follows the accepted file.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# 1 generation of 4 candidates, then 2.
sed -e 's|generations: 2|generations: 1|' -e 's|offspring: 8|offspring: 4|' \
  "$SRC/tests/integration/data/gemm-small.yaml" > one.yaml
sed -e 's|generations: 1|generations: 2|' one.yaml > two.yaml
# Everything in DIR but the lock file (it holds the pid of the last kforge that opened it).
snapshot() { (cd c && find . -type f ! -name kforge.lock -printf '%p %T@\n' | sort && find . -type f ! -name kforge.lock -exec sha256sum {} + | sort); }
refused() {  # FILE EXPECTED-LINE...: exit 2, every expected line in the message, the directory untouched
  local file=$1 code=0
  shift
  snapshot > before.txt
  "$BIN/kforge" run "$file" --out c > out.log 2> err.log || code=$?
  cat err.log
  [[ $code -eq 2 ]] || { cat out.log; echo "exit $code, expected 2"; exit 1; }
  for line in "$@"; do grep -qF -- "$line" err.log || { echo "missing in the message: $line"; exit 1; }; done
  snapshot > after.txt
  diff before.txt after.txt || { echo "a refused change wrote into the campaign directory"; exit 1; }
}

echo "== a finished 1-generation campaign"
"$BIN/kforge" run one.yaml --out c | tee run1.log
grep -q '^generation 0 (1 of 1)' run1.log
(cd c && sha256sum gen-0000.h5 g0000/shards/*.h5 g0000/tasks/*) > gen0.sha

echo "== raised to 2 generations: generation 1 appended, nothing of generation 0 evaluated again"
"$BIN/kforge" run two.yaml --out c | tee run2.log
grep -q '^generation 1 (2 of 2)  evaluated 4' run2.log
if grep -q '^generation 0 ' run2.log; then echo 'generation 0 ran again'; exit 1; fi
(cd c && sha256sum -c --quiet "$WORK/gen0.sha") || { echo "generation 0's files changed"; exit 1; }
test -f c/gen-0001.h5
cmp two.yaml c/campaign.yaml
"$BIN/kforge" report c --json > report.json
/usr/bin/python3 -c "
import json; r = json.load(open('report.json'))
assert r['generations'] == 2 and r['generations_planned'] == 2, r
assert [g['evaluated'] for g in r['per_generation']] == [4, 4], r['per_generation']"

echo "== shrinking below the generations done is refused"
refused one.yaml 'search.generations: 2 -> 1 (2 generations are already done'

echo "== other keys are refused, each listed"
sed -e 's|offspring: 4|offspring: 2|' -e 's|MC: \[16, 32, 48, 64\]|MC: [16, 32]|' -e 's|generations: 2|generations: 3|' \
  two.yaml > other.yaml
refused other.yaml 'search.offspring: 4 -> 2' 'space.parameters.MC: [16, 32, 48, 64] -> [16, 32]' \
  'only search.generations may change'
# Raising search.generations is fine: only the refused keys are listed.
if grep -q '^  search.generations' err.log; then echo 'an accepted key was listed'; exit 1; fi

echo "== a comment-only change is accepted and stored"
{ echo "# extended on purpose"; sed 's|^search:|search:   # the search|' two.yaml; } > commented.yaml
"$BIN/kforge" run commented.yaml --out c | tee run3.log
if grep -q '^generation ' run3.log; then echo 'a generation ran again'; exit 1; fi
cmp commented.yaml c/campaign.yaml
echo "extend_finished_campaign: ok"
