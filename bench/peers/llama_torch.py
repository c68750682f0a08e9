"""The llama architecture of docs/engines.md ("The model") in PyTorch eager: Hugging Face Llama's math and tensor
names (RMSNorm, rotate_half RoPE where dimension i pairs with i + head_dim/2, grouped-query attention with a KV
cache per slot, SwiGLU MLP, tied or untied LM head; Qwen2's q/k/v biases and Qwen3's per-head q/k RMSNorm when the
weights have them). One step runs every sequence's tokens through each projection as one matrix (a batched eager
engine, the way a PyTorch server would batch) and attention per sequence."""
import torch
import torch.nn.functional as F


class TorchLlama:
    def __init__(self, cfg, tensors, max_slots, max_context, dtype=torch.float32):
        self.cfg, self.dtype = cfg, dtype
        self.t = {name: torch.as_tensor(value).to(dtype).contiguous() for name, value in tensors.items()}
        self.lm_head = self.t.get("lm_head.weight", self.t["model.embed_tokens.weight"])
        L, kv, hd = cfg["layers"], cfg["kv_heads"], cfg["head_dim"]
        self.k_cache = torch.zeros(L, max_slots, max_context, kv, hd, dtype=dtype)
        self.v_cache = torch.zeros(L, max_slots, max_context, kv, hd, dtype=dtype)
        inv_freq = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))
        angles = torch.outer(torch.arange(max_context, dtype=torch.float64), inv_freq)
        angles = torch.cat([angles, angles], dim=-1)  # Hugging Face's layout: [theta_0..theta_{d/2-1}] twice
        self.cos, self.sin = angles.cos().to(dtype), angles.sin().to(dtype)

    def _norm(self, x, weight):
        x64 = x.pow(2).mean(-1, keepdim=True)
        return x * torch.rsqrt(x64 + self.cfg["norm_eps"]) * weight

    @staticmethod
    def _rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat([-x[..., half:], x[..., :half]], dim=-1)

    @torch.inference_mode()
    def step(self, seqs, tokens):
        """seqs: (slot, start_position, token_count); returns one logits row (vocab,) per sequence."""
        cfg, t = self.cfg, self.t
        hd, nh, nkv = cfg["head_dim"], cfg["heads"], cfg["kv_heads"]
        ids = torch.as_tensor(tokens, dtype=torch.long)
        positions = torch.cat([torch.arange(s, s + n) for _, s, n in seqs])
        cos, sin = self.cos[positions].unsqueeze(1), self.sin[positions].unsqueeze(1)
        x = t["model.embed_tokens.weight"][ids]
        for layer in range(cfg["layers"]):
            p = f"model.layers.{layer}."
            h = self._norm(x, t[p + "input_layernorm.weight"])
            q = F.linear(h, t[p + "self_attn.q_proj.weight"], t.get(p + "self_attn.q_proj.bias")).view(-1, nh, hd)
            k = F.linear(h, t[p + "self_attn.k_proj.weight"], t.get(p + "self_attn.k_proj.bias")).view(-1, nkv, hd)
            v = F.linear(h, t[p + "self_attn.v_proj.weight"], t.get(p + "self_attn.v_proj.bias")).view(-1, nkv, hd)
            if p + "self_attn.q_norm.weight" in t:  # Qwen3: RMSNorm of each head's q and k, before RoPE
                q = self._norm(q, t[p + "self_attn.q_norm.weight"])
                k = self._norm(k, t[p + "self_attn.k_norm.weight"])
            q = q * cos + self._rotate_half(q) * sin
            k = k * cos + self._rotate_half(k) * sin
            outs, row = [], 0
            for slot, start, n in seqs:
                end = start + n
                self.k_cache[layer, slot, start:end] = k[row:row + n]
                self.v_cache[layer, slot, start:end] = v[row:row + n]
                keys = self.k_cache[layer, slot, :end].repeat_interleave(nh // nkv, dim=1)
                values = self.v_cache[layer, slot, :end].repeat_interleave(nh // nkv, dim=1)
                # Query i (position start + i) sees keys 0 .. start + i.
                mask = torch.arange(end).unsqueeze(0) <= (torch.arange(n) + start).unsqueeze(1)
                a = F.scaled_dot_product_attention(q[row:row + n].transpose(0, 1), keys.transpose(0, 1),
                                                   values.transpose(0, 1), attn_mask=mask)
                outs.append(a.transpose(0, 1).reshape(n, nh * hd))
                row += n
            x = x + F.linear(torch.cat(outs), t[p + "self_attn.o_proj.weight"])
            h = self._norm(x, t[p + "post_attention_layernorm.weight"])
            gate = F.linear(h, t[p + "mlp.gate_proj.weight"])
            up = F.linear(h, t[p + "mlp.up_proj.weight"])
            x = x + F.linear(F.silu(gate) * up, t[p + "mlp.down_proj.weight"])
        last = torch.cumsum(torch.tensor([n for _, _, n in seqs]), 0) - 1
        h = self._norm(x[last], t["model.norm.weight"])
        return F.linear(h, self.lm_head).float()  # numpy has no bfloat16: the rows compared as float32


def load_safetensors(path):
    from safetensors.numpy import load_file
    return load_file(path)
