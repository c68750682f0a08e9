#!/usr/bin/env python3
"""bench/engine_vs_peers: kforge's best engine against PyTorch eager and llama.cpp on the same model, weights and
trace (bench/README.md). engine_serve (bench/engine_serve.cpp) writes the weights (safetensors) and the trace, serves
it with each kforge engine given and with the double reference engine; this script serves the same trace with the
peers through the same closed loop (peers/serving.py), prints output tokens/s at each concurrency, the same-run
ratios best kforge engine / peer, greedy-token agreement with the reference engine, and the peers' logits against
the reference engine's at every step of request 0 (an independent check of the reference).

Run it through bench/engine_vs_peers.sh, which makes the virtual environment with the peers installed. Needs only
the standard library until a peer runs: torch, safetensors, numpy, gguf and llama_cpp are imported when used."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers.serving import Policy, load_trace, serve, token_agreement  # noqa: E402
from peers.vllm_peer import vllm_peer  # noqa: E402

# What the peers get from the serving loop: every closed-loop request in flight, whole prompts per step (the
# reference baseline's policy, baseline_policy() in kernels/engine/include/kforge/engine/serving_verdict.hpp).
PEER_POLICY = Policy(max_batch=16, prefill_chunk=256, decode_first=True)
# kforge engine genomes for when none is given (hand-picked, not searched: an engine campaign's best goes in with
# --source/--genome): every fusion, prepacked weights, each panel prefetched 1 KB ahead, two threads, 64-token
# prefill chunks; 8 x 32 register tiles of 16-float vectors (AVX-512 width), and the gemm family's demo-best 4 x 16
# tiles of 8. The best of them at each concurrency is compared.
_COMMON = ('fuse_qkv=1;fuse_gate_up=1;fold_norm=1;residual_epilogue=1;prepack=1;kv_block=0;threads=2;max_batch=8;'
           'schedule="decode_first";MC=64;NC=256;KC=256;LOOP_ORDER="jpi";prefill_chunk=64;PACK=1;prefetch=1024;')
DEFAULT_GENOMES = [_COMMON + "MR=8;NR=32;VEC=16;UNROLL=4", _COMMON + "MR=4;NR=16;VEC=8;UNROLL=2"]
MODEL_KEYS = ["layers", "hidden", "heads", "kv_heads", "head_dim", "mlp_hidden", "vocab", "rope_theta", "norm_eps"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default="build", help="kforge build folder (engine_serve in BUILD/bin)")
    p.add_argument("--campaign", help="take the model and workload from this campaign file (needs PyYAML)")
    for key, default in [("layers", 4), ("hidden", 256), ("heads", 8), ("kv_heads", 2), ("head_dim", 32),
                         ("mlp_hidden", 768), ("vocab", 1024), ("weight_seed", 1), ("trace_seed", 1),
                         ("requests", 16), ("prompt_min", 32), ("prompt_max", 128), ("output_min", 16),
                         ("output_max", 64)]:
        p.add_argument("--" + key.replace("_", "-"), dest=key, type=int, default=default)
    p.add_argument("--rope-theta", dest="rope_theta", type=float, default=10000.0)
    p.add_argument("--norm-eps", dest="norm_eps", type=float, default=1e-5)
    p.add_argument("--untied", action="store_true", help="an LM head of its own (default: tied to the embedding)")
    p.add_argument("--weights-file", dest="weights",
                   help="serve this weights file (safetensors or HDF5) instead of random weights")
    p.add_argument("--model", help="a Hugging Face model folder (docs/engines.md, 'Model folders'): its config.json "
                                   "and weights replace the size options")
    p.add_argument("--genome", action="append", help="kforge engine genome (canonical text); repeat for several")
    p.add_argument("--source", help="kforge engine source file (its batching policy from the first --genome)")
    p.add_argument("--best", metavar="CAMPAIGN_DIR",
                   help="also run the fastest verified engine of this finished campaign at --weights (first, before "
                        "any --genome; bench/peers/campaign_best.py reads its archive with Debian's python3)")
    p.add_argument("--weights", dest="precision", choices=["fp32", "bf16", "int8"],
                   help="the precision every engine serves (docs/engines.md, 'Precisions'): kforge's genomes get "
                        "weights=P, llama.cpp F32 / BF16 / Q8_0, PyTorch fp32 / bf16 (none for int8), vLLM "
                        "float32 / bfloat16 (none for int8). Default: the campaign's one `weights` value, else fp32")
    p.add_argument("--concurrency", default="1,8")
    p.add_argument("--threads", type=int, default=2, help="threads for the peers (torch, llama.cpp)")
    p.add_argument("--runs", type=int, default=1,
                   help="serve each trace this often, report the fastest run (every engine alike)")
    p.add_argument("--peers", default="torch,llama.cpp,vllm",
                   help="of torch, llama.cpp, vllm (vLLM needs build/vllm-venv: bench/vllm_venv.sh)")
    p.add_argument("--work", help="keep the weights, trace, GGUF and outputs in this folder")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = p.parse_args(argv)
    if args.campaign:
        apply_campaign(args)
    args.precision = args.precision or "fp32"
    if args.best:
        args.genome = [campaign_best(args.best, args.precision)] + (args.genome or [])
    return args


def campaign_best(folder, precision):
    """The genome of the campaign's fastest verified engine at this precision (bench/peers/campaign_best.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    run = subprocess.run(["/usr/bin/python3", os.path.join(here, "peers", "campaign_best.py"), folder, precision],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"engine_vs_peers: --best: {run.stderr.strip()}")
    best = json.loads(run.stdout)
    print(f"engine_vs_peers: kforge #0 is {folder}'s best {precision} engine: {best['id']} (generation "
          f"{best['generation']}, {best['time_ms']:.3f} ms per output token in the campaign)", file=sys.stderr)
    return best["params"]


def apply_campaign(args):
    """The model and workload sections of a campaign file (docs/campaign-schema.md, "Engine campaigns")."""
    import yaml
    with open(args.campaign) as f:
        doc = yaml.safe_load(f)
    model, workload = doc.get("model") or {}, doc.get("workload") or {}
    if model.get("architecture", "llama") != "llama":
        raise SystemExit(f"{args.campaign}: the peers serve the llama architecture only")
    for key in MODEL_KEYS:
        if key in model:
            setattr(args, key, model[key])
    args.head_dim = model.get("head_dim", args.hidden // args.heads)
    args.weight_seed = model.get("seed", args.weight_seed)
    args.untied = not model.get("tied_embeddings", True)
    here = os.path.dirname(os.path.abspath(args.campaign))
    if model.get("weights"):
        args.weights = os.path.join(here, model["weights"])
    if model.get("path"):
        args.model = os.path.join(here, model["path"])
    listed = ((doc.get("space") or {}).get("parameters") or {}).get("weights")
    if args.precision is None and isinstance(listed, list) and len(listed) == 1:
        args.precision = listed[0]  # the precision the campaign evolves
    args.trace_seed = workload.get("seed", args.trace_seed)
    args.requests = workload.get("requests", args.requests)
    for key, dest in (("prompt_tokens", "prompt"), ("output_tokens", "output")):
        value = workload.get(key)
        if value is not None:
            lo, hi = (value["min"], value["max"]) if isinstance(value, dict) else (value, value)
            setattr(args, dest + "_min", lo)
            setattr(args, dest + "_max", hi)


def with_precision(genome, precision):
    """The genome with weights=precision; one that names another precision is refused: every engine of a run, and
    the weights the peers get, are at one precision."""
    if "weights=" not in genome:
        return f'{genome};weights="{precision}"'
    if f'weights="{precision}"' not in genome:
        raise SystemExit(f"engine_vs_peers: the genome {genome!r} names another precision than --weights {precision}")
    return genome


def engine_serve(args, work, genome, first):
    genome = with_precision(genome, args.precision)
    cmd = [os.path.join(args.build, "bin", "engine_serve"), "--concurrency", args.concurrency,
           "--runs", str(args.runs), "--genome", genome]
    for key in ["layers", "hidden", "heads", "kv_heads", "head_dim", "mlp_hidden", "vocab", "weight_seed",
                "trace_seed", "requests", "prompt_min", "prompt_max", "output_min", "output_max", "rope_theta",
                "norm_eps"]:
        cmd += ["--" + key.replace("_", "-"), str(getattr(args, key))]
    if args.untied:
        cmd.append("--untied")
    if args.weights:
        cmd += ["--weights", args.weights]
    if args.model:
        cmd += ["--model", args.model]
    if args.source:
        cmd += ["--source", args.source]
    if first:
        cmd += ["--weights-out", os.path.join(work, "weights.safetensors"), "--trace-out",
                os.path.join(work, "trace.json"), "--reference", "--reference-logits-out",
                os.path.join(work, "reference_logits.f64")]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"engine_serve failed ({run.returncode}): {run.stderr.strip()}")
    return json.loads(run.stdout)


def compare_logits(reference, got):
    """E1's metric (engine_tolerance.hpp): |got - ref| per row, relative to max(max|ref row|, 1)."""
    import numpy as np
    diff = np.abs(np.asarray(got, np.float64) - reference)
    scale = np.maximum(np.abs(reference).max(axis=1, keepdims=True), 1.0)
    return {"max_abs": float(diff.max()), "max_rel": float((diff / scale).max()), "rows": int(reference.shape[0])}


def teacher_forced_logits(engine, prompt, tokens):
    """Request 0 in slot 0: the prompt's last logits, then one row per reference token fed back."""
    rows = [engine.step([(0, 0, len(prompt))], list(prompt))[0]]
    for i, tok in enumerate(tokens[:-1]):
        rows.append(engine.step([(0, len(prompt) + i, 1)], [tok])[0])
    import numpy as np
    return np.stack([np.asarray(r, dtype=np.float64) for r in rows])


def run_peer(name, make_engine, trace, reference, ref_logits, concurrencies, runs, argmax_fn):
    """Serves the trace at each concurrency (a fresh engine for each), and checks request 0's logits."""
    out = {"name": name, "runs": []}
    req0 = trace["requests"][0]
    eng = make_engine(1)
    out["logits_vs_reference"] = compare_logits(ref_logits, teacher_forced_logits(eng, req0["prompt"],
                                                                                  reference[0]))
    serve(trace["requests"][:1], 1, PEER_POLICY, eng.step, argmax_fn)  # warm-up (allocators, thread pools)
    for c in concurrencies:
        eng = make_engine(c)
        results = sorted((serve(trace["requests"], c, PEER_POLICY, eng.step, argmax_fn) for _ in range(runs)),
                         key=lambda r: r["output_tokens_per_s"])
        r = results[-1]
        r["tokens_vs_reference"] = token_agreement(r.pop("outputs"), reference)
        out["runs"].append(r)
    return out


def torch_peer(args, trace, tensors, cfg, reference, ref_logits, concurrencies):
    import torch

    from peers.llama_torch import TorchLlama
    if args.precision == "int8":
        raise NotImplementedError("PyTorch eager has no int8 weight-only CPU path its users run (llama.cpp Q8_0 is "
                                  "the int8 peer)")
    dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
    torch.set_num_threads(args.threads)
    max_ctx = max(len(r["prompt"]) + r["output_tokens"] for r in trace["requests"])
    return run_peer("pytorch-eager" + ("-bf16" if args.precision == "bf16" else ""),
                    lambda c: TorchLlama(cfg, tensors, c, max_ctx, dtype), trace, reference, ref_logits,
                    concurrencies, args.runs, lambda row: int(torch.argmax(row.float())))


def llama_cpp_peers(args, work, trace, tensors, cfg, reference, ref_logits, concurrencies):
    """llama.cpp twice: with its default fp16 KV cache (what its users run) and with an fp32 one (kforge's
    precision); the weights F32, BF16 or Q8_0 (--weights) in both."""
    import numpy as np

    from peers.llama_gguf import GGUF_TYPES, LlamaCpp, write_gguf
    max_ctx = max(len(r["prompt"]) + r["output_tokens"] for r in trace["requests"])
    gguf_type = GGUF_TYPES[args.precision][0]
    path = os.path.join(work, f"model-{gguf_type.lower()}.gguf")
    suffix = "" if args.precision == "fp32" else "-" + gguf_type  # llama.cpp-BF16, llama.cpp-Q8_0
    write_gguf(path, cfg, tensors, max_ctx, args.precision)
    step_tokens = max(min(len(r["prompt"]), PEER_POLICY.prefill_chunk) for r in trace["requests"]) * \
        max(concurrencies)
    return [run_peer(name, lambda c, f32=f32: LlamaCpp(path, cfg, c, max_ctx, step_tokens, args.threads, f32), trace,
                     reference, ref_logits, concurrencies, args.runs, lambda row: int(np.argmax(row)))
            for name, f32 in ((f"llama.cpp{suffix}", False), (f"llama.cpp{suffix}-f32kv", True))]


# Bytes per matrix weight a peer reads (its storage type), for the decode bandwidth fraction.
PEER_WEIGHT_BYTES = {"pytorch-eager": 4.0, "pytorch-eager-bf16": 2.0, "llama.cpp": 4.0, "llama.cpp-f32kv": 4.0,
                     "llama.cpp-BF16": 2.0, "llama.cpp-BF16-f32kv": 2.0, "llama.cpp-Q8_0": 34 / 32,
                     "llama.cpp-Q8_0-f32kv": 34 / 32}


def add_bandwidth_fractions(kforge_runs, peers, tensors):
    """Each engine's decode (weight bytes one step reads / its median inter-token latency) against the node's read
    bandwidth engine_serve measured in this run (physical_floor.hpp), at the concurrency-1 point; vLLM, timed by
    wall clock only, gets none."""
    gbs = kforge_runs[0].get("node_read_bandwidth_gbs", 0.0)
    matrices = sum(t.size for t in tensors.values() if t.ndim == 2)
    vectors = sum(t.size for t in tensors.values() if t.ndim == 1)
    if "lm_head.weight" in tensors:  # untied: a step reads its tokens' rows of the embedding only
        matrices -= tensors["model.embed_tokens.weight"].size
    for p in peers:
        per_weight = PEER_WEIGHT_BYTES.get(p["name"])
        for r in p["runs"]:
            if per_weight and gbs > 0 and r.get("itl_p50_ms", 0) > 0:
                step_bytes = matrices * per_weight + vectors * 4.0
                r["decode_bandwidth_fraction"] = step_bytes / (r["itl_p50_ms"] * 1e-3) / (gbs * 1e9)
    return gbs


def report(args, kforge_runs, peers, skipped, concurrencies):
    best = {c: max((r for e in kforge_runs for r in e["runs"] if r["concurrency"] == c),
                   key=lambda r: r["output_tokens_per_s"]) for c in concurrencies}
    ratios = {}
    for p in peers:
        for r in p["runs"]:
            ratios[f"kforge/{p['name']}@{r['concurrency']}"] = best[r["concurrency"]]["output_tokens_per_s"] / \
                r["output_tokens_per_s"]
    return {"schema_version": 1, "benchmark": "engine_vs_peers", "context": kforge_runs[0]["context"],
            "model": kforge_runs[0]["model"], "threads": args.threads, "weights": args.precision,
            "kforge": [{"genome": e["engine"]["genome"], "runs": e["runs"]} for e in kforge_runs],
            "best_kforge_tokens_per_s": {str(c): best[c]["output_tokens_per_s"] for c in concurrencies},
            "peers": peers, "skipped": skipped, "ratios": ratios,
            "node_read_bandwidth_gbs": kforge_runs[0].get("node_read_bandwidth_gbs", 0.0)}


def print_table(result, concurrencies):
    def bandwidth(runs):  # the decode bandwidth fraction at the first concurrency (1: one decode per step)
        f = runs[0].get("decode_bandwidth_fraction")
        return f"{f:>8.0%}" if f else f"{'-':>8}"
    print(f"node read bandwidth {result['node_read_bandwidth_gbs']:.1f} GB/s; 'bw' = decode weight bytes / ITL p50 at "
          f"concurrency {concurrencies[0]}, as a share of it")
    print(f"{'engine':<22}" + "".join(f"{'tok/s @' + str(c):>14}" for c in concurrencies) + f"{'bw':>8}" +
          f"{'tokens = ref':>16}{'logits max abs / rel':>26}")
    for i, e in enumerate(result["kforge"]):
        by_c = {r["concurrency"]: r for r in e["runs"]}
        agree = all(r["tokens_vs_reference"]["identical"] for r in e["runs"])
        # engine_serve checked every request of every run against the reference (it exits 1 otherwise): the largest
        # logit error relative to its row, which sees a skipped layer where greedy tokens may not.
        rel = max(r["max_logit_rel_error"] for r in e["runs"])
        print(f"{'kforge #' + str(i):<22}" + "".join(f"{by_c[c]['output_tokens_per_s']:>14.1f}" for c in
                                                   concurrencies) + bandwidth(e["runs"]) +
              f"{str(agree):>16}{'all requests':>14} / {rel:.2e}")
    for p in result["peers"]:
        by_c = {r["concurrency"]: r for r in p["runs"]}
        agree = all(r["tokens_vs_reference"]["identical"] for r in p["runs"])
        lg = p["logits_vs_reference"]
        logits = f"{lg['max_abs']:>14.2e} / {lg['max_rel']:.2e}" if lg else f"{'tokens only':>14}"
        print(f"{p['name']:<22}" + "".join(f"{by_c[c]['output_tokens_per_s']:>14.1f}" for c in concurrencies) +
              bandwidth(p["runs"]) + f"{str(agree):>16}{logits}")
    for name, why in result["skipped"].items():
        print(f"{name:<22}skipped: {why}")
    for key, value in result["ratios"].items():
        print(f"ratio {key:<34} {value:.2f}x")


def main(argv):
    args = parse_args(argv)
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    work = args.work or tempfile.mkdtemp(prefix="kforge-peers-")
    os.makedirs(work, exist_ok=True)
    started = time.time()
    kforge_runs = [engine_serve(args, work, g, i == 0) for i, g in enumerate(args.genome or DEFAULT_GENOMES)]
    reference = kforge_runs[0]["reference"]["outputs"]
    for e in kforge_runs:
        for r in e["runs"]:
            r["tokens_vs_reference"] = token_agreement(r.pop("outputs"), reference)
    trace = load_trace(os.path.join(work, "trace.json"))
    cfg = {k: kforge_runs[0]["model"][k] for k in MODEL_KEYS}  # as engine_serve read them (a model folder's too)
    # Qwen2's q/k/v biases and Qwen3's q/k norms travel to every peer (their tensors are in the weights file, and
    # model_type, Hugging Face's name, is llama.cpp's too); Llama 3's RoPE scaling does not yet.
    served = kforge_runs[0]["model"]
    cfg["model_type"] = "qwen3" if served.get("qk_norm") else "qwen2" if served.get("qkv_bias") else "llama"
    if served.get("rope_scaling_factor"):
        raise SystemExit("engine_vs_peers: the model has Llama 3's RoPE scaling, which the peers' model writers here "
                         "do not carry yet (bench/engine_serve alone gives kforge's figures)")
    import numpy as np
    from safetensors.numpy import load_file
    tensors = load_file(os.path.join(work, "weights.safetensors"))
    ref_logits = np.fromfile(os.path.join(work, "reference_logits.f64"), np.float64).reshape(-1, cfg["vocab"])
    peers, skipped = [], {}
    wanted = args.peers.split(",")
    for name, fn in [("torch", lambda: [torch_peer(args, trace, tensors, cfg, reference, ref_logits,
                                                    concurrencies)]),
                     ("llama.cpp", lambda: llama_cpp_peers(args, work, trace, tensors, cfg, reference, ref_logits,
                                                           concurrencies)),
                     ("vllm", lambda: [vllm_peer(args, work, cfg, "lm_head.weight" not in tensors, reference,
                                                 concurrencies)])]:
        if name not in wanted:
            continue
        try:
            peers.extend(fn())
        except ImportError as e:
            skipped[name] = f"not installed: {e}"
        except NotImplementedError as e:
            skipped[name] = str(e)
        except Exception as e:  # a peer that fails is reported as such; the others still are
            skipped[name] = f"failed: {type(e).__name__}: {e}"
    add_bandwidth_fractions(kforge_runs, peers, tensors)
    result = report(args, kforge_runs, peers, skipped, concurrencies)
    result["wall_s"] = round(time.time() - started, 1)
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result, concurrencies)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
