#!/usr/bin/env bash
# Writes a copy of an example campaign with a smaller search budget, for drills and the GPU acceptance run.
#   usage: tools/small-campaign.sh CAMPAIGN.yaml OUT.yaml GENERATIONS POPULATION
# Sets search.generations, search.population and search.offspring (elite stays: examples keep it <= 2).
set -euo pipefail
(($# == 4)) || { echo "usage: $0 CAMPAIGN.yaml OUT.yaml GENERATIONS POPULATION" >&2; exit 2; }
sed -E -e "s/^(  generations:) [0-9]+/\1 $3/" -e "s/^(  population:) [0-9]+/\1 $4/" -e "s/^(  offspring:) [0-9]+/\1 $4/" \
  "$1" > "$2"
grep -q "^  generations: $3\$" "$2" || { echo "$0: $1 has no search.generations line" >&2; exit 2; }
