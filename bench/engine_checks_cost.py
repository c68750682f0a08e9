#!/usr/bin/env python3
"""What keeping engines honest costs a campaign (bench/README.md, "engine_checks_cost").

Runs engine example campaigns with kforge from --build and reads, per evaluated engine, what the harness spent
keeping it honest (docs/engines.md's figures envelope_ms: the serving envelope in verify(); run_checks_ms: the
checks against the double reference after every run; fresh_engine_ms: a fresh engine for every run), then prints
their share of the campaign's rank time (wall time x ranks that evaluate). With --baseline-build (a build of an
earlier kforge), the same campaigns also run there, interleaved with this build's, and the wall-time ratio is
printed: the whole added cost, measured the other way. Uses the Debian python3 (h5py, pandas) and
share/python/kforge_archive.py; no PyPI.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "share", "python"))
import kforge_archive as ka  # noqa: E402


def run_campaign(build, example, out):
    shutil.rmtree(out, ignore_errors=True)
    started = time.monotonic()
    done = subprocess.run([os.path.join(build, "bin", "kforge"), "run", example, "--out", out],
                          capture_output=True, text=True)
    wall = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"engine_checks_cost: kforge run {example} failed ({done.returncode}):\n{done.stderr}")
    return wall


PARTS = ["envelope_ms", "run_checks_ms", "fresh_engine_ms"]


def honesty_of(out):
    """Seconds per part over every timed engine, and how many engines were timed."""
    m = ka.load_metrics(out)
    parts = {name: float(m[m["name"] == name]["value"].sum()) / 1e3 for name in PARTS}
    return parts, int((m["name"] == PARTS[0]).sum())


def verdicts_of(out):
    """How many records are ok, and the best ok engine's output tokens/s (the campaign's figure)."""
    e = ka.engine_metrics(out)
    ok = e[e["status"] == "ok"]
    return int(len(ok)), float(ok["output_tokens_per_s"].max()) if len(ok) else 0.0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build")
    p.add_argument("--baseline-build", help="an earlier kforge's build folder, timed on the same campaigns")
    p.add_argument("--examples", nargs="+",
                   default=["share/examples/engine-host.yaml", "share/examples/engine-kimi-host.yaml"])
    p.add_argument("--ranks", type=int, default=2, help="ranks evaluating at once (the embedded site: 2)")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="kforge-checks-cost-")
    rows = []
    try:
        for example in args.examples:
            for n in range(args.repeats):
                row = {"example": example, "repeat": n}
                out = os.path.join(work, "run")
                row["wall_s"] = run_campaign(args.build, example, out)
                row["parts_s"], row["engines_timed"] = honesty_of(out)
                row["honesty_s"] = sum(row["parts_s"].values())
                row["ok"], row["best_tokens_per_s"] = verdicts_of(out)
                row["share_of_rank_time"] = row["honesty_s"] / (row["wall_s"] * args.ranks)
                if args.baseline_build:
                    row["baseline_wall_s"] = run_campaign(args.baseline_build, example, out)
                    row["wall_ratio"] = row["wall_s"] / row["baseline_wall_s"]
                    row["baseline_ok"], row["baseline_best_tokens_per_s"] = verdicts_of(out)
                rows.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({"schema_version": 1, "benchmark": "engine_checks_cost", "rows": rows}, indent=1))
        return
    for r in rows:
        line = (f"{r['example']:40s} wall {r['wall_s']:6.1f} s  honesty {r['honesty_s']:5.1f} s over "
                f"{r['engines_timed']} engines = {100 * r['share_of_rank_time']:4.1f}% of rank time ("
                + ", ".join(f"{k[:-3]} {v:.1f} s" for k, v in r["parts_s"].items()) + "); "
                f"{r['ok']} ok, best {r['best_tokens_per_s']:.0f} tokens/s")
        if "baseline_wall_s" in r:
            line += (f"\n{'':40s} earlier kforge: wall {r['baseline_wall_s']:6.1f} s (ratio {r['wall_ratio']:.3f}); "
                     f"{r['baseline_ok']} ok, best {r['baseline_best_tokens_per_s']:.0f} tokens/s")
        print(line)


if __name__ == "__main__":
    main()
