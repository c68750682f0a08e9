#!/usr/bin/env python3
"""Writes a Hugging Face model folder with random weights at a real model's shape, for tests and benchmarks, so that
nothing needs downloading: config.json (the architecture's own keys, as the model's hub folder has them) and the
weights as safetensors, one file or shards with model.safetensors.index.json.

    tools/make-model-folder.py --shape smollm-135m --dtype bf16 --out models/smollm-135m

Shapes: smollm-135m (LlamaForCausalLM, tied), qwen2.5-0.5b (Qwen2ForCausalLM: q/k/v biases, tied), qwen3-0.6b
(Qwen3ForCausalLM: per-head q/k norms, tied), tinyllama-1.1b (LlamaForCausalLM, untied), llama3.2-1b
(LlamaForCausalLM with Llama 3's RoPE scaling, tied), and tiny (a 2-layer llama for quick tests; tiny-qwen2 and
tiny-qwen3 the same as those architectures; tiny-text the same with a vocabulary of 1024, room for a tokenizer, and
heads of 32, a size vLLM's CPU attention takes). The weights are uniform with the scales of docs/engines.md
("Random weights"), so activations stay O(1) through every layer and logits spread.

With --tokenizer it also writes tokenizer.json and tokenizer_config.json: a byte-level BPE tokenizer of the model's
vocabulary size (GPT-2's split and byte alphabet, the bos/eos ids as special tokens, merges made from a seeded
random walk over letters rather than learned from text), so that text goes in and out of kforge serve, vLLM and
`vllm bench serve` alike. It is not the model's real tokenizer: a random-weight model has none.
Debian's python3 with numpy; no PyPI package.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np

SHAPES = {
    "smollm-135m": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 576,
                    "intermediate_size": 1536, "num_attention_heads": 9, "num_key_value_heads": 3,
                    "num_hidden_layers": 30, "vocab_size": 49152, "tie_word_embeddings": True,
                    "rope_theta": 10000.0, "rms_norm_eps": 1e-5, "max_position_embeddings": 2048,
                    "bos_token_id": 0, "eos_token_id": 0},
    "qwen2.5-0.5b": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896,
                     "intermediate_size": 4864, "num_attention_heads": 14, "num_key_value_heads": 2,
                     "num_hidden_layers": 24, "vocab_size": 151936, "tie_word_embeddings": True,
                     "rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "max_position_embeddings": 32768,
                     "use_sliding_window": False, "sliding_window": 32768, "max_window_layers": 24,
                     "bos_token_id": 151643, "eos_token_id": 151643},
    "qwen3-0.6b": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
                   "intermediate_size": 3072, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
                   "num_hidden_layers": 28, "vocab_size": 151936, "tie_word_embeddings": True,
                   "rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "max_position_embeddings": 40960,
                   "use_sliding_window": False, "sliding_window": None, "max_window_layers": 28,
                   "bos_token_id": 151643, "eos_token_id": 151645},
    "tinyllama-1.1b": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
                       "intermediate_size": 5632, "num_attention_heads": 32, "num_key_value_heads": 4,
                       "num_hidden_layers": 22, "vocab_size": 32000, "tie_word_embeddings": False,
                       "rope_theta": 10000.0, "rms_norm_eps": 1e-5, "max_position_embeddings": 2048,
                       "bos_token_id": 1, "eos_token_id": 2},
    "llama3.2-1b": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
                    "intermediate_size": 8192, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
                    "num_hidden_layers": 16, "vocab_size": 128256, "tie_word_embeddings": True,
                    "rope_theta": 500000.0, "rms_norm_eps": 1e-5, "max_position_embeddings": 131072,
                    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
                    "bos_token_id": 128000, "eos_token_id": 128001},
    "tiny": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
             "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
             "vocab_size": 256, "tie_word_embeddings": True, "rope_theta": 10000.0, "rms_norm_eps": 1e-5,
             "max_position_embeddings": 512, "bos_token_id": 1, "eos_token_id": 2},
}
# The tiny shape as Qwen2 (q/k/v biases) and Qwen3 (q/k norms, head_dim 32): quick tests of those architectures.
SHAPES["tiny-qwen2"] = dict(SHAPES["tiny"], architectures=["Qwen2ForCausalLM"], model_type="qwen2",
                            use_sliding_window=False)
SHAPES["tiny-qwen3"] = dict(SHAPES["tiny"], architectures=["Qwen3ForCausalLM"], model_type="qwen3", head_dim=32,
                            use_sliding_window=False)
SHAPES["tiny-text"] = dict(SHAPES["tiny"], vocab_size=1024, head_dim=32, bos_token_id=0, eos_token_id=1)
COMMON = {"hidden_act": "silu", "attention_bias": False, "mlp_bias": False, "pretraining_tp": 1, "rope_scaling": None}
DTYPES = {
    "f32": ("F32", np.float32, "float32"),
    "bf16": ("BF16", None, "bfloat16"),
    "f16": ("F16", np.float16, "float16"),
}


def tensors(cfg):
    """(name, shape, sigma) of every tensor, in the Hugging Face names and layouts ([out, in])."""
    H, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    heads, kv, L = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["num_hidden_layers"]
    D = cfg.get("head_dim", H // heads)
    bias = cfg["architectures"][0] == "Qwen2ForCausalLM"
    out = [("model.embed_tokens.weight", [V, H], 1.0)]
    for layer in range(L):
        p = f"model.layers.{layer}."
        out += [(p + "input_layernorm.weight", [H], None),
                (p + "self_attn.q_proj.weight", [heads * D, H], H ** -0.5),
                (p + "self_attn.k_proj.weight", [kv * D, H], H ** -0.5),
                (p + "self_attn.v_proj.weight", [kv * D, H], H ** -0.5)]
        if bias:
            out += [(p + "self_attn.q_proj.bias", [heads * D], 0.1), (p + "self_attn.k_proj.bias", [kv * D], 0.1),
                    (p + "self_attn.v_proj.bias", [kv * D], 0.1)]
        if cfg["architectures"][0] == "Qwen3ForCausalLM":  # per-head q/k RMSNorm gammas
            out += [(p + "self_attn.q_norm.weight", [D], None), (p + "self_attn.k_norm.weight", [D], None)]
        out += [(p + "self_attn.o_proj.weight", [H, heads * D], (heads * D * 2 * L) ** -0.5),
                (p + "post_attention_layernorm.weight", [H], None),
                (p + "mlp.gate_proj.weight", [F, H], H ** -0.5), (p + "mlp.up_proj.weight", [F, H], H ** -0.5),
                (p + "mlp.down_proj.weight", [H, F], (F * 2 * L) ** -0.5)]
    out.append(("model.norm.weight", [H], None))
    if not cfg["tie_word_embeddings"]:
        out.append(("lm_head.weight", [V, H], 4.0 * H ** -0.5))
    return out


def values(rng, shape, sigma):
    if sigma is None:  # norm gammas: 1 +- 0.25
        return (1.0 + rng.uniform(-0.25, 0.25, size=shape)).astype(np.float32)
    a = np.float32(np.sqrt(3.0) * sigma)
    return rng.uniform(-a, a, size=shape).astype(np.float32)


def encode(x, dtype):
    if dtype == "bf16":  # round to nearest even, as torch does
        bits = x.astype(np.float32).view(np.uint32)
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16).tobytes()
    return x.astype(DTYPES[dtype][1]).tobytes()


def write_safetensors(path, items, dtype):
    """items: (name, shape, array) -> one safetensors file; returns its size."""
    header, offset, blobs = {}, 0, []
    for name, shape, array in items:
        blob = encode(array, dtype)
        header[name] = {"dtype": DTYPES[dtype][0], "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
    return 8 + len(text) + offset


def byte_alphabet():
    """GPT-2's bytes_to_unicode: every byte as a printable character."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[b] = chr(b)
        else:
            chars[b] = chr(256 + extra)
            extra += 1
    return chars


def tokenizer_json(cfg, seed):
    """A byte-level BPE tokenizer.json with cfg's vocab_size entries (see the module's docstring)."""
    size = cfg["vocab_size"]
    specials = {cfg["eos_token_id"]: "<|endoftext|>"}
    specials.setdefault(cfg["bos_token_id"], "<|begin_of_text|>")
    if size < 256 + len(specials):
        raise SystemExit(f"make-model-folder: a vocabulary of {size} has no room for 256 byte tokens and the specials")
    free = (i for i in range(size) if i not in specials)
    alphabet = byte_alphabet()
    vocab = {content: i for i, content in specials.items()}  # in the model vocabulary too, as hub tokenizers have them
    vocab.update({alphabet[b]: next(free) for b in range(256)})
    letters = [alphabet[b] for b in b"etaoinshrdlcumwfgypbvkjxqz"]
    pool = letters + [alphabet[32]]
    merges, rng = [], np.random.default_rng(seed)
    while len(vocab) < size:
        left = pool[int(rng.integers(len(pool)))]
        right = letters[int(min(rng.exponential(6.0), len(letters) - 1))]  # common letters more often
        token = left + right
        if token in vocab or len(token) > 10:
            continue
        merges.append(f"{left} {right}")
        vocab[token] = next(free)
        pool.append(token)
    added = [{"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": True} for i, c in sorted(specials.items())]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                              "use_regex": True},
            "post_processor": None, "decoder": {"type": "ByteLevel", "add_prefix_space": True,
                                                "trim_offsets": True, "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                      "ignore_merges": False, "vocab": vocab, "merges": merges}}, specials


def write_tokenizer(out, cfg, seed):
    doc, specials = tokenizer_json(cfg, seed)
    with open(os.path.join(out, "tokenizer.json"), "w") as f:
        json.dump(doc, f, ensure_ascii=False)
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": specials[cfg["bos_token_id"]],
                   "eos_token": specials[cfg["eos_token_id"]], "model_max_length": cfg["max_position_embeddings"],
                   "clean_up_tokenization_spaces": False}, f, indent=2)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shape", choices=sorted(SHAPES), required=True)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16", help="the weights' storage type (torch_dtype)")
    p.add_argument("--out", required=True, help="the folder to write (created; existing files are replaced)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--shard-mb", type=int, default=0, help="shards of about this size, with an index (0: one file)")
    p.add_argument("--layers", type=int, default=0, help="fewer decoder layers than the shape has (0: the shape's)")
    p.add_argument("--tokenizer", action="store_true", help="also write a byte-level BPE tokenizer.json")
    args = p.parse_args(argv)
    cfg = dict(COMMON, **SHAPES[args.shape], torch_dtype=DTYPES[args.dtype][2])
    if args.layers > 0:
        cfg["num_hidden_layers"] = args.layers
    absent = {"Qwen2ForCausalLM": ("attention_bias", "mlp_bias", "pretraining_tp"),  # keys their hub configs lack
              "Qwen3ForCausalLM": ("mlp_bias", "pretraining_tp")}
    for key in absent.get(cfg["architectures"][0], ()):
        cfg.pop(key)
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    shards, current, size = [], [], 0
    limit = args.shard_mb << 20
    for name, shape, sigma in tensors(cfg):
        array = values(rng, shape, sigma)
        current.append((name, shape, array))
        size += array.size * (4 if args.dtype == "f32" else 2)
        if limit and size >= limit:
            shards.append(current)
            current, size = [], 0
    if current:
        shards.append(current)
    if len(shards) == 1:
        write_safetensors(os.path.join(args.out, "model.safetensors"), shards[0], args.dtype)
    else:
        index, total = {}, 0
        for i, shard in enumerate(shards):
            file = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
            total += write_safetensors(os.path.join(args.out, file), shard, args.dtype)
            index.update({name: file for name, _, _ in shard})
        with open(os.path.join(args.out, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": index}, f, indent=2)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    if args.tokenizer:
        write_tokenizer(args.out, cfg, args.seed)
    params = sum(int(np.prod(s)) for _, s, _ in tensors(cfg))
    print(f"make-model-folder: {args.out}: {args.shape}, {params / 1e6:.1f}M parameters, {args.dtype}, "
          f"{len(shards)} file(s)")


if __name__ == "__main__":
    main(sys.argv[1:])
