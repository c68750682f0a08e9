"""kforge serve as its clients and attackers meet it (docs/serving.md, "What isolates what"). Run as an unprivileged
user by serve_as_a_user.sh: writes a tiny model folder with a tokenizer, starts build/bin/kforge-serve on a free
port, then checks every endpoint as a client would (curl, and Python's http.client) and attacks it: malformed and
oversized bodies, a slow client, 1000 connections at once, a client that leaves mid-stream, many clients at once
(no answer reaches the wrong one), memory over many requests, and SIGTERM.
    serve_client_attacks.py SRC_DIR BUILD_DIR WORK_DIR
"""
import http.client
import json
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time

SRC, BUILD, WORK = sys.argv[1:4]
GENOME = ('fuse_qkv=1;fuse_gate_up=1;fold_norm=1;residual_epilogue=1;prepack=1;kv_block=0;threads=1;max_batch=4;'
          'schedule="decode_first";MC=64;NC=256;KC=256;LOOP_ORDER="jpi";prefill_chunk=16;PACK=1;MR=4;NR=16;VEC=8;'
          'UNROLL=2')
PORT = 0


def request(method, path, body=None, headers=None, timeout=60):
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=timeout)
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    conn.request(method, path, body=data, headers=headers or {"Content-Type": "application/json"})
    r = conn.getresponse()
    payload = r.read()
    conn.close()
    return r.status, payload


def complete(body):
    status, payload = request("POST", "/v1/completions", body)
    assert status == 200, (status, payload)
    return json.loads(payload)


def expect_error(status, body, param=None, path="/v1/completions", method="POST"):
    got, payload = request(method, path, body)
    assert got == status, (got, payload, body if len(str(body)) < 200 else "...")
    err = json.loads(payload)["error"]
    assert err["code"] == status and err["message"], err
    if param is not None:
        assert err["param"] == param, err


def sse_events(raw):
    return [line[len("data: "):] for line in raw.decode().split("\n") if line.startswith("data: ")]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def start_server():
    global PORT
    model = os.path.join(WORK, "tiny-text")
    subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tools/make-model-folder.py"), "--shape", "tiny-text",
                    "--tokenizer", "--out", model], check=True)
    server = subprocess.Popen([os.path.join(BUILD, "bin/kforge-serve"), "--model", model, "--genome", GENOME,
                               "--port", "0", "--read-timeout", "2", "--write-timeout", "5", "--max-connections",
                               "200", "--max-context", "256", "--max-queue", "512"],
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    print(line.strip())
    assert " on http://127.0.0.1:" in line, line
    PORT = int(line.split("127.0.0.1:")[1].split()[0])
    return server


def check_endpoints():
    assert request("GET", "/health")[0] == 200
    models = json.loads(request("GET", "/v1/models")[1])
    assert models["data"][0]["id"] == "tiny-text" and models["data"][0]["max_model_len"] == 256, models
    metrics = request("GET", "/metrics")[1].decode()
    assert 'kforge_engine_steps_total{model_name="tiny-text"}' in metrics, metrics[:400]
    # text in, text out (the folder's tokenizer.json); ignore_eos so all 8 tokens come
    r = complete({"model": "tiny-text", "prompt": "Hello world", "max_tokens": 8, "temperature": 0, "ignore_eos": True})
    assert r["usage"]["completion_tokens"] == 8 and r["usage"]["prompt_tokens"] > 0, r
    assert isinstance(r["choices"][0]["text"], str) and len(r["choices"][0]["token_ids"]) == 8, r
    assert r["choices"][0]["finish_reason"] == "length", r
    # curl, the way the docs call it
    out = subprocess.run(["curl", "-s", f"http://127.0.0.1:{PORT}/v1/completions", "-H",
                          "Content-Type: application/json", "-d",
                          '{"prompt": [5, 6, 7], "max_tokens": 3, "temperature": 0, "ignore_eos": true}'],
                         check=True, capture_output=True, text=True).stdout
    assert json.loads(out)["usage"] == {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}, out
    # greedy is repeatable; a seed makes sampling repeatable
    a = complete({"prompt": [9, 10, 11], "max_tokens": 6, "temperature": 0, "ignore_eos": True})
    b = complete({"prompt": [9, 10, 11], "max_tokens": 6, "temperature": 0, "ignore_eos": True})
    assert a["choices"][0]["token_ids"] == b["choices"][0]["token_ids"]
    s1 = complete({"prompt": [9, 10, 11], "max_tokens": 6, "temperature": 1.5, "seed": 5, "ignore_eos": True})
    s2 = complete({"prompt": [9, 10, 11], "max_tokens": 6, "temperature": 1.5, "seed": 5, "ignore_eos": True})
    assert s1["choices"][0]["token_ids"] == s2["choices"][0]["token_ids"]
    # a stop token ends the request with "stop" and the token itself as the last one
    first = a["choices"][0]["token_ids"][0]
    st = complete({"prompt": [9, 10, 11], "max_tokens": 6, "temperature": 0, "stop_token_ids": [first]})
    assert st["choices"][0]["token_ids"] == [first] and st["choices"][0]["finish_reason"] == "stop", st
    # streaming: one event per token, the finish reason on the last, the usage chunk, [DONE]
    status, raw = request("POST", "/v1/completions", {"prompt": "Hello world", "max_tokens": 8, "temperature": 0,
                                                      "ignore_eos": True, "stream": True,
                                                      "stream_options": {"include_usage": True}})
    events = sse_events(raw)
    assert status == 200 and events[-1] == "[DONE]", raw[-300:]
    chunks = [json.loads(e) for e in events[:-1]]
    tokens = [t for c in chunks if c["choices"] for t in c["choices"][0]["token_ids"]]
    text = "".join(c["choices"][0]["text"] for c in chunks if c["choices"])
    assert tokens == r["choices"][0]["token_ids"] and text == r["choices"][0]["text"], (tokens, text, r)
    assert chunks[-1]["usage"]["completion_tokens"] == 8 and chunks[-2]["choices"][0]["finish_reason"] == "length"
    print("endpoints: ok")


def check_refusals():
    expect_error(400, b'{"prompt": [1, 2', None)
    expect_error(400, {"prompt": [1], "max_tokens": "many"}, "max_tokens")
    expect_error(400, {"prompt": [1], "max_tokens": 300}, "max_tokens")
    expect_error(400, {"prompt": [5000]}, "prompt")
    expect_error(400, {"prompt": [1], "temperature": -1}, "temperature")
    expect_error(404, {"model": "gpt-4", "prompt": [1]}, "model")
    expect_error(413, b'{"prompt": "' + b"a" * (2 << 20) + b'"}')
    expect_error(400, b"[" * 200000 + b"]" * 200000)
    expect_error(405, None, path="/v1/completions", method="GET")
    expect_error(404, None, path="/v2/anything", method="GET")
    got, _ = request("POST", "/v1/completions", b"\xff\xfe\x00garbage")
    assert got == 400
    # a request line no HTTP parser accepts: 400, and the server goes on
    with socket.create_connection(("127.0.0.1", PORT)) as s:
        s.sendall(b"\x00\x01 NOT HTTP\r\n\r\n")
        assert s.recv(200).startswith(b"HTTP/1.1 400"), "malformed request line"
    assert request("GET", "/health")[0] == 200
    print("refusals: ok")


def check_slow_client():
    s = socket.create_connection(("127.0.0.1", PORT))
    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n")
    start = time.monotonic()
    closed = False
    while not closed and time.monotonic() - start < 10:
        try:
            s.sendall(b"X")  # one header byte every 0.2 s: a slowloris
        except OSError:
            closed = True
            break
        assert request("GET", "/health", timeout=5)[0] == 200  # others are served meanwhile
        time.sleep(0.2)
        closed = select_readable(s) and s.recv(4096) == b""
    s.close()
    elapsed = time.monotonic() - start
    assert closed and elapsed < 6, f"a slow client kept its connection {elapsed:.1f} s (read timeout 2 s)"
    print(f"slow client: cut off after {elapsed:.1f} s")


def select_readable(s):
    sel = selectors.DefaultSelector()
    sel.register(s, selectors.EVENT_READ)
    ready = sel.select(0)
    sel.close()
    return bool(ready)


def check_many_connections():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    body = json.dumps({"prompt": [3, 4], "max_tokens": 2, "temperature": 0}).encode()
    req = (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
           b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    socks = [socket.create_connection(("127.0.0.1", PORT)) for _ in range(1000)]
    sel = selectors.DefaultSelector()
    replies = {}
    for s in socks:
        try:
            s.sendall(req)
        except OSError:
            pass  # refused and closed before the request went out: counted below as 503 or reset
        sel.register(s, selectors.EVENT_READ)
        replies[s] = b""
    open_socks = set(socks)
    deadline = time.monotonic() + 120
    while open_socks and time.monotonic() < deadline:
        for key, _ in sel.select(1):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if data:
                replies[s] += data
            else:
                sel.unregister(s)
                s.close()
                open_socks.discard(s)
    codes = {}
    for data in replies.values():
        code = data[9:12].decode() if data.startswith(b"HTTP/1.1 ") else "reset"
        codes[code] = codes.get(code, 0) + 1
    print("1000 connections:", codes)
    assert not open_socks, f"{len(open_socks)} connections never answered"
    assert set(codes) <= {"200", "503", "reset"} and codes.get("200", 0) >= 150, codes
    assert request("GET", "/health")[0] == 200
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def metric(name):
    text = request("GET", "/metrics")[1].decode()
    for line in text.splitlines():
        if line.startswith(name + "{"):
            return float(line.split()[-1])
    raise AssertionError(f"{name} not in /metrics")


def check_disconnect_mid_stream():
    before = abort_count()
    s = socket.create_connection(("127.0.0.1", PORT))
    body = json.dumps({"prompt": [1, 2, 3], "max_tokens": 250, "ignore_eos": True, "stream": True}).encode()
    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
              str(len(body)).encode() + b"\r\n\r\n" + body)
    seen = b""
    while b"data: " not in seen:
        chunk = s.recv(4096)
        assert chunk, "the stream ended before its first event"
        seen += chunk
    s.close()  # gone after the first tokens
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (abort_count() > before and metric("kforge_num_requests_running") == 0):
        time.sleep(0.1)
    assert abort_count() > before, "the client's slot was not given back"
    assert metric("kforge_num_requests_running") == 0
    # the same for a client waiting for a whole (non-streamed) answer: its closed connection cancels the request
    before = abort_count()
    with socket.create_connection(("127.0.0.1", PORT)) as s:
        body = json.dumps({"prompt": [1, 2, 3], "max_tokens": 250, "ignore_eos": True}).encode()
        s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (abort_count() > before and metric("kforge_num_requests_running") == 0):
        time.sleep(0.05)
    assert abort_count() > before, "a client that left before its whole answer kept its slot"
    print("disconnect mid-stream and before a whole answer: slots freed")


def abort_count():
    text = request("GET", "/metrics")[1].decode()
    return float(next(line.split()[-1] for line in text.splitlines() if 'finished_reason="abort"' in line))


def check_answers_reach_their_clients():
    prompts = [[(7 * c + t) % 1000 + 2 for t in range(3 + c % 5)] for c in range(24)]
    alone = [complete({"prompt": p, "max_tokens": 6, "temperature": 0, "ignore_eos": True})["choices"][0]["token_ids"]
             for p in prompts]
    got = [None] * len(prompts)

    def one(i):
        got[i] = complete({"prompt": prompts[i], "max_tokens": 6, "temperature": 0, "ignore_eos": True})

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(prompts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(got):
        assert r["usage"]["prompt_tokens"] == len(prompts[i]), (i, r)
        assert r["choices"][0]["token_ids"] == alone[i], (i, r, alone[i])
    print(f"{len(prompts)} clients at once: each got its own answer")


def check_memory(pid):
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
    body = json.dumps({"prompt": "Hello there", "max_tokens": 2, "temperature": 0.7}).encode()

    def burst(n):
        for _ in range(n):
            conn.request("POST", "/v1/completions", body=body, headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            assert r.status == 200

    burst(200)
    before = rss_kib(pid)
    burst(1500)
    after = rss_kib(pid)
    conn.close()
    print(f"memory: {before} KiB after 200 requests, {after} KiB after 1500 more")
    assert after - before < 16 * 1024, f"RSS grew {after - before} KiB over 1500 requests"


def main():
    server = start_server()
    try:
        check_endpoints()
        check_refusals()
        check_slow_client()
        check_many_connections()
        check_disconnect_mid_stream()
        check_answers_reach_their_clients()
        check_memory(server.pid)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=15) == 0, "kforge-serve did not exit 0 on SIGTERM"
        print("SIGTERM: exit 0")
    finally:
        if server.poll() is None:
            server.kill()


if __name__ == "__main__":
    main()
