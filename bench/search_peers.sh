#!/usr/bin/env bash
# search_peers: kforge's strategies and the ones users would pick instead, on the same measured spaces,
# budgets, repeats and metric, in one table (bench/README.md, "Search efficiency").
#   bench/search_peers.sh [BUILD_DIR] [--budgets 25,100,400] [--repeats 50] [--cache FILE...]
# Kernel Tuner (simulation mode over the same caches) and Optuna (TPE) are installed from PyPI into a virtual
# environment (BUILD_DIR/peers-venv, made once); without the registry the peers are skipped with a message
# and only kforge's figures print. Never part of the test suite.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
[[ $# -gt 0 ]] && shift
BUDGETS=25,100,400 REPEATS=50 CACHES=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --budgets) BUDGETS=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --cache) shift; while [[ $# -gt 0 && $1 != --* ]]; do CACHES+=("$1"); shift; done ;;
    *) echo "search_peers: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ ${#CACHES[@]} -gt 0 ]] || CACHES=("$ROOT"/share/data/kernel-spaces/cache/*.json.gz)
STRATEGIES=${KFORGE_STRATEGIES:-default,gp+log+prod+tr2}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$BUILD/bin/search_efficiency" --cache "${CACHES[@]}" --budgets "$BUDGETS" --repeats "$REPEATS" \
    --strategy "$STRATEGIES" --json > "$OUT/kforge.json"
VENV=$BUILD/peers-venv
if [[ ! -x $VENV/bin/python ]] || ! "$VENV/bin/python" -c 'import kernel_tuner, optuna' 2>/dev/null; then
  if ! python3 -m venv "$VENV" || ! "$VENV/bin/pip" install -q kernel_tuner optuna; then
    echo "search_peers: could not install kernel_tuner and optuna from PyPI (no registry?): peers skipped" >&2
    "$BUILD/bin/search_efficiency" --cache "${CACHES[@]}" --budgets "$BUDGETS" --repeats "$REPEATS" \
        --strategy "$STRATEGIES"
    exit 0
  fi
fi
"$VENV/bin/python" "$ROOT/bench/search_peers.py" --cache "${CACHES[@]}" --budgets "$BUDGETS" \
    --repeats "$REPEATS" --kforge-json "$OUT/kforge.json"
