#!/usr/bin/env python3
"""An outside KDA implementation for kforge-check-outputs (docs/cli.md): reads DIR/cases.json and each case's
input files, writes its outputs. The per-token recurrence in float64 with numpy, so every case should pass.

  usage: kda_outputs_numpy.py DIR

Files (little-endian, kforge's kda layout): input-0..3 q, k, v, g float32 [tokens, H, 128]; input-4 beta
float32 [tokens, H]; input-5 cu_seqlens int32 [B + 1] (sequence b is tokens cu_seqlens[b] .. cu_seqlens[b+1]-1);
output-0 o float32 [tokens, H, 128]; output-1 each sequence's final state float32 [B, H, 128 (key), 128 (value)].
Families kda_bf16 and kda_bf16_tc: q, k, v, beta and o are bf16 (the upper 16 bits of a float32, as uint16); g and
the state float32.
"""
import json
import os
import sys

import numpy as np

D = 128


def read_bf16(path):
    return (np.fromfile(path, dtype="<u2").astype(np.uint32) << 16).view(np.float32)


def to_bf16(x):
    """float32 -> bf16 bits, rounded to nearest even (finite values)."""
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")


def kda_case(case, root, bf16):
    files = [os.path.join(root, f["file"]) for f in case["inputs"]]
    cu = np.fromfile(files[5], dtype="<i4")
    H = case["problem"]["H"]
    read = read_bf16 if bf16 else (lambda path: np.fromfile(path, dtype="<f4"))
    q, k, v = (read(f).astype(np.float64).reshape(-1, H, D) for f in files[:3])
    g = np.fromfile(files[3], dtype="<f4").astype(np.float64).reshape(-1, H, D)
    beta = read(files[4]).astype(np.float64).reshape(-1, H)
    o = np.zeros_like(q)
    states = np.zeros((len(cu) - 1, H, D, D))
    for b in range(len(cu) - 1):
        S = np.zeros((H, D, D))  # [head][key][value]
        for t in range(cu[b], cu[b + 1]):
            S *= np.exp(g[t])[:, :, None]  # S <- Diag(alpha_t) S
            ks = np.einsum("hc,hcv->hv", k[t], S)
            S += k[t][:, :, None] * (beta[t][:, None] * (v[t] - ks))[:, None, :]
            o[t] = np.einsum("hc,hcv->hv", q[t] / np.sqrt(D), S)
        states[b] = S
    return [to_bf16(o) if bf16 else o.astype("<f4"), states.astype("<f4")]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    with open(os.path.join(root, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    if cases["family"] not in ("kda", "kda_bf16", "kda_bf16_tc"):
        sys.exit(f"kda_outputs_numpy.py: {root}/cases.json is of family {cases['family']}, not a kda family")
    bf16 = cases["family"] != "kda"
    for case in cases["cases"]:
        for out, spec in zip(kda_case(case, root, bf16), case["outputs"], strict=True):
            out.tofile(os.path.join(root, spec["file"]))
    print(f"kda_outputs_numpy.py: outputs of {len(cases['cases'])} cases written in {root}")


if __name__ == "__main__":
    main()
