#!/usr/bin/env bash
# The campaign uses what the bench measures (issue 13): share/examples/convolution-replay.yaml, cut to 25
# evaluations (generation 0: 13, generation 1: 12), run with its own strategy (surrogate) for 4 seeds, reaches
# the fraction of optimum that bench/search_efficiency measures for the default strategy at 25 evaluations
# on the same space, within noise (3 standard errors of a 4-run mean), and kforge report shows best-so-far
# against evaluations spent. The fraction is computed as the bench does: the space's best "time" over the best
# "time" of the configurations evaluated, failures counted as spent. The same example with its search.prior
# line switched on (the A4000's cache) must propose the A4000's fastest configuration first and land within 3
# standard deviations of the bench's warm figure.
set -euo pipefail
BIN=$1 SRC=$2
CACHE=$SRC/share/data/kernel-spaces/cache/convolution_milo-A100.json.gz
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/share/examples"
ln -s "$SRC/share/data" "$WORK/share/data"
PRIOR=$SRC/share/data/kernel-spaces/cache/convolution_milo-A4000.json.gz
"$BIN/search_efficiency" --cache "$CACHE" --prior "$PRIOR" --budgets 25 --repeats 50 --threads 2 --json \
    > "$WORK/bench.json"
# The warm start through search.prior: the example's commented prior line (the A4000's cache) switched on.
sed -e 's/generations: 5/generations: 2/' -e 's/population: 16/population: 13/' -e 's/offspring: 24/offspring: 12/' \
    -e 's/^  # prior: /  prior: /' "$SRC/share/examples/convolution-replay.yaml" > "$WORK/share/examples/warm.yaml"
grep -q '^  prior: ' "$WORK/share/examples/warm.yaml"
"$BIN/kforge" run "$WORK/share/examples/warm.yaml" --out "$WORK/cwarm" > "$WORK/runwarm.log"
for seed in 1 2 3 4; do
  sed -e 's/generations: 5/generations: 2/' -e 's/population: 16/population: 13/' -e 's/offspring: 24/offspring: 12/' \
      -e "s/seed: 3/seed: $seed/" "$SRC/share/examples/convolution-replay.yaml" > "$WORK/share/examples/c$seed.yaml"
  grep -q 'strategy: surrogate' "$WORK/share/examples/c$seed.yaml"
  "$BIN/kforge" run "$WORK/share/examples/c$seed.yaml" --out "$WORK/c$seed" > "$WORK/run$seed.log"
done
"$BIN/kforge" report "$WORK/c1" > "$WORK/report.txt"
"$BIN/kforge" report "$WORK/c1" --json > "$WORK/report.json"
grep -Eq '^best so far vs evaluations spent:  13 -> [0-9.]+ ms  25 -> [0-9.]+ ms$' "$WORK/report.txt"
/usr/bin/python3 - "$WORK" "$SRC" "$CACHE" "$PRIOR" <<'PY'
import gzip, json, math, os, sys
sys.path.insert(0, os.path.join(sys.argv[2], "share", "python"))
import kforge_archive as ka
work = sys.argv[1]
doc = json.load(gzip.open(sys.argv[3]))
keys = doc["tune_params_keys"]
times = {k: (v["time"] if isinstance(v["time"], (int, float)) else math.inf) for k, v in doc["cache"].items()}
optimum = min(times.values())
def fraction_of(folder):
    records = ka.load_records(os.path.join(work, folder))
    assert len(records) == 25, len(records)
    assert records["params"].is_unique, "a configuration was evaluated twice"
    best = math.inf
    for text in records["params"]:
        params = dict(item.split("=", 1) for item in text.split(";"))
        best = min(best, times[",".join(params[k] for k in keys)])
    return optimum / best
fractions = [fraction_of("c%d" % seed) for seed in (1, 2, 3, 4)]
bench = json.load(open(os.path.join(work, "bench.json")))
default = [r for r in bench["results"] if r["strategy"] == "default" and r["prior"] == "none"][0]
warm_bench = [r for r in bench["results"] if r["strategy"] == "default" and r["prior"] == "prior"][0]
warm = fraction_of("cwarm")
print("warm campaign %.3f; bench default +prior %.3f +- %.3f" % (warm, warm_bench["mean_fraction"], warm_bench["std"]))
assert warm >= warm_bench["mean_fraction"] - 3 * warm_bench["std"], "the warm campaign is far below the warm bench"
# The prior was used: the warm campaign proposed the A4000's fastest configuration first. (Whether it helps on the
# A100 is the bench's to say: there +prior is within noise of cold at 25 evaluations, bench/README.md.)
prior = json.load(gzip.open(sys.argv[4]))
fastest = min((v["time"], k) for k, v in prior["cache"].items() if isinstance(v["time"], (int, float)))[1]
first = ka.load_candidates(os.path.join(work, "cwarm"))["params"][0]
first = dict(item.split("=", 1) for item in first.split(";"))
assert ",".join(first[k] for k in prior["tune_params_keys"]) == fastest, (first, fastest)
random = [r for r in bench["results"] if r["strategy"] == "random"][0]
mean = sum(fractions) / len(fractions)
noise = 3 * default["std"] / math.sqrt(len(fractions))
print("campaign fractions %s mean %.3f; bench default %.3f +- %.3f (3 s.e. of 4 runs %.3f); random %.3f"
      % (["%.3f" % f for f in fractions], mean, default["mean_fraction"], default["std"], noise,
         random["mean_fraction"]))
assert abs(mean - default["mean_fraction"]) <= noise, "campaign and bench disagree beyond noise"
# How well the model predicted is stored with each generation (/search_model), printed by the console and shown by
# kforge report: the same figures in all three.
model = ka.load_search_model(os.path.join(work, "c1"))
assert not model.empty and (model.predictions >= 3).all() and model.rank_correlation.between(-1, 1).all(), model
log = open(os.path.join(work, "run1.log"), encoding="utf-8").read()
report = json.load(open(os.path.join(work, "report.json"), encoding="utf-8"))
for r in model.itertuples():
    line = "  model (%s): rank correlation %.2f of predicted and measured, %d proposals" % (
        r.target, r.rank_correlation, r.predictions)
    assert line in log, (line, log)
    g = int(r.generation_file[4:8])
    stored = report["per_generation"][g]["model_quality"]
    assert [(q["target"], q["predictions"]) for q in stored] == [(r.target, r.predictions)], stored
    assert abs(stored[0]["rank_correlation"] - r.rank_correlation) < 1e-8, stored
text = open(os.path.join(work, "report.txt"), encoding="utf-8").read()
assert "%.2f  " % model.rank_correlation.iloc[-1] in text, text  # the report table's model column
print("model rank correlation per generation:", list(model.rank_correlation.round(3)))
PY
