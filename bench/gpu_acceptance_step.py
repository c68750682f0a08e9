#!/usr/bin/env python3
"""JSON pieces of bench/gpu-acceptance.sh (stdlib only: runs on the bare GPU machine and in the no-GPU test).

  gpu_acceptance_step.py NAME STATUS SECONDS REASON [FIGURES.json]   one step, as one JSON line
  gpu_acceptance_step.py --gtest-figures REPORT.json...              test counts of GoogleTest JSON reports
  gpu_acceptance_step.py --summary STEPS.jsonl WALL_S BUDGET_S GPU TARGET BUNDLE
"""
import json
import sys

STATUSES = ("passed", "failed", "timeout", "skipped")


def step(name, status, seconds, reason, figures_path=None):
    if status not in STATUSES:
        sys.exit(f"unknown status {status}")
    out = {"step": name, "status": status, "seconds": int(seconds), "reason": reason or None}
    if status != "passed" and not reason:
        sys.exit(f"step {name}: a {status} step needs a reason")
    if figures_path:
        try:
            with open(figures_path, encoding="utf-8") as f:
                out["figures"] = json.load(f)
        except (OSError, ValueError) as e:
            out["figures_error"] = f"{figures_path}: {e}"
    return out


def gtest_figures(paths):
    totals = {"tests": 0, "failures": 0, "skipped": 0, "skip_reasons": {}, "skipped_tests": []}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        for suite in report.get("testsuites", []):
            for test in suite.get("testsuite", []):
                totals["tests"] += 1
                if test.get("failures"):
                    totals["failures"] += 1
                if test.get("result") == "SKIPPED":
                    totals["skipped"] += 1
                    totals["skipped_tests"].append(f"{test.get('classname')}.{test.get('name')}")
                    # GoogleTest 1.12 writes no skip message into JSON; acceptance.log has it.
                    why = (test.get("skipped") or [{}])[0].get("message", "").strip().splitlines()
                    key = why[-1] if why else "reason in acceptance.log"
                    totals["skip_reasons"][key] = totals["skip_reasons"].get(key, 0) + 1
    return totals


def summary(steps_path, wall_s, budget_s, gpu, target, bundle):
    with open(steps_path, encoding="utf-8") as f:
        steps = [json.loads(line) for line in f if line.strip()]
    counts = {s: sum(1 for x in steps if x["status"] == s) for s in STATUSES}
    return {"schema_version": 1, "benchmark": "gpu_acceptance", "wall_s": int(wall_s), "budget_s": int(budget_s),
            "gpu": gpu or None, "target": target or None, "bundle": bundle, "counts": counts,
            "ok": counts["failed"] == 0 and counts["timeout"] == 0, "steps": steps}


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "--gtest-figures":
        print(json.dumps(gtest_figures(a[1:])))
    elif a and a[0] == "--summary" and len(a) == 7:
        print(json.dumps(summary(*a[1:]), indent=2))
    elif len(a) in (4, 5):
        print(json.dumps(step(*a)))
    else:
        sys.exit(__doc__)
