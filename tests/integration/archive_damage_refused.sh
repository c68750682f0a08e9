#!/usr/bin/env bash
# Issue 11, section 3: a real campaign's archive damaged in each way an attacker tried (a generation file replaced
# by another generation's, one copied from another campaign, a changed `generation` attribute, random bytes in
# the middle of a file) is refused, with the file named, by `kforge verify` (exit 4), `kforge report`, a resume
# (`kforge run` on the same folder, which adds nothing) and the Python reader; shards that are truncated or of
# another generation / campaign are not counted as finished tasks and are run again on resume, with no record
# duplicated. The undamaged archive verifies clean.
set -euo pipefail
BIN=$1 SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CONFIG="$SRC/tests/integration/data/gemm-small.yaml"
PY=/usr/bin/python3
export PYTHONDONTWRITEBYTECODE=1
# shellcheck source=tests/support/helpers.sh
source "$SRC/tests/support/helpers.sh"  # fail

# Campaign A, whole: verify says so (exit 0), the Python reader reads it.
"$BIN/kforge" run "$CONFIG" --out "$WORK/a" > "$WORK/a.log" 2>&1 || { cat "$WORK/a.log"; fail "campaign A"; }
"$BIN/kforge" verify "$WORK/a" | tee "$WORK/verify-a.txt"
grep -q ': whole (2 generation files, 2 seals, 4 shards checked; 0 problems)' "$WORK/verify-a.txt"
$PY "$SRC/tests/integration/read_archive.py" "$WORK/a" expect-ok 16

# Campaign M: another campaign (same name and configuration), stopped in the middle of generation 1: every
# generation-1 task fails (a stand-in for kforge-eval that exits 1), so it holds manifests and no shards.
cat > "$WORK/failing-eval" <<SH
#!/usr/bin/env bash
case "\$*" in *g0001/tasks*) exit 1 ;; esac
exec "$BIN/kforge-eval" "\$@"
SH
chmod +x "$WORK/failing-eval"
rc=0
KFORGE_EVAL="$WORK/failing-eval" "$BIN/kforge" run "$CONFIG" --out "$WORK/m" > "$WORK/m.log" 2>&1 || rc=$?
[[ $rc == 3 && -f "$WORK/m/gen-0000.h5" && ! -f "$WORK/m/gen-0001.h5" ]] || { cat "$WORK/m.log"; fail "campaign M rc=$rc"; }

# expect_refused DIR FILE: verify, report, export, a resume and the Python reader refuse the damaged archive DIR
# naming FILE; the resume adds nothing and export writes nothing.
expect_refused() {
  local dir=$1 file=$2 rc out
  rc=0; out=$("$BIN/kforge" verify "$dir" 2>&1) || rc=$?
  [[ $rc == 4 ]] || fail "verify $dir: exit $rc, expected 4: $out"
  grep -q "^$file: " <<< "$out" || fail "verify $dir does not name $file: $out"
  rc=0; out=$("$BIN/kforge" report "$dir" 2>&1) || rc=$?
  [[ $rc == 1 && $out == *"$file: "* ]] || fail "report $dir: exit $rc: $out"
  rc=0; out=$("$BIN/kforge" export "$dir" --best --to "$dir-export" 2>&1) || rc=$?
  [[ $rc == 1 && $out == *"$file: "* && ! -e "$dir-export" ]] || fail "export of $dir: exit $rc: $out"
  local before; before=$(cd "$dir" && sha256sum gen-*.h5)
  rc=0; out=$("$BIN/kforge" run "$CONFIG" --out "$dir" 2>&1) || rc=$?
  [[ $rc == 1 && $out == *"$file: "* ]] || fail "resume of $dir: exit $rc: $out"
  [[ $(cd "$dir" && sha256sum gen-*.h5) == "$before" ]] || fail "resume of $dir changed or added a generation file"
  $PY "$SRC/tests/integration/read_archive.py" "$dir" expect-error "$file"
  echo "refused, naming $file: ${out##*"$file: "}"
}

# 1. gen-0001.h5 replaced by generation 0's file.
cp -a "$WORK/a" "$WORK/d1" && cp "$WORK/a/gen-0000.h5" "$WORK/d1/gen-0001.h5"
expect_refused "$WORK/d1" "$WORK/d1/gen-0001.h5"
# 2. gen-0000.h5 copied from campaign M (same name, same configuration).
cp -a "$WORK/a" "$WORK/d2" && cp "$WORK/m/gen-0000.h5" "$WORK/d2/gen-0000.h5"
expect_refused "$WORK/d2" "$WORK/d2/gen-0000.h5"
# 3. The `generation` attribute of gen-0001.h5 changed to 0 (with h5py, as a person would).
cp -a "$WORK/a" "$WORK/d3"
$PY -c 'import h5py, sys; f = h5py.File(sys.argv[1], "r+"); f.attrs.modify("generation", 0); f.close()' "$WORK/d3/gen-0001.h5"
expect_refused "$WORK/d3" "$WORK/d3/gen-0001.h5"
# 4. 64 random bytes written into the middle of gen-0001.h5.
cp -a "$WORK/a" "$WORK/d4"
size=$(stat -c %s "$WORK/d4/gen-0001.h5")
dd if=/dev/urandom of="$WORK/d4/gen-0001.h5" bs=1 count=64 seek=$((size / 2)) conv=notrunc status=none
expect_refused "$WORK/d4" "$WORK/d4/gen-0001.h5"

# 5. Shards of M's unfinished generation 1: one truncated, one of another campaign (A's), then one of another
# generation (M's own generation 0). None counts as a finished task; a resume runs those tasks again.
M=$WORK/m
for t in 0000 0001; do "$BIN/kforge-eval" --manifest "$M/g0001/tasks/$t.yaml" > "$WORK/eval-$t.log" 2>&1; done
"$BIN/kforge" status "$M" --json > "$WORK/status-whole.json"
grep -q '"current_tasks_done":2' "$WORK/status-whole.json" || fail "status before damage: $(cat "$WORK/status-whole.json")"
truncate -s $(( $(stat -c %s "$M/g0001/shards/0000.h5") / 2 )) "$M/g0001/shards/0000.h5"
# With its seal, as someone copying a whole shard would: the seal holds, the campaign id does not.
cp "$WORK/a/g0001/shards/0001.h5" "$WORK/a/g0001/shards/0001.h5.seal" "$M/g0001/shards/"
"$BIN/kforge" status "$M" --json > "$WORK/status-damaged.json"
grep -q '"current_tasks_done":0' "$WORK/status-damaged.json" || fail "status counts a bad shard: $(cat "$WORK/status-damaged.json")"
rc=0; out=$("$BIN/kforge" verify "$M" 2>&1) || rc=$?
[[ $rc == 4 && $out == *"$M/g0001/shards/0000.h5: reading shard: its bytes do not match its seal"* &&
   $out == *"$M/g0001/shards/0001.h5: reading shard: belongs to another campaign"* ]] ||
  fail "verify of M: exit $rc: $out"
$PY "$SRC/tests/integration/read_archive.py" "$M/g0001/shards/0000.h5" expect-error "$M/g0001/shards/0000.h5"
$PY "$SRC/tests/integration/read_archive.py" "$M/g0001/shards/0001.h5" expect-error "$M/g0001/shards/0001.h5"
cp "$M/g0000/shards/0000.h5" "$M/g0001/shards/0000.h5"  # now: another generation's shard in task 0's place
cp "$M/g0000/shards/0000.h5.seal" "$M/g0001/shards/0000.h5.seal"
rc=0; out=$("$BIN/kforge" verify "$M" 2>&1) || rc=$?
[[ $rc == 4 && $out == *"$M/g0001/shards/0000.h5: reading shard: its 'generation' attribute says 0 but its name says 1"* ]] ||
  fail "verify of M (generation 0 shard in generation 1): exit $rc: $out"
"$BIN/kforge" run "$CONFIG" --out "$M" | tee "$WORK/resume-m.log"
grep -q "^kforge: task 0 (generation 1) runs again: $M/g0001/shards/0000.h5: " "$WORK/resume-m.log"
grep -q "^kforge: task 1 (generation 1) runs again: $M/g0001/shards/0001.h5: reading shard: belongs to another campaign" "$WORK/resume-m.log"
grep -q '^generation 1 (2 of 2)  evaluated 8' "$WORK/resume-m.log"
"$BIN/kforge" verify "$M"
$PY "$SRC/tests/integration/read_archive.py" "$M" expect-ok 16  # 16 records, none twice
rc=0; "$BIN/kforge" verify "$WORK/not-a-campaign" || rc=$?
[[ $rc == 1 ]] || fail "verify of a folder that is no campaign: exit $rc, expected 1"
echo "ok: every damaged archive refused with the file named; the whole ones verify clean"
