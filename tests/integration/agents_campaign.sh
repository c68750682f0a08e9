#!/usr/bin/env bash
# Agent operators in a real campaign: the source-level gemm rewriter's children are evaluated and credited in
# the report; an agent that crashes and one that writes garbage are recorded failures and the campaign goes on.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
printf '#!/bin/sh\necho "agent exploded" >&2\nexit 3\n' > "$WORK/crashing-agent.sh"
# shellcheck disable=SC2016  # the agent script's own $1 and $2
printf '#!/bin/sh\nwhile [ "$1" != --children ]; do shift; done\necho "{{{ not yaml" > "$2"\n' > "$WORK/garbage-agent.sh"
chmod +x "$WORK"/*.sh
{ cat "$SRC/tests/integration/data/gemm-small.yaml"
  cat <<YAML
agents:
  - {name: rewriter, command: [python3, $SRC/share/agents/gemm_rewriter.py], weight: 0.5, timeout_s: 60}
  - {name: crasher, command: [$WORK/crashing-agent.sh], weight: 0.1, timeout_s: 10}
  - {name: garbage, command: [$WORK/garbage-agent.sh], weight: 0.1, timeout_s: 10}
YAML
} > "$WORK/campaign.yaml"
"$BIN/kforge" run "$WORK/campaign.yaml" --out "$WORK/c" | tee "$WORK/run.log"
grep -q '^agent rewriter (island 0): ok, [1-9][0-9]* children accepted' "$WORK/run.log"
grep -q '^agent crasher (island 0): crashed, 0 children accepted' "$WORK/run.log"
grep -q '^agent garbage (island 0): malformed, 0 children accepted' "$WORK/run.log"
grep -q '^generation 1 (2 of 2)  evaluated 8' "$WORK/run.log"
grep -q 'agent exploded' "$WORK/c/g0001/agents/crasher-island0/outcome.txt"
"$BIN/kforge" report "$WORK/c" --json > "$WORK/report.json"
/usr/bin/python3 - "$WORK/report.json" "$WORK/c" "$SRC" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(sys.argv[3], "share", "python"))
import kforge_archive
report = json.load(open(sys.argv[1]))
credit = report["operators"]["agent:rewriter"]
assert credit["children"] >= 1 and credit["ok"] >= 1, credit
df = kforge_archive.load_records(sys.argv[2], with_text=True)
agent = df[df["op"] == "agent:rewriter"]
assert len(agent) == credit["children"], (len(agent), credit)
assert (agent["generation"] == 1).all()
assert agent["source"].str.contains("kforge_gemm").all()
parents = df.set_index("candidate_id")["source"]
for _, row in agent.iterrows():  # a source-level edit: the child's source differs from its parents'
    assert all(parents.get(p, "") != row["source"] for p in row["parents"].split(",")), row["candidate_id"]
print("ok: rewriter children", credit)
PY
