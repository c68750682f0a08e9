#!/usr/bin/env bash
# An engine generation through a real Slurm cluster, as an unprivileged user (run under
# slurm/scripts/with-cluster.sh, as root): share/examples/engine-host.yaml, made smaller, runs its candidates as a
# Slurm array job; every engine is verified against the reference engine and serves the workload; the serving
# figures reach the archive (h5py) and `kforge report`.
set -euo pipefail
BIN=$1 SRC=$2
source "$SRC/tests/slurm/slurm_test_user.sh" engine
mkdir "$WORK/home" && chown "$USER_NAME" "$WORK/home"
mkdir "$WORK/bin" && cp "$BIN/kforge" "$BIN/kforge-eval" "$WORK/bin/" && chmod 755 "$WORK/bin"/*
sed -e 's/^  layers: 4$/  layers: 2/' -e 's/^  requests: 16$/  requests: 6/' -e 's/^  generations: 4$/  generations: 1/' \
    -e 's/^  population: 8$/  population: 3/' -e 's/^  offspring: 8$/  offspring: 3/' \
    "$SRC/share/examples/engine-host.yaml" > "$WORK/home/engine.yaml"
grep -q '^  layers: 2$' "$WORK/home/engine.yaml" && grep -q '^  population: 3$' "$WORK/home/engine.yaml" &&
  grep -q '^  generations: 1$' "$WORK/home/engine.yaml"
cp "$SRC/site-configs/local-slurm.yaml" "$WORK/home/site.yaml"
chmod 644 "$WORK/home"/*.yaml
kf() { (cd "$WORK/home" && setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups \
  env HOME="$WORK/home" "$WORK/bin/kforge" "$@"); }

kf run engine.yaml --site site.yaml --out runs/e 2>&1 | tee "$WORK/run.log"
grep -Eq '^kforge: submitted kf:engine-host:g0:host as Slurm array [0-9]+' "$WORK/run.log"
grep -Eq '^generation 0 \(1 of 1\)  evaluated 3  ok [1-3] ' "$WORK/run.log"
DIR=$WORK/home/runs/e
[[ $(stat -c %U "$DIR/campaign.h5") == "$USER_NAME" ]]
kf report runs/e | tee "$WORK/report.txt"
grep -Eq '^    output_tokens_per_s [0-9.e+]+ tokens/s$' "$WORK/report.txt"
grep -q 'where the time goes (reported by the engine):' "$WORK/report.txt"
/usr/bin/python3 - "$DIR" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1] + "/gen-0000.h5", "r") as f:
    records, metrics = f["records"][:], f["metrics"][:]
    ok = [i for i, r in enumerate(records) if r["status"].decode() == "ok"]
    assert ok, "no engine served"
    for i in ok:
        mine = {m["name"].decode(): (m["value"], m["unit"].decode()) for m in metrics if m["record"] == i}
        assert mine["output_tokens_per_s"][0] > 0 and mine["output_tokens_per_s"][1] == "tokens/s", mine
        assert mine["requests"][0] == 6, mine
        # the record's time is ms per output token of the same run family: tokens/s and time agree within spread
        tokens_per_s = 1000.0 / records[i]["time_median_ms"]
        assert 0.5 < tokens_per_s / mine["output_tokens_per_s"][0] < 2.0, (tokens_per_s, mine)
        assert all(m[1] == "1" for n, m in mine.items() if n.startswith("op_share.")), mine
print("engine through Slurm: archive holds the serving figures of", len(ok), "engines")
PY
echo "engine through Slurm: all checks passed"
