#!/usr/bin/env bash
# docs/cli.md, "kforge-check-outputs": the block run literally from the repository root passes every case of the
# numpy KDA; then outputs that are wrong in one element, NaN where the reference is finite, or cut short are
# caught (exit 1, wrong_result naming the case), and a missing output file is exit 2 naming the file.
set -euo pipefail
SRC=$1
cd "$SRC"
export PATH=/usr/bin:/bin:$PATH  # the Debian python3 with numpy (setup.sh installs it), whatever else is first
heading=$(grep -m1 '^## kforge-check-outputs ' docs/cli.md)
command=$(/usr/bin/python3 tests/docs/run_doc_block.py docs/cli.md "$heading")
echo "running from $SRC:"
echo "$command"
rm -rf runs/kda-outside
log=$(mktemp)
trap 'rm -rf "$SRC/runs/kda-outside" "$log"' EXIT
bash -euo pipefail -c "$command" | tee "$log"
python3 - "$log" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
r = json.loads(text[text.index('{"schema_version"'):])  # the --check step's report follows the other two lines
names = [c["name"] for c in r["cases"]]
assert r["ok"] is True and r["family"] == "kda" and r["schema_version"] == 1, r
assert all(c["status"] == "ok" for c in r["cases"]), r
problems = [c["problem"] for c in r["cases"]]
assert any(p.get("varlen") == 1 for p in problems), problems  # the variable-length batches are among them
assert {"gate_low", "gate_high", "v_huge", "v_tiny"} <= {p.get("inputs") for p in problems}, problems
assert problems[-1] == {"B": 2, "H": 1, "T": 40}, problems[-1]
print(f"{len(names)} cases ok")
PY
check() { build/bin/kforge-check-outputs kda --problem B=2,T=40,H=1 --check runs/kda-outside; }
expect_wrong() {  # CASE WHAT: exit 1, and that case (only) wrong_result
  local rc=0 out
  out=$(check) || rc=$?
  [[ $rc == 1 ]] || { echo "$2: exit $rc, wanted 1: $out"; exit 1; }
  python3 -c 'import json, sys; r = json.loads(sys.argv[1]); bad = [c["name"] for c in r["cases"] if c["status"] != "ok"]
assert r["ok"] is False and bad == [sys.argv[2]], bad; print(sys.argv[3] + ":", [c["evidence"] for c in r["cases"] if c["name"] in bad][0])' \
    "$out" "$1" "$2"
}
good=$(mktemp)
trap 'rm -rf "$SRC/runs/kda-outside" "$log" "$good"' EXIT
cp runs/kda-outside/case-3/output-0.bin "$good"
# One element of a variable-length batch's output off by far more than the tolerance.
python3 -c 'import numpy as np, sys; o = np.fromfile(sys.argv[1], "<f4"); o[200 * 128 + 5] += 1.0; o.tofile(sys.argv[1])' \
  runs/kda-outside/case-3/output-0.bin
grep -q '"varlen": 1' <(python3 -c 'import json; print(json.dumps(json.load(open("runs/kda-outside/cases.json"))["cases"][3]))')
expect_wrong case-3 "one wrong element"
cp "$good" runs/kda-outside/case-3/output-0.bin
python3 -c 'import numpy as np, sys; o = np.fromfile(sys.argv[1], "<f4"); o[7] = np.nan; o.tofile(sys.argv[1])' \
  runs/kda-outside/case-0/output-0.bin
expect_wrong case-0 "NaN where the reference is finite"
python3 -c 'import numpy as np, sys; o = np.fromfile(sys.argv[1], "<f4"); o[:7] = 0; o[8:].tofile(sys.argv[1])' \
  runs/kda-outside/case-0/output-0.bin
expect_wrong case-0 "an output cut short"
rm runs/kda-outside/case-1/output-1.bin
rc=0
err=$(check 2>&1 >/dev/null) || rc=$?
[[ $rc == 2 && $err == *"case-1/output-1.bin"* ]] || { echo "missing output: exit $rc: $err"; exit 1; }

# kda_bf16, as docs/cli.md says: the same program reads bf16 q, k, v, beta and writes o as bf16; every case passes the
# bf16 family's check, and o's largest element moved by 2^-4 of its value (16 bf16 steps, 12% of
# it: far above the tolerance, 1e-3 + 2^-8 of it plus 1e-3 of the largest, itself) is that case's wrong_result.
bf=runs/kda-outside-bf16
trap 'rm -rf "$SRC/runs/kda-outside" "$SRC/$bf" "$log" "$good"' EXIT
build/bin/kforge-check-outputs kda_bf16 --problem B=2,T=40,H=1 --write-inputs $bf
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["cases"][0]; sizes = [f["bytes"] for f in c["inputs"]]
assert sizes[0] * 2 == sizes[3], sizes; print("bf16 q is half the bytes of fp32 g:", sizes)' $bf/cases.json
share/examples/kda_outputs_numpy.py $bf
out=$(build/bin/kforge-check-outputs kda_bf16 --problem B=2,T=40,H=1 --check $bf)
python3 -c 'import json, sys; r = json.loads(sys.argv[1]); assert r["ok"] is True and r["family"] == "kda_bf16", r
print(len(r["cases"]), "kda_bf16 cases ok")' "$out"
python3 -c 'import numpy as np, sys; o = np.fromfile(sys.argv[1], "<u2")
i = int(np.argmax(np.abs((o.astype(np.uint32) << 16).view(np.float32)))); print("o[%d] = bf16 bits %#06x" % (i, o[i]))
o[i] = o[i] + 16 if (o[i] & 0x7F) < 0x70 else o[i] - 16; o.tofile(sys.argv[1])' \
  $bf/case-3/output-0.bin
rc=0
out=$(build/bin/kforge-check-outputs kda_bf16 --problem B=2,T=40,H=1 --check $bf) || rc=$?
[[ $rc == 1 ]] || { echo "kda_bf16, one wrong element: exit $rc, wanted 1: $out"; exit 1; }
python3 -c 'import json, sys; r = json.loads(sys.argv[1]); bad = [c["name"] for c in r["cases"] if c["status"] != "ok"]
assert bad == ["case-3"], bad; print("kda_bf16 one wrong element:", r["cases"][3]["evidence"])' "$out"
echo "kforge-check-outputs: the documented block passes; wrong, NaN, short and missing outputs are caught; kda_bf16 too"
