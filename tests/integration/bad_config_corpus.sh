#!/usr/bin/env bash
# Every class of bad configuration is a configuration error: exit 2, FILE:LINE:COLUMN: KEY: first, and nothing
# written (the --out directory is not created). The corpus (data/bad-configs/expected.tsv) holds one file per
# class with the place it must be reported at; unreadable files and hostile expressions are made here.
set -uo pipefail
BIN=$1
DATA=$2/bad-configs
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0

# expect_config_error PREFIX CMD...: exit 2, stderr's first line starts with PREFIX, $WORK/out absent.
expect_config_error() {
  local prefix=$1
  shift
  timeout 60 "$@" > "$WORK/stdout" 2> "$WORK/err"
  local code=$?
  local first
  first=$(head -n 1 "$WORK/err")
  if [[ $code -ne 2 ]]; then
    echo "FAIL ($*): exit code $code, expected 2; stderr: $first"
    failures=$((failures + 1))
  elif [[ "$first" != "$prefix"* ]]; then
    echo "FAIL ($*): stderr does not start with '$prefix': $first"
    failures=$((failures + 1))
  elif [[ -e "$WORK/out" ]]; then
    echo "FAIL ($*): $WORK/out was created for an invalid config"
    failures=$((failures + 1))
  else
    echo "ok: $first"
  fi
  rm -rf "$WORK/out"
}

# The corpus: each file through kforge validate and kforge run.
while IFS=$'\t' read -r file place key kind; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  if [[ "$kind" == site ]]; then
    expect_config_error "$DATA/$file:$place: $key: " "$BIN/kforge" validate "$DATA/good-campaign.yaml" --site "$DATA/$file"
    expect_config_error "$DATA/$file:$place: $key: " "$BIN/kforge" run "$DATA/good-campaign.yaml" --site "$DATA/$file" --out "$WORK/out"
  else
    expect_config_error "$DATA/$file:$place: $key: " "$BIN/kforge" validate "$DATA/$file"
    expect_config_error "$DATA/$file:$place: $key: " "$BIN/kforge" run "$DATA/$file" --out "$WORK/out"
  fi
done < "$DATA/expected.tsv"

# The good files of the corpus do validate: the errors above come from the one change each file makes.
"$BIN/kforge" validate "$DATA/good-campaign.yaml" > /dev/null || { echo "FAIL: good-campaign.yaml does not validate"; failures=$((failures + 1)); }

# Files that are not config files: refused promptly (timeout 60 would turn a hang into exit 124), named.
mkfifo "$WORK/fifo.yaml"
expect_config_error "$WORK/fifo.yaml:1:1: <file>: cannot read: it is a FIFO" "$BIN/kforge" run "$WORK/fifo.yaml" --out "$WORK/out"
expect_config_error "/dev/zero:1:1: <file>: cannot read: it is a character device" "$BIN/kforge" run /dev/zero --out "$WORK/out"
mkdir "$WORK/dir.yaml"
expect_config_error "$WORK/dir.yaml:1:1: <file>: cannot read: it is a directory" "$BIN/kforge" run "$WORK/dir.yaml" --out "$WORK/out"
{ cat "$DATA/good-campaign.yaml"; head -c 2000000 /dev/zero | tr '\0' '#'; } > "$WORK/big.yaml"
expect_config_error "$WORK/big.yaml:1:1: <file>: cannot read: 2000" "$BIN/kforge" run "$WORK/big.yaml" --out "$WORK/out"
expect_config_error "$WORK/fifo.yaml:1:1: <file>: cannot read: it is a FIFO" "$BIN/kforge" validate "$DATA/good-campaign.yaml" --site "$WORK/fifo.yaml"

# Hostile expressions: deep nesting and long chains are refused with a message, never a crash (SIGSEGV before).
constraint_file() {  # constraint_file NAME EXPRESSION
  sed "s|    - \"NR % VEC == 0\"|    - \"$2\"|" "$DATA/good-campaign.yaml" > "$WORK/$1.yaml"
}
constraint_file nested "$(printf '(%.0s' $(seq 10000))MC$(printf ')%.0s' $(seq 10000)) > 0"
expect_config_error "$WORK/nested.yaml:18:7: space.constraints[0]: " "$BIN/kforge" run "$WORK/nested.yaml" --out "$WORK/out"
constraint_file nested64 "$(printf '(%.0s' $(seq 70))MC$(printf ')%.0s' $(seq 70)) > 0"
expect_config_error "$WORK/nested64.yaml:18:7: space.constraints[0]: \"" "$BIN/kforge" run "$WORK/nested64.yaml" --out "$WORK/out"
grep -q "nested more than 64 levels" "$WORK/err" || { echo "FAIL: no nesting message"; failures=$((failures + 1)); }
constraint_file chained "MC$(printf ' + MC%.0s' $(seq 20000)) > 0"
expect_config_error "$WORK/chained.yaml:18:7: space.constraints[0]: " "$BIN/kforge" run "$WORK/chained.yaml" --out "$WORK/out"
grep -q "longer than 4096 characters" "$WORK/err" || { echo "FAIL: no length message"; failures=$((failures + 1)); }
constraint_file tokens "MC$(printf '+MC%.0s' $(seq 600)) > 0"
expect_config_error "$WORK/tokens.yaml:18:7: space.constraints[0]: " "$BIN/kforge" run "$WORK/tokens.yaml" --out "$WORK/out"
grep -q "more than 1024 tokens" "$WORK/err" || { echo "FAIL: no token-count message"; failures=$((failures + 1)); }
constraint_file negations "$(printf 'not %.0s' $(seq 5000))MC > 0"
expect_config_error "$WORK/negations.yaml:18:7: space.constraints[0]: " "$BIN/kforge" run "$WORK/negations.yaml" --out "$WORK/out"
# YAML nested deeper than the parser allows.
python3 -c "print('campaign: ' + '[' * 10000 + ']' * 10000)" > "$WORK/deep.yaml"
expect_config_error "$WORK/deep.yaml:1:" "$BIN/kforge" run "$WORK/deep.yaml" --out "$WORK/out"

echo "$failures failure(s)"
[[ $failures -eq 0 ]]
