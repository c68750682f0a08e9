"""The serving loop of kernels/engine/src/serving_loop.cpp, ported line for line, so a peer engine is timed with
the same closed-loop accounting as a kforge engine: a virtual clock made only of the measured step times, greedy
decoding (lowest index on ties), TTFT from admission, inter-token latency between a request's tokens.

A peer is an object with step(seqs, tokens) -> list of logit rows (one per sequence, the last token's), where
seqs holds (slot, start_position, token_count) and start_position 0 starts a new request in that slot. This file
needs only the standard library (the default test suite imports it without PyPI packages)."""
import json
import math
import time


class Policy:
    """The harness-side batching policy (genome parameters max_batch, prefill_chunk, schedule)."""

    def __init__(self, max_batch, prefill_chunk, decode_first=True):
        self.max_batch, self.prefill_chunk, self.decode_first = max_batch, prefill_chunk, decode_first


def load_trace(path):
    """The trace engine_serve wrote (--trace-out): {"vocab", "requests": [{"prompt", "output_tokens"}]}."""
    with open(path) as f:
        trace = json.load(f)
    for r in trace["requests"]:
        if not r["prompt"] or r["output_tokens"] < 1:
            raise ValueError(f"{path}: a request needs a prompt and output_tokens >= 1")
    return trace


def percentile(values, p):
    """Nearest rank, as serving_loop.cpp's percentile()."""
    if not values:
        return 0.0
    v = sorted(values)
    rank = math.ceil(p / 100.0 * len(v))
    return v[min(max(rank, 1), len(v)) - 1]


def argmax(row):
    best = 0
    for i in range(1, len(row)):
        if row[i] > row[best]:
            best = i
    return best


def serve(requests, concurrency, policy, step, argmax_fn=argmax):
    """Serves every request (closed loop, `concurrency` in flight) and returns the figures and outputs."""
    n = len(requests)
    slot_busy = [False] * concurrency
    flights = []  # dicts in admission order: request, slot, fed, started, last
    outputs = [[] for _ in range(n)]
    ttft, itl = [], []
    clock_ms, nxt, done, steps = 0.0, 0, 0, 0
    while done < n:
        while nxt < n and len(flights) < concurrency:
            slot = slot_busy.index(False)
            slot_busy[slot] = True
            flights.append({"request": nxt, "slot": slot, "fed": 0, "started": clock_ms, "last": 0.0})
            nxt += 1
        chosen = []
        for want_decodes in ((True, False) if policy.decode_first else (False, True)):
            for f, fl in enumerate(flights):
                if len(chosen) >= policy.max_batch:
                    break
                decoding = fl["fed"] == len(requests[fl["request"]]["prompt"])
                if decoding == want_decodes:
                    chosen.append(f)
        seqs, tokens = [], []
        for f in chosen:
            fl = flights[f]
            prompt = requests[fl["request"]]["prompt"]
            if fl["fed"] < len(prompt):
                count = min(policy.prefill_chunk, len(prompt) - fl["fed"])
                seqs.append((fl["slot"], fl["fed"], count))
                tokens.extend(prompt[fl["fed"]:fl["fed"] + count])
            else:
                generated = outputs[fl["request"]]
                seqs.append((fl["slot"], len(prompt) + len(generated) - 1, 1))
                tokens.append(generated[-1])
        t0 = time.perf_counter()
        rows = step(seqs, tokens)
        clock_ms += (time.perf_counter() - t0) * 1e3
        steps += 1
        finished = []
        for s, f in enumerate(chosen):
            fl = flights[f]
            req = requests[fl["request"]]
            prefill = fl["fed"] < len(req["prompt"])
            if prefill:
                fl["fed"] += seqs[s][2]
                if fl["fed"] < len(req["prompt"]):
                    continue
            outputs[fl["request"]].append(int(argmax_fn(rows[s])))
            (ttft if prefill else itl).append(clock_ms - (fl["started"] if prefill else fl["last"]))
            fl["last"] = clock_ms
            if len(outputs[fl["request"]]) == req["output_tokens"]:
                finished.append(f)
        for f in sorted(finished, reverse=True):
            slot_busy[flights[f]["slot"]] = False
            del flights[f]
            done += 1
    out_tokens = sum(len(o) for o in outputs)
    return {"concurrency": concurrency, "steps": steps, "total_ms": clock_ms, "output_tokens": out_tokens,
            "output_tokens_per_s": out_tokens / (clock_ms * 1e-3) if clock_ms > 0 else 0.0,
            "ttft_p50_ms": percentile(ttft, 50), "ttft_p99_ms": percentile(ttft, 99),
            "itl_p50_ms": percentile(itl, 50), "itl_p99_ms": percentile(itl, 99), "outputs": outputs}


def token_agreement(got, want):
    """Fraction of the reference's output tokens matched position by position, and whether all match."""
    total = sum(len(w) for w in want)
    same = sum(sum(1 for a, b in zip(g, w, strict=False) if a == b) for g, w in zip(got, want, strict=False))
    return {"identical": got == want, "matched": same, "total": total}
