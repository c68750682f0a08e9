"""vLLM as a row of bench/engine_vs_peers.py: the same weights (engine_serve's rounded F32 safetensors) in a model
folder of their own (a Llama config.json written from the model's sizes), the same trace, served by
bench/peers/vllm_cpu.py in vLLM's own environment (build/vllm-venv, made by bench/vllm_venv.sh: vLLM pins a torch
of its own), at the run's precision (fp32 -> float32, bf16 -> bfloat16; vLLM's CPU backend has no int8
weight-only path for a plain checkpoint). vLLM batches with its own scheduler over one generate call and is timed
by wall clock (vllm_cpu.py), not through the harness's loop; its greedy tokens are compared with the reference's."""
import json
import os
import subprocess

from peers.serving import token_agreement

DTYPES = {"fp32": "float32", "bf16": "bfloat16"}


ARCHITECTURES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM"}


def model_folder(work, cfg, tied):
    """work/vllm-model: config.json for the model's architecture and a link to engine_serve's weights."""
    folder = os.path.join(work, "vllm-model")
    os.makedirs(folder, exist_ok=True)
    model_type = cfg.get("model_type", "llama")
    config = {"architectures": [ARCHITECTURES[model_type]], "model_type": model_type, "hidden_size": cfg["hidden"],
              "intermediate_size": cfg["mlp_hidden"], "num_attention_heads": cfg["heads"],
              "num_key_value_heads": cfg["kv_heads"], "head_dim": cfg["head_dim"],
              "num_hidden_layers": cfg["layers"], "vocab_size": cfg["vocab"], "tie_word_embeddings": tied,
              "rope_theta": cfg["rope_theta"], "rms_norm_eps": cfg["norm_eps"], "max_position_embeddings": 4096,
              "hidden_act": "silu", "torch_dtype": "float32", "bos_token_id": 1, "eos_token_id": 2}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    link = os.path.join(folder, "model.safetensors")
    if not os.path.lexists(link):
        os.symlink(os.path.abspath(os.path.join(work, "weights.safetensors")), link)
    return folder


def vllm_peer(args, work, cfg, tied, reference, concurrencies):
    if args.precision not in DTYPES:
        raise NotImplementedError("vLLM's CPU backend has no int8 weight-only path for a plain checkpoint "
                                  "(llama.cpp Q8_0 is the int8 peer)")
    python = os.path.join(args.build, "vllm-venv", "bin", "python")
    if not os.path.exists(python):
        raise ImportError(f"{python} is missing: bench/vllm_venv.sh makes it")
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = [python, os.path.join(here, "vllm_cpu.py"), "--model", model_folder(work, cfg, tied),
           "--trace", os.path.join(work, "trace.json"), "--concurrency", ",".join(map(str, concurrencies)),
           "--dtype", DTYPES[args.precision], "--threads", str(args.threads), "--runs", str(args.runs), "--json"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"vllm_cpu.py failed ({run.returncode}): {run.stderr.strip()[-2000:]}")
    result = json.loads(run.stdout)
    fastest = {}  # --runs N gives N runs per concurrency: the fastest counts, as for every engine
    for r in result["runs"]:
        r["tokens_vs_reference"] = token_agreement(r.pop("outputs"), reference)
        c = r["concurrency"]
        if c not in fastest or r["output_tokens_per_s"] > fastest[c]["output_tokens_per_s"]:
            fastest[c] = r
    result["all_runs"] = result["runs"]
    result["runs"] = [fastest[c] for c in sorted(fastest)]
    result["logits_vs_reference"] = None  # vLLM returns tokens, not logits rows: agreement by tokens only
    return result
