#!/usr/bin/python3
"""engine_kda_prefill: the host engine's KDA layers with the kda family's chunked kernel (KDA_CHUNK 16/32/64) against
the token-by-token recurrence (KDA_CHUNK 0), in the same run, on a kimi-linear model's serving trace.

Every engine is the same genome but for its KDA_* values, served by build/bin/engine_serve (bench/engine_serve.cpp)
through the harness's candidate process; the engine's own per-operator clock gives the KDA time. Prints, per KDA_*
setting: the KDA milliseconds of the fastest of --runs runs of the trace, the ratio recurrence / it (above 1: the
chunked kernel is faster), TTFT p50, and whether its greedy tokens equal the recurrence's. --json: one JSON object.
Sizes default to share/examples/engine-kimi-host.yaml's model with prompts of 64-256 tokens (prefill is what the
chunked kernel changes). bench/README.md has the measured figures.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

GEMM = ('MC=64;NC=512;KC=128;MR=4;NR=16;VEC=8;UNROLL=4;PACK=1;LOOP_ORDER="jpi";fuse_qkv=1;fuse_gate_up=1;'
        'fold_norm=1;residual_epilogue=1;prepack=1;kv_block=0;threads=1;max_batch=8;prefill_chunk=128;'
        'schedule="decode_first"')
SETTINGS = ["0,64,2,8", "16,64,2,8", "32,64,2,8", "64,64,2,8", "16,128,2,8", "32,32,4,8"]


def serve(args, kda):
    chunk, dv_tile, unroll, vec = kda.split(",")
    genome = f"{GEMM};KDA_CHUNK={chunk};KDA_DV_TILE={dv_tile};KDA_UNROLL={unroll};KDA_VEC={vec}"
    command = [os.path.join(args.build, "bin", "engine_serve"), "--architecture", "kimi-linear",
               "--layers", str(args.layers), "--hidden", str(args.hidden), "--heads", str(args.heads),
               "--kv-heads", str(args.heads), "--head-dim", str(args.head_dim), "--mlp-hidden", str(args.mlp_hidden),
               "--vocab", str(args.vocab), "--attention-every", "4", "--requests", str(args.requests),
               "--prompt-min", str(args.prompt_min), "--prompt-max", str(args.prompt_max),
               "--output-min", "4", "--output-max", "8", "--concurrency", "1", "--runs", str(args.runs),
               "--genome", genome]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"engine_kda_prefill: engine_serve failed for KDA_* {kda}:\n{done.stderr}{done.stdout}")
    run = json.loads(done.stdout.strip().splitlines()[-1])["runs"][0]
    return {"kda": kda, "kda_ms": run["total_ms"] * run["op_share"]["kda"], "total_ms": run["total_ms"],
            "ttft_p50_ms": run["ttft_p50_ms"], "outputs": run["outputs"]}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--mlp-hidden", type=int, default=688)
    p.add_argument("--vocab", type=int, default=2048)
    p.add_argument("--requests", type=int, default=8)
    p.add_argument("--prompt-min", type=int, default=64)
    p.add_argument("--prompt-max", type=int, default=256)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--kda", action="append", help="CHUNK,DV_TILE,UNROLL,VEC (repeatable; CHUNK 0 is always run)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    settings = ["0,64,2,8"] + [s for s in (args.kda or SETTINGS) if not s.startswith("0,")]
    rows = [serve(args, s) for s in settings]
    base_ms, base_outputs = rows[0]["kda_ms"], rows[0]["outputs"]
    for r in rows:
        r["ratio_vs_recurrence"] = base_ms / r["kda_ms"]
        r["tokens_equal_recurrence"] = r.pop("outputs") == base_outputs
    context = {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
               "host": platform.node(), "cores": os.cpu_count()}
    if args.json:
        print(json.dumps({"schema_version": 1, "benchmark": "engine_kda_prefill", "context": context,
                          "model": {"layers": args.layers, "hidden": args.hidden, "heads": args.heads,
                                    "head_dim": args.head_dim}, "rows": rows}))
        return
    print(f"engine_kda_prefill {context['date']} on {context['host']}: kimi-linear, {args.layers} layers, "
          f"{args.heads} heads of {args.head_dim}, prompts {args.prompt_min}-{args.prompt_max}, best of {args.runs}")
    print(f"{'KDA_CHUNK,DV_TILE,UNROLL,VEC':>30} {'kda ms':>8} {'recurrence/it':>14} {'ttft p50 ms':>12} tokens")
    for r in rows:
        print(f"{r['kda']:>30} {r['kda_ms']:8.1f} {r['ratio_vs_recurrence']:13.2f}x {r['ttft_p50_ms']:12.1f} "
              f"{'equal' if r['tokens_equal_recurrence'] else 'DIFFER'}")


if __name__ == "__main__":
    main()
