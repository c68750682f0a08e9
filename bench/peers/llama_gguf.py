"""llama.cpp as a peer: kforge's safetensors weights converted to GGUF (architecture "llama", or "qwen2" with q/k/v
biases and "qwen3" with q/k norms; matrices in F32, BF16 or Q8_0 as gguf-py's own quantizer writes them, norms and
biases F32) and served through llama-cpp-python's low-level API (llama_decode over a batch of sequences, one
llama.cpp sequence id per slot), so it sees exactly the prompts and steps the serving loop gives every engine.

The conversion follows llama.cpp's convert_hf_to_gguf.py for Hugging Face Llama checkpoints: llama.cpp's LLAMA
rope is the "normal" style (dimension 2i pairs with 2i+1) while Hugging Face's rotate_half pairs i with
i + head_dim/2, so the rows of q_proj and k_proj are permuted per head (LlamaModel.permute) and the model is the
same function. llama.cpp runs qwen2 and qwen3 with the "neox" rope (i pairs with i + head_dim/2, as Hugging Face),
so their rows stay as they are (convert_hf_to_gguf.py's Qwen2Model does not permute either). The tokenizer is a
placeholder SentencePiece vocabulary: the bench feeds token ids, never text."""
import ctypes

import numpy as np


def permute(weights, n_head, n_head_kv):
    """convert_hf_to_gguf.py's LlamaModel.permute: rotate_half row order -> interleaved pairs, per head."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return (weights.reshape(n_head, 2, weights.shape[0] // n_head // 2, *weights.shape[1:])
            .swapaxes(1, 2).reshape(weights.shape))


GGUF_NAMES = {"input_layernorm.weight": "attn_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
              "self_attn.k_proj.weight": "attn_k.weight", "self_attn.v_proj.weight": "attn_v.weight",
              "self_attn.o_proj.weight": "attn_output.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
              "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
              "mlp.down_proj.weight": "ffn_down.weight"}
# The tensors each architecture (cfg["model_type"], llama.cpp's name for it too) has beyond llama's.
EXTRA_NAMES = {"llama": {},
               "qwen2": {"self_attn.q_proj.bias": "attn_q.bias", "self_attn.k_proj.bias": "attn_k.bias",
                         "self_attn.v_proj.bias": "attn_v.bias"},
               "qwen3": {"self_attn.q_norm.weight": "attn_q_norm.weight",
                         "self_attn.k_norm.weight": "attn_k_norm.weight"}}


# The GGUF type of the matrices for each kforge weight precision (docs/engines.md, "Precisions"): the llama.cpp
# file type people serve at that size (Q8_0: blocks of 32 weights with one fp16 scale each).
GGUF_TYPES = {"fp32": ("F32", "ALL_F32"), "bf16": ("BF16", "MOSTLY_BF16"), "int8": ("Q8_0", "MOSTLY_Q8_0")}


def write_gguf(path, cfg, tensors, context_length, precision="fp32"):
    import gguf
    qname, file_type = GGUF_TYPES[precision]
    qtype = getattr(gguf.GGMLQuantizationType, qname)

    def add(name, data):
        data = np.ascontiguousarray(data, np.float32)
        if data.ndim == 2 and qname != "F32":
            w.add_tensor(name, gguf.quants.quantize(data, qtype), raw_dtype=qtype)  # shape from the bytes
        else:
            w.add_tensor(name, data)

    arch = cfg.get("model_type", "llama")
    w = gguf.GGUFWriter(path, arch)
    w.add_name("kforge-engine-vs-peers")
    w.add_context_length(context_length)
    w.add_embedding_length(cfg["hidden"])
    w.add_block_count(cfg["layers"])
    w.add_feed_forward_length(cfg["mlp_hidden"])
    w.add_rope_dimension_count(cfg["head_dim"])
    w.add_head_count(cfg["heads"])
    w.add_head_count_kv(cfg["kv_heads"])
    w.add_key_length(cfg["head_dim"])
    w.add_value_length(cfg["head_dim"])
    w.add_layer_norm_rms_eps(cfg["norm_eps"])
    w.add_rope_freq_base(cfg["rope_theta"])
    w.add_vocab_size(cfg["vocab"])
    w.add_file_type(getattr(gguf.LlamaFileType, file_type))
    vocab = cfg["vocab"]
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256
    tokens, types = tokens[:vocab], types[:vocab]
    tokens += [f"tok{i}" for i in range(len(tokens), vocab)]
    types += [gguf.TokenType.NORMAL] * (vocab - len(types))
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * vocab)
    w.add_token_types(types)
    w.add_unk_token_id(0)
    w.add_bos_token_id(min(1, vocab - 1))
    w.add_eos_token_id(min(2, vocab - 1))
    w.add_add_bos_token(False)
    add("token_embd.weight", tensors["model.embed_tokens.weight"])
    for layer in range(cfg["layers"]):
        for hf, gg in {**GGUF_NAMES, **EXTRA_NAMES[arch]}.items():
            data = np.asarray(tensors[f"model.layers.{layer}.{hf}"], np.float32)
            if arch == "llama" and hf == "self_attn.q_proj.weight":  # qwen2/3's neox rope: Hugging Face's order
                data = permute(data, cfg["heads"], cfg["heads"])
            elif arch == "llama" and hf == "self_attn.k_proj.weight":
                data = permute(data, cfg["heads"], cfg["kv_heads"])
            add(f"blk.{layer}.{gg}", data)
    add("output_norm.weight", tensors["model.norm.weight"])
    if "lm_head.weight" in tensors:  # tied: llama.cpp reuses token_embd when "output" is absent
        add("output.weight", tensors["lm_head.weight"])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def _api(lib, *names):
    """The first of `names` this llama-cpp-python has (the C API was renamed across llama.cpp versions)."""
    for name in names:
        if hasattr(lib, name):
            return getattr(lib, name)
    raise AttributeError("llama_cpp has none of " + ", ".join(names))


class LlamaCpp:
    """llama.cpp behind the serving loop's step(): slot s is llama.cpp sequence s; the GGUF's weights; the KV cache in
    fp32 (kv_f32) or in llama.cpp's default fp16; every other context setting is llama.cpp's default."""

    def __init__(self, gguf_path, cfg, max_slots, max_context, max_step_tokens, threads, kv_f32=True,
                 **context_overrides):
        import llama_cpp as lib
        self.lib, self.vocab = lib, cfg["vocab"]
        lib.llama_backend_init()
        self._quiet = lib.llama_log_callback(lambda level, text, user: None)
        lib.llama_log_set(self._quiet, ctypes.c_void_p(0))
        mparams = lib.llama_model_default_params()
        self.model = _api(lib, "llama_model_load_from_file", "llama_load_model_from_file")(
            gguf_path.encode(), mparams)
        if not self.model:
            raise RuntimeError(f"llama.cpp could not load {gguf_path}")
        cparams = lib.llama_context_default_params()
        per_seq = -(-max_context // 256) * 256
        cparams.n_ctx = per_seq * max_slots
        cparams.n_batch = max(max_step_tokens, 32)
        cparams.n_ubatch = cparams.n_batch
        cparams.n_seq_max = max_slots
        cparams.n_threads = cparams.n_threads_batch = threads
        if kv_f32:  # GGML_TYPE_F32 (llama.cpp's default is F16): the precision of kforge's engines
            cparams.type_k = cparams.type_v = 0
        for key, value in context_overrides.items():
            setattr(cparams, key, value)
        self.ctx = _api(lib, "llama_init_from_model", "llama_new_context_with_model")(self.model, cparams)
        if not self.ctx:
            raise RuntimeError(f"llama.cpp could not create a context (n_ctx {cparams.n_ctx})")
        self.batch = lib.llama_batch_init(cparams.n_batch, 0, 1)
        if hasattr(lib, "llama_get_memory"):
            mem = lib.llama_get_memory(self.ctx)
            self._seq_rm = lambda seq: lib.llama_memory_seq_rm(mem, seq, -1, -1)
        else:
            rm = _api(lib, "llama_kv_self_seq_rm", "llama_kv_cache_seq_rm")
            self._seq_rm = lambda seq: rm(self.ctx, seq, -1, -1)

    def step(self, seqs, tokens):
        b, row, last = self.batch, 0, []
        for slot, start, n in seqs:
            if start == 0:
                self._seq_rm(slot)  # a new request in this slot
            for i in range(n):
                b.token[row] = tokens[row]
                b.pos[row] = start + i
                b.n_seq_id[row] = 1
                b.seq_id[row][0] = slot
                b.logits[row] = 1 if i == n - 1 else 0
                row += 1
            last.append(row - 1)
        b.n_tokens = row
        rc = self.lib.llama_decode(self.ctx, b)
        if rc != 0:
            raise RuntimeError(f"llama_decode returned {rc}")
        return [np.ctypeslib.as_array(self.lib.llama_get_logits_ith(self.ctx, i), shape=(self.vocab,)).copy()
                for i in last]

    def close(self):
        self.lib.llama_batch_free(self.batch)
        self.lib.llama_free(self.ctx)
        _api(self.lib, "llama_model_free", "llama_free_model")(self.model)
