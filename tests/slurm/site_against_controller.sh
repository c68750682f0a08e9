#!/usr/bin/env bash
# The site file against a real controller (run under slurm/scripts/with-cluster.sh; partitions hopper and
# blackwell, whose one node has GRES gpu:h100:4 and gpu:b200:4):
#   A. `kforge validate` with site-configs/local-slurm.yaml checks partitions and GRES: exit 0 (libslurm and cli)
#   B. a site naming a partition the controller lacks: exit 2 naming slurm.targets.hopper.partition
#   C. a site naming a GRES no node of the partition has (another model, or too many): exit 2 naming .gres
#   D. no SLURM_CONF in the environment but slurm.conf in the site: validate asks the controller, and a one-
#      generation `kforge run` completes through Slurm (SLURM_CONF reaches sbatch, squeue and the jobs)
#   E. neither SLURM_CONF nor slurm.conf (nor /etc/slurm/slurm.conf): validate says the controller was not
#      checked (exit 0); run exits 2 naming the site file and slurm.conf and writes nothing; a slurm.conf that
#      does not exist is exit 2 at its FILE:LINE:COLUMN
#   F. slurm.agent_partition is asked of the controller too (exit 2 at its key when missing); a partition with a
#      line break and #SBATCH in it is refused at load, before the controller or the campaign directory
# Every command runs from the repository root, as the docs show them.
set -euo pipefail
BIN=$1 SRC=$2
: "${SLURM_CONF:?run me under slurm/scripts/with-cluster.sh}"
CONF=$SLURM_CONF
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$SRC"
CAMPAIGN=tests/slurm/data/two-islands.yaml
# shellcheck source=tests/support/helpers.sh
source tests/support/helpers.sh  # fail, expect_exit CODE TEXT CMD...

echo "== A. the test cluster's own site passes"
expect_exit 0 "controller checked" "$BIN/kforge" validate "$CAMPAIGN" --site site-configs/local-slurm.yaml
sed 's/^  client: auto/  client: cli /' site-configs/local-slurm.yaml >"$WORK/cli.yaml"
expect_exit 0 "controller checked (cli)" "$BIN/kforge" validate "$CAMPAIGN" --site "$WORK/cli.yaml"
sed 's/gpu:b200:1/gpu:a100:1/; s/^  client: auto/  client: cli /' site-configs/local-slurm.yaml >"$WORK/cli-no-gres.yaml"
expect_exit 2 "slurm.targets.blackwell.gres: no node of partition 'blackwell' has gpu:a100:1" \
  "$BIN/kforge" validate "$CAMPAIGN" --site "$WORK/cli-no-gres.yaml"

echo "== B. a missing partition"
sed 's/hopper: {partition: hopper,/hopper: {partition: gpu-nosuch,/' site-configs/local-slurm.yaml >"$WORK/no-partition.yaml"
expect_exit 2 "slurm.targets.hopper.partition: the controller has no partition 'gpu-nosuch'" \
  "$BIN/kforge" validate "$CAMPAIGN" --site "$WORK/no-partition.yaml"

echo "== C. a missing GRES: another model, and more GPUs than the node has"
sed 's/gpu:b200:1/gpu:a100:1/' site-configs/local-slurm.yaml >"$WORK/no-gres.yaml"
expect_exit 2 "slurm.targets.blackwell.gres: no node of partition 'blackwell' has gpu:a100:1" \
  "$BIN/kforge" validate "$CAMPAIGN" --site "$WORK/no-gres.yaml"
sed 's/gpu:h100:1/gpu:h100:8/' site-configs/local-slurm.yaml >"$WORK/too-many.yaml"
expect_exit 2 "slurm.targets.hopper.gres: no node of partition 'hopper' has gpu:h100:8" \
  "$BIN/kforge" validate "$CAMPAIGN" --site "$WORK/too-many.yaml"

echo "== D. slurm.conf in the site instead of SLURM_CONF"
sed "s|^  client: auto.*|  client: auto\n  conf: $CONF|" site-configs/local-slurm.yaml >"$WORK/named-conf.yaml"
grep -q "conf: $CONF" "$WORK/named-conf.yaml" || fail "slurm.conf not written into the site"
sed 's/generations: 2/generations: 1/' "$CAMPAIGN" >"$WORK/one-generation.yaml"
expect_exit 0 "controller checked" env -u SLURM_CONF "$BIN/kforge" validate "$WORK/one-generation.yaml" --site "$WORK/named-conf.yaml"
expect_exit 0 "kforge: 1 generations" env -u SLURM_CONF "$BIN/kforge" run "$WORK/one-generation.yaml" \
  --site "$WORK/named-conf.yaml" --out "$WORK/run-named-conf"
ls "$WORK"/run-named-conf/g*/slurm/jobs >/dev/null || fail "no Slurm job ledger: the run did not go through Slurm"

echo "== E. no Slurm configuration at all"
if [[ -e /etc/slurm/slurm.conf ]]; then
  echo "skipped: /etc/slurm/slurm.conf exists on this machine"
else
  expect_exit 0 "controller not reachable: partitions and GRES not checked" \
    env -u SLURM_CONF "$BIN/kforge" validate "$CAMPAIGN" --site site-configs/local-slurm.yaml
  expect_exit 2 "site-configs/local-slurm.yaml sets no slurm.conf" \
    env -u SLURM_CONF "$BIN/kforge" run "$CAMPAIGN" --site site-configs/local-slurm.yaml --out "$WORK/never"
  [[ ! -e $WORK/never ]] || fail "a run without a Slurm configuration wrote $WORK/never"
  # The command in site-configs/mixed-site.yaml, literally (its partitions are not this cluster's).
  expect_exit 0 "controller not reachable: partitions and GRES not checked" \
    env -u SLURM_CONF "$BIN/kforge" validate share/examples/gemm-cuda.yaml --site site-configs/mixed-site.yaml
fi
sed "s|^  client: auto.*|  client: auto\n  conf: /nonexistent/slurm.conf|" site-configs/local-slurm.yaml >"$WORK/bad-conf.yaml"
expect_exit 2 "bad-conf.yaml:12:9: slurm.conf: the site's slurm.conf /nonexistent/slurm.conf is not readable" \
  "$BIN/kforge" run "$CAMPAIGN" --site "$WORK/bad-conf.yaml" --out "$WORK/never2"
[[ ! -e $WORK/never2 ]] || fail "a run with an unreadable slurm.conf wrote $WORK/never2"

echo "== F. the agents' partition is asked too; a hostile value never reaches the controller"
sed "s|^  client: auto.*|  client: auto\n  agent_partition: hopper|" site-configs/local-slurm.yaml >"$WORK/agents-ok.yaml"
expect_exit 0 "and of the agents" "$BIN/kforge" validate "$CAMPAIGN" --site "$WORK/agents-ok.yaml"
sed "s|^  client: auto.*|  client: auto\n  agent_partition: cpu-nosuch|" site-configs/local-slurm.yaml >"$WORK/agents-no.yaml"
expect_exit 2 "agents-no.yaml:12:20: slurm.agent_partition: the controller has no partition 'cpu-nosuch'" \
  "$BIN/kforge" validate "$CAMPAIGN" --site "$WORK/agents-no.yaml"
sed 's/hopper: {partition: hopper,/hopper: {partition: "hopper\\n#SBATCH --uid=0",/' site-configs/local-slurm.yaml \
  >"$WORK/injected.yaml"
expect_exit 2 "slurm.targets.hopper.partition: contains a line break" \
  "$BIN/kforge" run "$CAMPAIGN" --site "$WORK/injected.yaml" --out "$WORK/never3"
[[ ! -e $WORK/never3 ]] || fail "a site with an injected partition wrote $WORK/never3"
echo "site against controller: all phases passed"
