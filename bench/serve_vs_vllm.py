"""kforge serve against vllm serve, both driven by vLLM's own benchmark client (bench/README.md, "Serving").

The same model folder (with its tokenizer.json) is served by `kforge serve CAMPAIGN_DIR` (the campaign's fastest
verified engine at --precision) and by `vllm serve` (vLLM's CPU backend, configured as its CPU guide says:
bench/peers/vllm_cpu.py's configure_env), one after the other, on this machine's cores. Against each, at every
request rate, `vllm bench serve` runs unchanged: random dataset, fixed input and output lengths, ignore_eos,
Poisson arrivals, the same seed; its saved result JSON is read back. Prints one table and, with --json, one object
(schema_version, run context, every figure of both servers at every rate, the ratios).

    bench/serve_vs_vllm.sh --campaign runs/engine-smollm --precision bf16 --model models/smollm-135m

Runs under Debian's python3; the servers and the client run from build/bin and vLLM's environment
(bench/vllm_venv.sh).
"""
import argparse
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers.vllm_cpu import configure_env  # noqa: E402

DTYPES = {"fp32": "float32", "bf16": "bfloat16"}
FIGURES = ["output_throughput", "p50_ttft_ms", "p99_ttft_ms", "p50_tpot_ms", "p99_tpot_ms", "p50_itl_ms",
           "p99_itl_ms", "p99_e2el_ms", "request_goodput", "completed"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--campaign", required=True, help="a finished engine campaign directory")
    p.add_argument("--precision", default="bf16", choices=sorted(DTYPES), help="the engine's and vLLM's precision")
    p.add_argument("--model", required=True, help="the model folder both serve (with tokenizer.json)")
    p.add_argument("--rates", default="1,4", help="request rates (requests/s), comma separated")
    p.add_argument("--num-prompts", type=int, default=32)
    p.add_argument("--input-len", type=int, default=64)
    p.add_argument("--output-len", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--slo-ttft-ms", type=float, default=2000.0, help="goodput: a request's TTFT at most this")
    p.add_argument("--slo-tpot-ms", type=float, default=100.0, help="goodput: and its TPOT at most this")
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)), help="vLLM's OpenMP threads")
    p.add_argument("--build", default="build")
    p.add_argument("--vllm-python", default="", help="vLLM's environment's python (default: bench/vllm_venv.sh's)")
    p.add_argument("--servers", default="kforge,vllm", help="which servers to run")
    p.add_argument("--json", default="", help="also write the result here")
    return p.parse_args(argv)


def wait_healthy(port, server, timeout_s):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"serve_vs_vllm: the server on port {port} exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    raise SystemExit(f"serve_vs_vllm: the server on port {port} was not healthy within {timeout_s} s")


def stop(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def bench_client(a, vllm_bin, port, name, rate, work, label):
    """One `vllm bench serve` run; returns its saved result."""
    result = f"{label}-rate{rate}.json"
    cmd = [vllm_bin, "bench", "serve", "--backend", "openai", "--base-url", f"http://127.0.0.1:{port}",
           "--model", os.path.abspath(a.model), "--served-model-name", name, "--tokenizer", os.path.abspath(a.model),
           "--dataset-name", "random", "--random-input-len", str(a.input_len), "--random-output-len",
           str(a.output_len), "--random-range-ratio", "0", "--num-prompts", str(a.num_prompts), "--request-rate",
           str(rate), "--ignore-eos", "--seed", str(a.seed), "--percentile-metrics", "ttft,tpot,itl,e2el",
           "--metric-percentiles", "50,90,99", "--goodput", f"ttft:{a.slo_ttft_ms}", f"tpot:{a.slo_tpot_ms}",
           "--save-result", "--result-dir", work, "--result-filename", result]
    print(f"serve_vs_vllm: {label} at {rate} requests/s: {' '.join(cmd)}", file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=sys.stderr, cwd=work)
    with open(os.path.join(work, result)) as f:
        return json.load(f)


def run_server(a, label, argv, env, port, vllm_bin, work, startup_s):
    log = open(os.path.join(work, f"{label}-server.log"), "w")
    server = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        started = time.monotonic()
        wait_healthy(port, server, startup_s)
        ready_s = time.monotonic() - started
        runs = {rate: bench_client(a, vllm_bin, port, "served", rate, work, label) for rate in rates_of(a)}
    finally:
        stop(server)
        log.close()
    with open(os.path.join(work, f"{label}-server.log")) as f:
        head = [line.rstrip() for line in f if line.startswith("kforge serve:")][:3]
    return {"argv": argv, "ready_s": ready_s, "runs": runs, "log_head": head}


def rates_of(a):
    return [float(r) for r in a.rates.split(",")]


def kforge_server(a, work, vllm_bin):
    argv = [os.path.join(a.build, "bin", "kforge"), "serve", a.campaign, "--precision", a.precision, "--model",
            os.path.abspath(a.model), "--served-model-name", "served", "--port", "8031", "--max-queue", "4096"]
    return run_server(a, "kforge", argv, dict(os.environ), 8031, vllm_bin, work, 900)


def vllm_server(a, work, vllm_bin):
    saved = dict(os.environ)
    settings = configure_env(a.threads, kv_cache_gib=2, prefix=os.path.dirname(os.path.dirname(vllm_bin)))
    env = dict(os.environ)
    os.environ.clear()
    os.environ.update(saved)
    argv = [vllm_bin, "serve", os.path.abspath(a.model), "--served-model-name", "served", "--dtype",
            DTYPES[a.precision], "--port", "8032", "--seed", "0"]
    out = run_server(a, "vllm", argv, env, 8032, vllm_bin, work, 900)
    out["env"] = settings
    return out


def figures(result):
    return {k: result.get(k) for k in FIGURES}


def main(argv):
    a = parse_args(argv)
    vllm_python = a.vllm_python or subprocess.run(["bash", os.path.join(os.path.dirname(__file__), "vllm_venv.sh")],
                                                  check=True, capture_output=True, text=True).stdout.strip()
    vllm_bin = os.path.join(os.path.dirname(vllm_python), "vllm")
    servers = a.servers.split(",")
    with tempfile.TemporaryDirectory(prefix="kforge-serve-vs-vllm-") as work:
        out = {"schema_version": 1, "benchmark": "serve_vs_vllm",
               "context": {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
                           "host": platform.node(), "cpus": len(os.sched_getaffinity(0)),
                           "cpu": platform.processor() or platform.machine()},
               "settings": {k: v for k, v in vars(a).items() if k not in ("json", "vllm_python")},
               "servers": {}}
        if "kforge" in servers:
            out["servers"]["kforge"] = kforge_server(a, work, vllm_bin)
        if "vllm" in servers:
            out["servers"]["vllm"] = vllm_server(a, work, vllm_bin)
    print(f"{'server':8} {'rate':>5} {'tok/s':>8} {'TTFT p50':>9} {'TTFT p99':>9} {'TPOT p50':>9} {'ITL p99':>8} "
          f"{'goodput':>8} (ms; goodput in requests/s under TTFT <= {a.slo_ttft_ms:g}, TPOT <= {a.slo_tpot_ms:g})")
    for name, s in out["servers"].items():
        for rate, r in s["runs"].items():
            f = figures(r)
            s["runs"][rate] = f
            print(f"{name:8} {rate:5g} {f['output_throughput']:8.1f} {f['p50_ttft_ms']:9.1f} {f['p99_ttft_ms']:9.1f} "
                  f"{f['p50_tpot_ms']:9.2f} {f['p99_itl_ms']:8.1f} {f['request_goodput'] or 0:8.2f}")
    if len(out["servers"]) == 2:
        k, v = out["servers"]["kforge"]["runs"], out["servers"]["vllm"]["runs"]
        out["ratios"] = {}
        for rate in k:
            ratio = {"output_throughput": k[rate]["output_throughput"] / v[rate]["output_throughput"],
                     "p99_ttft": k[rate]["p99_ttft_ms"] / v[rate]["p99_ttft_ms"]}
            out["ratios"][rate] = ratio
            print(f"at {rate:g} requests/s: kforge {ratio['output_throughput']:.2f}x vLLM's output throughput, "
                  f"p99 TTFT {ratio['p99_ttft']:.2f}x vLLM's")
    for name, s in out["servers"].items():
        for line in s.get("log_head", []):
            print(f"{name}: {line}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
