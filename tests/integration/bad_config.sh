#!/usr/bin/env bash
# A campaign file with a misspelt key: exit code 2, FILE:LINE:COLUMN: key: problem (allowed), nothing written.
set -uo pipefail
BIN=$1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/bad.yaml" <<'YAML'
campaign:
  name: bad
  family: gemm
  backend: host
space:
  parameters:
    MC: [16, 32]
search:
  generations: 2
  populaton: 4
YAML
"$BIN/kforge" run "$WORK/bad.yaml" --out "$WORK/out" 2> "$WORK/err"
code=$?
cat "$WORK/err"
[[ $code -eq 2 ]] || { echo "exit code $code, expected 2"; exit 1; }
grep -q "^$WORK/bad.yaml:10:3: search.populaton: " "$WORK/err" || { echo "message lacks FILE:10:3: search.populaton"; exit 1; }
[[ ! -e "$WORK/out" ]] || { echo "the campaign directory was created for an invalid config"; exit 1; }
echo "ok"
