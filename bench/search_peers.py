#!/usr/bin/env python3
"""search_peers: the strategies users would pick instead of kforge's, on the same measured spaces, budgets,
repeats and metric as bench/search_efficiency (fraction of optimum = best time in the space / best time found,
averaged over repeats). Kernel Tuner's strategies run in its simulation mode over the same caches; Optuna's
TPE samples the same value lists. Run through bench/search_peers.sh, which makes the virtual environment.

How each counts an evaluation (the budget):
  kernel_tuner  max_fevals counts unique configurations evaluated, failed ones included; a configuration
                asked again is answered from its cache and not counted again.
  optuna-tpe    every trial counts, a repeated configuration and a failed one included (Optuna has no
                notion of a repeat); a configuration outside the space (violating the constraints) counts
                too, as a failure, since TPE samples each parameter on its own.
  kforge        every evaluation counts, failed ones included; its strategies never repeat a configuration
                and ask only for valid ones.
"""
import argparse
import gzip
import json
import math
import os
import sys
import tempfile
import warnings

KT_STRATEGIES = ["random_sample", "genetic_algorithm", "dual_annealing", "diff_evo", "mls", "greedy_ils",
                 "simulated_annealing", "bayes_opt"]


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as fh:
        return json.load(fh)


def space_of(doc):
    keys = doc["tune_params_keys"]
    times = {}
    for key, entry in doc["cache"].items():
        t = entry.get("time")
        times[key] = float(t) if isinstance(t, (int, float)) else math.inf
    return keys, doc["tune_params"], times


def key_of(keys, params):
    return ",".join(str(params[k]) for k in keys)


def fraction(best_space, best_found):
    return best_space / best_found if math.isfinite(best_found) else 0.0


def run_kernel_tuner(strategy, plain_cache, doc, budget, seed):
    import kernel_tuner
    import numpy as np
    keys, tune_params, times = space_of(doc)
    np.random.seed(seed)
    import random
    random.seed(seed)
    # The cache holds exactly the valid configurations, so validity is membership in it.
    def restrictions(*values):  # called with one dict, or with every parameter's value in keys order
        if len(values) == 1 and isinstance(values[0], dict):
            return key_of(keys, values[0]) in times
        return ",".join(str(v) for v in values) in times
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = kernel_tuner.tune_kernel(
            doc["kernel_name"], "", doc["problem_size"], [], tune_params, restrictions=restrictions,
            strategy=strategy, strategy_options={"max_fevals": budget}, cache=plain_cache,
            simulation_mode=True, quiet=True, verbose=False)
    best = math.inf
    for r in results[:budget]:
        t = r.get("time")
        if isinstance(t, (int, float)):
            best = min(best, float(t))
    return best


def run_optuna(doc, budget, seed):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    keys, tune_params, times = space_of(doc)
    worst = max(t for t in times.values() if math.isfinite(t))
    best = [math.inf]

    def objective(trial):
        params = {k: trial.suggest_categorical(k, tune_params[k]) for k in keys}
        t = times.get(key_of(keys, params), math.inf)  # outside the space: a failure
        best[0] = min(best[0], t)
        return t if math.isfinite(t) else 2 * worst

    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed), direction="minimize")
    study.optimize(objective, n_trials=budget)
    return best[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", nargs="+", required=True)
    ap.add_argument("--budgets", default="25,100,400")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--strategies", default=",".join(KT_STRATEGIES + ["optuna-tpe"]))
    ap.add_argument("--kforge-json", help="search_efficiency --json output to print in the same table")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    strategies = args.strategies.split(",")
    spaces = []
    tmp = tempfile.mkdtemp(prefix="kforge-peers-")
    for path in args.cache:
        doc = load(path)
        name = os.path.basename(path).split(".json")[0]
        plain = os.path.join(tmp, name + ".json")  # Kernel Tuner reads plain JSON caches only
        with open(plain, "w") as fh:
            json.dump(doc, fh)
        _, _, times = space_of(doc)
        spaces.append((name, doc, plain, min(times.values())))
    rows = {}  # (budget, label) -> [fraction per space]
    if args.kforge_json:
        with open(args.kforge_json) as fh:
            for r in json.load(fh)["results"]:
                label = "kforge " + r["strategy"] + ("" if r["prior"] == "none" else " +" + r["prior"])
                rows.setdefault((r["budget"], label), {})[r["space"]] = r["mean_fraction"]
    for b in budgets:
        for s in strategies:
            label = ("kernel_tuner " if s != "optuna-tpe" else "") + s
            for name, doc, plain, best_space in spaces:
                total = 0.0
                for r in range(args.repeats):
                    seed = (args.seed * 1000003 + b * 7919 + r) % (2**31)
                    found = run_optuna(doc, b, seed) if s == "optuna-tpe" else \
                        run_kernel_tuner(s, plain, doc, b, seed)
                    total += fraction(best_space, found)
                rows.setdefault((b, label), {})[name] = total / args.repeats
                print(f"  {label} {name} budget {b}: {total / args.repeats:.3f}", file=sys.stderr, flush=True)
    names = [n for n, *_ in spaces]
    print(f"search_peers: {len(names)} spaces, {args.repeats} repeats, fraction of optimum (mean over repeats)")
    for i, n in enumerate(names):
        print(f"  [{i + 1}] {n}")
    for b in budgets:
        print(f"budget {b:<4} {'strategy':<34}" + "".join(f"   [{i + 1}]" for i in range(len(names))) + "  average")
        for (bb, label), per in rows.items():
            if bb != b:
                continue
            vals = [per.get(n, float("nan")) for n in names]
            print(f"            {label:<34}" + "".join(f" {v:.3f}" for v in vals) +
                  f"  {sum(vals) / len(vals):.3f}")


if __name__ == "__main__":
    main()
