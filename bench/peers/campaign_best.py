"""The fastest verified engine of a finished campaign at one precision, for bench/engine_vs_peers.py --best.

Runs under Debian's python3 (h5py and pandas, as share/python/kforge_archive.py needs), not the peers' environment:
  /usr/bin/python3 bench/peers/campaign_best.py CAMPAIGN_DIR PRECISION
prints one JSON object {"id", "generation", "params", "time_ms"}: among the records with status ok whose genome
declares weights=PRECISION (no `weights` gene means fp32, its default), the one with the smallest median time (an
engine's time is ms per output token). Exit 1 naming the folder and precision when the campaign has none."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "share", "python"))
import kforge_archive  # noqa: E402
from kforge_speedups import parse_params  # noqa: E402  (the canonical genome text, quoting included)


def declared_precision(params):
    return parse_params(params).get("weights", "fp32")


def campaign_best(folder, precision):
    records = kforge_archive.load_records(folder)
    ok = records[(records["status"] == "ok") & (records["family"] == "engine")]
    ok = ok[ok["params"].map(declared_precision) == precision]
    if ok.empty:
        return None
    best = ok.loc[ok["time_median_ms"].idxmin()]
    return {"id": best["candidate_id"], "generation": int(best["generation"]), "params": best["params"],
            "time_ms": float(best["time_median_ms"])}


def main(argv):
    if len(argv) != 3:
        print("usage: campaign_best.py CAMPAIGN_DIR PRECISION", file=sys.stderr)
        return 2
    try:
        best = campaign_best(argv[1], argv[2])
    except (OSError, KeyError, kforge_archive.ArchiveError) as e:
        print(f"campaign_best: {argv[1]}: {e}", file=sys.stderr)
        return 1
    if best is None:
        print(f"campaign_best: {argv[1]} has no verified engine with weights={argv[2]}", file=sys.stderr)
        return 1
    print(json.dumps(best))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
