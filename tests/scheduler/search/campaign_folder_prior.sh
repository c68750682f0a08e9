#!/usr/bin/env bash
# search.prior naming an earlier campaign's folder (issue 13, transfer): a replay campaign on the RTX A4000's
# measurements, then one on the A100's with `prior: [<the first campaign's folder>]`. The warm start evaluates the
# prior's best configurations first, so the second campaign's generation 0 begins with the two fastest configurations
# of the first campaign, which a cold run with the same seed does not begin with; the prior's absolute (A4000) times
# are never used: the second campaign's records carry the A100's times.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/share/examples"
ln -s "$SRC/share/data" "$WORK/share/data"
cut() {  # one generation of 13 evaluations, a given seed, cache and prior line
  sed -e 's/generations: 5/generations: 1/' -e 's/population: 16/population: 13/' -e "s/seed: 3/seed: $1/" \
      -e "s/convolution_milo-A100/convolution_milo-$2/" -e "s|^  # prior: .*|$3|" \
      "$SRC/share/examples/convolution-replay.yaml"
}
cut 5 A4000 "" > "$WORK/share/examples/first.yaml"
"$BIN/kforge" run "$WORK/share/examples/first.yaml" --out "$WORK/first" > "$WORK/first.log"
cut 6 A100 "  prior: [$WORK/first]" > "$WORK/share/examples/warm.yaml"
grep -q "^  prior: \[$WORK/first\]" "$WORK/share/examples/warm.yaml"
"$BIN/kforge" run "$WORK/share/examples/warm.yaml" --out "$WORK/warm" > "$WORK/warm.log"
cut 6 A100 "" > "$WORK/share/examples/cold.yaml"
"$BIN/kforge" run "$WORK/share/examples/cold.yaml" --out "$WORK/cold" > "$WORK/cold.log"
/usr/bin/python3 - "$WORK" "$SRC" <<'PY'
import gzip, json, math, os, sys
work, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "share", "python"))
import kforge_archive as ka
first = ka.load_records(os.path.join(work, "first"))
warm = ka.load_records(os.path.join(work, "warm"))
cold = ka.load_records(os.path.join(work, "cold"))
best2 = list(first.sort_values("time_median_ms")["params"][:2])
print("first campaign's two fastest:", best2)
# Planning order (the generation's /candidates table): the warm start proposes the prior's best first; a cold start
# with the same seed proposes its spread-out initial design first (it may reach those configurations later: they
# are fast on the A100 too).
warm_order = list(ka.load_candidates(os.path.join(work, "warm"))["params"])
cold_order = list(ka.load_candidates(os.path.join(work, "cold"))["params"])
assert warm_order[:2] == best2, ("the warm campaign did not start from the prior's best", warm_order[:2])
assert set(best2) != set(cold_order[:2]), "the cold campaign starts from them too: the check proves nothing"
doc = json.load(gzip.open(os.path.join(src, "share/data/kernel-spaces/cache/convolution_milo-A100.json.gz")))
keys = doc["tune_params_keys"]
for text, ms in zip(warm["params"], warm["time_median_ms"]):
    params = dict(item.split("=", 1) for item in text.split(";"))
    entry = doc["cache"][",".join(params[k] for k in keys)]
    if isinstance(entry["time"], str):  # a configuration that failed there ("CompilationFailedConfig", ...)
        assert not math.isfinite(ms), (text, ms, entry["time"])
        continue
    times = sorted(entry.get("times") or [entry["time"]])  # replay: the median of "times", else "time"
    middle = {times[len(times) // 2], times[(len(times) - 1) // 2]}
    middle.add(sum(middle) / len(middle))
    assert any(math.isclose(ms, m, rel_tol=1e-9) for m in middle), (text, ms, middle)
print("warm generation 0 holds both and carries the A100's own times")
PY
