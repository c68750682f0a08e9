#!/usr/bin/python3
"""Checks a finished campaign directory through the archive reader (h5py + pandas) and kforge's JSON report."""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "share", "python"))
import kforge_archive  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("campaign_dir")
    ap.add_argument("report_json")
    ap.add_argument("--generations", type=int, required=True)
    ap.add_argument("--per-generation", type=int, required=True)
    ap.add_argument("--expect-ok", action="store_true", help="every candidate must evaluate ok")
    a = ap.parse_args()

    df = kforge_archive.load_records(a.campaign_dir, with_text=True)
    expected = a.generations * a.per_generation
    assert len(df) == expected, f"{len(df)} records, expected {expected}"
    dup = df[df.duplicated(["candidate_id", "target"], keep=False)]
    assert dup.empty, f"evaluated more than once: {dup[['candidate_id', 'generation']].to_dict('records')}"
    assert sorted(df["generation"].unique()) == list(range(a.generations)), df["generation"].unique()
    if a.expect_ok:
        bad = df[df["status"] != "ok"]
        assert bad.empty, f"not ok: {bad[['candidate_id', 'status', 'evidence']].to_dict('records')}"
    ok = df[df["status"] == "ok"]
    assert (ok["time_median_ms"] > 0).all()
    assert (ok["speedup"] > 0).all()

    with open(a.report_json) as f:
        report = json.load(f)
    for key in ("schema_version", "generations", "evaluations", "status_counts", "best"):
        assert key in report, f"report --json lacks {key}"
    assert report["generations"] == a.generations
    assert report["evaluations"] == expected
    assert sum(report["status_counts"].values()) == expected
    best = report["best"]
    for key in ("id", "generation", "time_ms", "speedup_vs_reference", "baselines"):
        assert key in best, f"best lacks {key}"
    assert math.isclose(best["time_ms"], ok["time_median_ms"].min(), rel_tol=1e-6)
    assert set(best["baselines"]) == {"reference", "openblas"}, best["baselines"]
    print(f"ok: {len(df)} records, best {best['time_ms']:.4f} ms, {best['speedup_vs_reference']:.2f}x reference")


if __name__ == "__main__":
    main()
