#!/usr/bin/env bash
# kforge agent operator: adapter for a command-line LLM coding agent (docs/agents.md, "LLM adapter").
#
#   llm_agent_adapter.sh --brief BRIEF.yaml --children CHILDREN.yaml
#
# It turns the brief into a prompt, pipes the prompt into $KFORGE_LLM_CMD on stdin and expects the answer on
# stdout: a JSON or YAML document {"children": [...]} in the children-file format, optionally inside a
# ```json / ```yaml fence (the first fenced block wins; without a fence the whole answer is used).
# kforge then checks every child (docs/agents.md, "Children file"): an answer that is not a children file is a
# recorded "malformed" outcome of this operator, and the generation goes on.
#
# Environment:
#   KFORGE_LLM_CMD   the agent command, run with `bash -c`, e.g. 'claude -p', 'llm -m gpt-4o', 'aider --message-file -'
#                    (required; the adapter exits 2 without it). It must read the prompt on stdin.
#   KFORGE_LLM_NOTES optional extra instructions appended to the prompt (house style, hardware facts).
# The time limit is kforge's (timeout_s of the agent); kforge kills this script's whole process group at it.
# Not run by the test suite: it needs a model. Files it leaves in its working directory: prompt.txt, answer.txt.
set -euo pipefail

brief="" children=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --brief) brief="$2"; shift 2 ;;
    --children) children="$2"; shift 2 ;;
    *) echo "llm_agent_adapter: unknown argument '$1' (expected --brief FILE --children FILE)" >&2; exit 2 ;;
  esac
done
[[ -n "$brief" && -n "$children" ]] || { echo "llm_agent_adapter: --brief and --children are required" >&2; exit 2; }
[[ -n "${KFORGE_LLM_CMD:-}" ]] || { echo "llm_agent_adapter: set KFORGE_LLM_CMD to the LLM agent command" >&2; exit 2; }

{
  cat <<'PROMPT'
You are a variation operator in an evolutionary search over compute kernels (kforge).
Below is a brief in YAML: the campaign, the search space (parameters with their allowed values and the
constraints), what the campaign has learnt so far (lessons), and parent candidates with their source code,
their measured status, median time in milliseconds, speedup over the reference, and evidence.

Propose `children_wanted` children that are likely to be faster than the parents while staying correct.
A child may change parameters (choose only listed values that satisfy every constraint) and/or edit a
parent's source. An edited source must be complete, compile on its own and keep the exported entry point
and its signature exactly as in the parent. Prefer one clear idea per child and say what it is.

Answer with ONLY one JSON document in a ```json fence, of this form:
{"children": [
  {"parents": ["<id of the parent it comes from>"],
   "genome": {"<parameter>": <value>, ...},
   "source": "<the full edited source, or leave this key out to use the parameters only>",
   "rationale": "<one sentence: what changed and why it should be faster>"}
]}
Every parameter of the space must appear in genome. Do not write anything outside the fence.

PROMPT
  if [[ -n "${KFORGE_LLM_NOTES:-}" ]]; then printf 'Notes from the operator:\n%s\n\n' "$KFORGE_LLM_NOTES"; fi
  echo "The brief:"
  cat "$brief"
} > prompt.txt

bash -c "$KFORGE_LLM_CMD" < prompt.txt > answer.txt

# The first ```json / ```yaml / ``` fenced block, or the whole answer when it has no fence.
awk '
  /^```/ { if (inside) { done = 1; exit } else { inside = 1; found = 1; next } }
  inside { print }
  END { exit found ? 0 : 1 }
' answer.txt > "$children.tmp" || cp answer.txt "$children.tmp"
mv "$children.tmp" "$children"
echo "llm_agent_adapter: answer of $(wc -c < answer.txt) bytes written to $children" >&2
