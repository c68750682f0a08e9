#!/usr/bin/env python3
"""Checks DIR/confirmation.h5 read by h5py (share/python/kforge_archive.py) against `kforge report --json`.

usage: check_confirmation.py DIR REPORT.json --top K --rounds N --baselines B1,B2
Exits non-zero with a message on the first disagreement.
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "share", "python"))
import kforge_archive as ka  # noqa: E402


def close(a, b):
    if a is None or b is None:
        return (a is None or math.isnan(a)) and (b is None or math.isnan(b))
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("report")
    p.add_argument("--top", type=int, required=True)
    p.add_argument("--rounds", type=int, required=True)
    p.add_argument("--baselines", required=True)
    a = p.parse_args()
    baselines = a.baselines.split(",")
    table = ka.load_confirmation(a.dir)
    samples = ka.load_confirmation_samples(a.dir)
    meta = table.attrs["confirmation"]
    assert meta["top"] == a.top and meta["rounds"] == a.rounds, meta
    assert table.attrs["confirmation_schema_version"] == 1
    candidates = table.candidate_id.unique()
    assert 1 <= len(candidates) <= a.top, candidates
    assert len(table) == len(candidates) * len(baselines), len(table)
    assert sorted(table.baseline.unique()) == sorted(baselines)
    # One sample per round for every candidate and every baseline: the pairs the intervals were drawn from.
    assert len(samples) == a.rounds * (len(candidates) + len(baselines)), len(samples)
    assert sorted(samples["round"].unique()) == list(range(a.rounds))
    for _, row in table.iterrows():
        assert row.rounds == a.rounds, row
        assert row.ci_low <= row.speedup <= row.ci_high, row
        # The speedup is the geometric mean of the per-round ratios: recompute it from the raw samples.
        cand = samples[samples.subject == row.candidate_id].set_index("round").time_ms
        base = samples[samples.subject == "baseline:" + row.baseline].set_index("round").time_ms
        logs = [math.log(base[r] / cand[r]) for r in range(a.rounds)]
        assert close(math.exp(sum(logs) / len(logs)), row.speedup), (row, logs)
        expected = "faster" if row.ci_low > 1 else "slower" if row.ci_high < 1 else "not_faster"
        assert row.verdict == expected, row
    report = json.load(open(a.report))
    rows = report["confirmation"]["speedups"]
    assert len(rows) == len(table)
    for j, (_, h) in zip(rows, table.iterrows(), strict=True):
        assert j["id"] == h.candidate_id and j["baseline"] == h.baseline and j["verdict"] == h.verdict, (j, h)
        for key in ("speedup", "ci_low", "ci_high", "candidate_ms", "baseline_ms"):
            assert close(j[key], float(h[key])), (key, j[key], h[key])
        if h.verdict == "not_faster":
            want = f"not faster than {h.baseline} (interval {h.ci_low:.2f}-{h.ci_high:.2f})"
            assert j["text"] == want, (j["text"], want)
    head = report["headline"]
    assert head["confirmed"] is True, head
    assert head["id"] == report["best"]["id"], head
    match = table[(table.candidate_id == head["id"]) & (table.baseline == head["baseline"])]
    assert len(match) == 1 and close(head["speedup"], float(match.speedup.iloc[0])), (head, match)
    print(f"confirmation ok: {len(table)} speedups of {len(candidates)} candidate(s) over {a.rounds} rounds; "
          f"headline: {head['text']}")


if __name__ == "__main__":
    main()
