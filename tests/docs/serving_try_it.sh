#!/usr/bin/env bash
# docs/serving.md, "Try it": the block run literally by an unprivileged user created here, from the root of a copy
# of the repository that user owns (the files the block names and the built binaries): the campaign, kforge serve in
# the background, curl for text, a stream and /metrics, then kill %1. The server must answer all three and stop.
set -euo pipefail
SRC=$1 BIN=$2
# shellcheck source=../support/test_user.sh
source "$SRC/tests/support/test_user.sh" docserve
user=$USER_NAME
repo=$WORK/repo
mkdir -p "$repo/build/bin" "$repo/share/examples" "$repo/tools" "$WORK/home"
cp "$SRC/tools/make-model-folder.py" "$repo/tools/"
cp "$SRC/share/examples/engine-serve.yaml" "$repo/share/examples/"
cp "$BIN/kforge" "$BIN/kforge-eval" "$BIN/kforge-serve" "$repo/build/bin/"
chown -R "$user" "$repo" "$WORK/home"
command=$(/usr/bin/python3 "$SRC/tests/docs/run_doc_block.py" "$SRC/docs/serving.md" "## Try it")
echo "from the repository root, as $user:"
echo "$command"
out=$(cd "$repo" && setpriv --reuid="$user" --regid="$user" --init-groups \
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK/home" USER="$user" TMPDIR="$WORK/home" \
  bash -euo pipefail -c "$command" 2>&1)
echo "$out"
grep -q '^kforge serve: tiny-text on http://127.0.0.1:8000 ' <<<"$out"
grep -q '"object":"text_completion"' <<<"$out"
grep -Eq '"usage":\{"completion_tokens":12,"prompt_tokens":[0-9]+' <<<"$out"
grep -q '^data: \[DONE\]' <<<"$out"
grep -q '^kforge_generation_tokens_total{model_name="tiny-text"} 16' <<<"$out"
# kill %1 stopped the server: nothing of the user's is left running
for _ in $(seq 1 50); do pgrep -u "$user" >/dev/null || break; sleep 0.2; done
if pgrep -u "$user" -a; then echo "kill %1 left the server running"; exit 1; fi
echo "serving Try it: ok"
