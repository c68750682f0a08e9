#!/usr/bin/env python3
"""Baselines of bench/gpu-acceptance.sh timed in PyTorch, beside kforge's own figures of the same run.

  gpu_acceptance_torch.py kda KFORGE_REPORTS.json WHEEL_DIR   FLA chunk_kda (fla-core, installed from WHEEL_DIR)
  gpu_acceptance_torch.py kda-outputs CASES_DIR WHEEL_DIR      FLA's outputs on kforge-check-outputs' cases (kda: fp32,
                                                               kda_bf16 and kda_bf16_tc: bf16)
  gpu_acceptance_torch.py rmsnorm KFORGE_REPORT.json          torch rms_norm, and kforge's best in GB/s vs 4.8 TB/s
Timing as kforge's harness does it: L2 flushed (256 MiB written) before each launch, warm-up, median of 25
CUDA-event samples; SM clock reported. Prints JSON; exit 3 with the reason on stderr when a baseline cannot run.
KFORGE_FLA_ON_CPU=1 (bench/fla_kda_on_cpu.sh, kda-outputs only): FLA's Triton kernels on CPU tensors under Triton's
interpreter, with bench/triton_interpreter_patches.py, to rehearse the step without a GPU.
"""
import functools
import glob
import json
import os
import subprocess
import sys

H200_PEAK_GBS = 4800.0
ON_CPU = os.environ.get("KFORGE_FLA_ON_CPU") == "1"
DEVICE = "cpu" if ON_CPU else "cuda"
if ON_CPU:
    os.environ["TRITON_INTERPRET"] = "1"  # read when triton is first imported


def need(cond, why):
    if not cond:
        print(why, file=sys.stderr)
        sys.exit(3)


def timed_ms(torch, fn, samples=25):
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")
    for _ in range(3):
        fn()
    times = []
    for _ in range(samples):
        flush.fill_(1)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return {"median_ms": times[len(times) // 2], "min_ms": times[0], "samples": samples}


def sm_clock():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({e})"


def kforge_best_ms(report):
    return report.get("best", {}).get("time_ms")


def sequence_starts(b, t, varlen):
    """kforge's kda_sequence_starts (kernels/cuda/families/kda/kda_reference.cpp): B + 1 packed offsets."""
    starts, weights = [0], b * (b - 1) // 2
    for i in range(b):
        starts.append(starts[-1] + (t if not varlen or b == 1 else 1 + (b * t - b) * i // weights))
    starts[b] = b * t  # the last sequence takes what rounding left
    return starts


def load_chunk_kda(wheel_dir):
    import torch  # noqa: PLC0415  (the GPU image has it; the step is skipped without it)
    need(ON_CPU or torch.cuda.is_available(), "no CUDA device visible to torch")
    if ON_CPU:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import triton_interpreter_patches  # noqa: F401,PLC0415
    site = "/tmp/kforge-fla-site"
    wheels = glob.glob(os.path.join(wheel_dir, "*.whl"))  # fla-core, einops, packaging (docs/gpu-bundle.md)
    if wheels and not os.path.isdir(os.path.join(site, "fla")):
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--target", site] + wheels,
                       check=True, stdout=sys.stderr)
    sys.path.insert(0, site)
    try:
        from fla.ops.kda import chunk_kda  # noqa: PLC0415
    except ImportError as e:
        need(False, f"fla-core is not importable ({e}); put its wheel in {wheel_dir} (docs/gpu-bundle.md)")
    return torch, chunk_kda


def kda_outputs(cases_dir, wheel_dir):
    """FLA's chunk_kda on every case kforge-check-outputs wrote (its layout: share/examples/kda_outputs_numpy.py):
    family kda in fp32; families kda_bf16 and kda_bf16_tc with their bf16 q, k, v, beta as given, o written back as
    bf16."""
    torch, chunk_kda = load_chunk_kda(wheel_dir)
    import numpy as np  # noqa: PLC0415
    with open(os.path.join(cases_dir, "cases.json"), encoding="utf-8") as f:
        listing = json.load(f)
    bf16 = listing["family"] in ("kda_bf16", "kda_bf16_tc")
    load = lambda path, dtype: torch.from_numpy(np.fromfile(path, dtype=dtype)).to(DEVICE)  # noqa: E731
    # bf16 files hold the upper 16 bits of a float32: the same bits as torch.bfloat16.
    low = (lambda path: load(path, "<i2").view(torch.bfloat16)) if bf16 else (lambda path: load(path, "<f4"))
    for case in listing["cases"]:
        files = [os.path.join(cases_dir, x["file"]) for x in case["inputs"]]
        h = case["problem"]["H"]
        q, k, v = (low(path).view(1, -1, h, 128) for path in files[:3])
        g = load(files[3], "<f4").view(1, -1, h, 128)
        beta = low(files[4]).view(1, -1, h)
        cu_seqlens = load(files[5], "<i4").long()  # every case is packed, equal lengths too
        o, state = chunk_kda(q, k, v, g, beta, scale=128 ** -0.5, output_final_state=True, cu_seqlens=cu_seqlens)
        o = o.to(torch.bfloat16).view(torch.int16).contiguous().cpu().numpy().astype("<i2") if bf16 else \
            o.float().contiguous().cpu().numpy().astype("<f4")
        outputs = (o, state.float().contiguous().cpu().numpy().astype("<f4"))
        for out, spec in zip(outputs, case["outputs"], strict=True):
            out.tofile(os.path.join(cases_dir, spec["file"]))
    return {"cases": len(listing["cases"]), "family": listing["family"]}


def kda(reports_path, wheel_dir):
    torch, chunk_kda = load_chunk_kda(wheel_dir)
    with open(reports_path, encoding="utf-8") as f:
        ours = json.load(f)
    rows = []
    for entry in ours:
        b, t, h, d, varlen = entry["B"], entry["T"], entry["H"], 128, bool(entry.get("varlen"))
        # FLA packs a batch as one sequence of all tokens plus cu_seqlens; equal lengths need no cu_seqlens.
        starts = sequence_starts(b, t, varlen)
        cu_seqlens = torch.tensor(starts, device="cuda", dtype=torch.long) if varlen else None
        shape = (1, b * t) if varlen else (b, t)
        q, k, v = (torch.randn(*shape, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        k = torch.nn.functional.normalize(k.float(), dim=-1).to(torch.bfloat16)
        g = -torch.rand(*shape, h, d, device="cuda", dtype=torch.float32) * 0.1
        beta = torch.rand(*shape, h, device="cuda", dtype=torch.bfloat16)
        run = functools.partial(chunk_kda, q, k, v, g, beta, cu_seqlens=cu_seqlens)
        fla = timed_ms(torch, run)
        out = run()[0]
        ms = kforge_best_ms(entry["report"])
        family = entry.get("family", "kda_bf16")
        rows.append({"family": family, "contract": "tensor_core" if family == "kda_bf16_tc" else "strict",
                     "B": b, "T": t, "H": h, "D": d, "varlen": varlen, "sequence_lengths":
                     [starts[i + 1] - starts[i] for i in range(b)], "fla_chunk_kda": fla, "kforge_best_ms": ms,
                     "speed_vs_fla": fla["median_ms"] / ms if ms else None,
                     "fla_output_finite": bool(torch.isfinite(out).all().item())})
    # Like for like in what goes in and out: kforge's kda_bf16 and kda_bf16_tc and FLA all take bf16 q, k, v, beta
    # and fp32 g, and give bf16 o and an fp32 state. kda_bf16 computes in fp32 (the strict contract); kda_bf16_tc,
    # like FLA, on tensor cores with bf16 operands (the tensor-core contract: FLA's own bound), so its row is the
    # like-for-like speed comparison.
    return {"sm_clock": sm_clock(), "kda": rows,
            "precision": {"kda_bf16": "strict: fp32 arithmetic", "kda_bf16_tc": "tensor_core: bf16 operands, fp32 "
                          "accumulation", "fla_chunk_kda": "bf16 operands, fp32 accumulation"}}


def rmsnorm(report_path):
    import torch  # noqa: PLC0415
    need(torch.cuda.is_available(), "no CUDA device visible to torch")
    rows, hidden = 8192, 7168
    x = torch.randn(rows, hidden, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(hidden, device="cuda", dtype=torch.bfloat16)
    need(hasattr(torch.nn.functional, "rms_norm"), "this torch has no rms_norm")
    ref = timed_ms(torch, lambda: torch.nn.functional.rms_norm(x, (hidden,), w, 1e-6))
    moved = (2 * rows * hidden + hidden) * 2  # bf16 read + write + weight
    with open(report_path, encoding="utf-8") as f:
        ms = kforge_best_ms(json.load(f))
    gbs = lambda t: moved / (t * 1e-3) / 1e9 if t else None  # noqa: E731
    return {"sm_clock": sm_clock(), "rows": rows, "hidden": hidden, "bytes_moved": moved,
            "torch_rms_norm": ref, "torch_gbs": gbs(ref["median_ms"]), "kforge_best_ms": ms,
            "kforge_gbs": gbs(ms), "peak_gbs": H200_PEAK_GBS,
            "kforge_share_of_peak": gbs(ms) / H200_PEAK_GBS if ms else None,
            "speed_vs_torch": ref["median_ms"] / ms if ms else None}


if __name__ == "__main__":
    try:
        import torch  # noqa: F401,PLC0415
    except ImportError as e:
        need(False, f"torch is not importable: {e}")
    if len(sys.argv) == 4 and sys.argv[1] == "kda":
        print(json.dumps(kda(sys.argv[2], sys.argv[3])))
    elif len(sys.argv) == 4 and sys.argv[1] == "kda-outputs":
        print(json.dumps(kda_outputs(sys.argv[2], sys.argv[3])))
    elif len(sys.argv) == 3 and sys.argv[1] == "rmsnorm":
        print(json.dumps(rmsnorm(sys.argv[2])))
    else:
        sys.exit(__doc__)
