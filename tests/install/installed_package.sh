#!/usr/bin/env bash
# docs/install.md, run literally from the repository root as a reader runs it, with HOME pointing at a private
# folder (so the documented prefix "$HOME/opt/kforge" is this test's own), then checks of what that one install
# put there:
#   - every file a site needs is there (binaries, Python module, examples, site configs, sbatch scripts, systemd
#     unit, docs, man pages, completion, modulefile, headers, library, CMake package);
#   - each man page renders with `man --warnings -l` without a warning and holds every command and option of the
#     installed binaries' --help (kforge(1), kforged(8), kforge-eval(1)) or every key of its schema document;
#   - the bash completion offers exactly the commands and options of the binaries' --help;
#   - the C++ consumer (find_package(kforge)) and the installed Python reader see the same archive;
#   - Debian's Lmod loads the modulefile (docs/install.md's block): every path it sets exists, unload takes them
#     away, and a moved copy follows its own path;
#   - the systemd unit starts the installed kforged and points at the installed docs.
#   usage: installed_package.sh SRC BUILD     (BUILD must be SRC/build: the docs say `cmake --install build`)
set -euo pipefail
SRC=$1 BUILD=$2
[[ $(realpath "$BUILD") == $(realpath "$SRC/build") ]] || { echo "docs/install.md installs build/: BUILD=$BUILD" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# The system python3 (h5py, pandas from Debian) as a reader's shell has it, not a pyenv shim; no inherited paths.
export HOME=$WORK PATH=/usr/local/bin:/usr/bin:/bin
unset MANPATH PYTHONPATH CMAKE_PREFIX_PATH
HERE=$SRC/tests/install
P=$HOME/opt/kforge
cd "$SRC"
# shellcheck source=tests/support/helpers.sh
source tests/support/helpers.sh  # fail

# 1. The shell blocks of docs/install.md, in order, in one shell (a reader's terminal: exports carry over).
block() { /usr/bin/python3 tests/docs/run_doc_block.py docs/install.md "$@"; }
{
  echo "set -eo pipefail"   # -e: stop at a failing command; no -u: a reader's shell has unset variables
  block "## Install into a prefix"
  block "## Use the installed kforge"
  block "## Run the demo from the installed tree"
  block "## A C++ project that reads archives"
  block "## A release tarball"
} > "$WORK/doc-blocks.sh"
bash "$WORK/doc-blocks.sh" > "$WORK/doc.log" 2>&1 || { cat "$WORK/doc.log"; fail "a docs/install.md block failed"; }
grep -q "^kforge 0\.1\." "$WORK/doc.log" || fail "kforge --version: $(head -3 "$WORK/doc.log")"
tar -tzf "$HOME/kforge-0.1.0.tar.gz" > "$WORK/tarball.txt"
grep -qx "kforge-0.1.0/CMakeLists.txt" "$WORK/tarball.txt" || fail "the tarball lacks kforge-0.1.0/CMakeLists.txt"

# 2. What a site needs, where docs/install.md's table says.
for f in bin/kforge bin/kforged bin/kforge-eval bin/kforge-serve share/kforge/python/kforge_archive.py \
         share/kforge/python/kforge_verify.py share/kforge/examples/gemm-host.yaml \
         share/kforge/site-configs/hopper-cluster.yaml share/kforge/slurm/kforge-campaign.sbatch \
         share/kforge/slurm/kforged-head.sbatch share/kforge/slurm/templates/kforge-array.sbatch.in \
         share/kforge/systemd/kforged.service share/doc/kforge/install.md share/doc/kforge/README.md \
         share/man/man1/kforge.1 share/man/man1/kforge-eval.1 share/man/man8/kforged.8 \
         share/man/man5/kforge-campaign.5 share/man/man5/kforge-site.5 \
         share/bash-completion/completions/kforge share/bash-completion/completions/kforged \
         share/bash-completion/completions/kforge-eval share/modulefiles/kforge/0.1.0.lua \
         include/kforge/jobs/archive.hpp lib/cmake/kforge/kforgeConfig.cmake lib/cmake/kforge/kforgeTargets.cmake; do
  [[ -e $P/$f ]] || fail "not installed: $f"
done
[[ -x $P/share/kforge/slurm/kforge-campaign.sbatch ]] || fail "the sbatch scripts lost their mode"
[[ ! -e $P/share/kforge/python/test_kforge_archive.py ]] || fail "the reader's tests were installed"

# 3. Man pages: no groff warning, and what the binaries' help and the schema docs say is in them.
for page in "$P"/share/man/man*/*; do
  MANWIDTH=100 man --warnings -l "$page" > "$WORK/page.txt" 2> "$WORK/page.err"
  [[ ! -s $WORK/page.err ]] || { cat "$WORK/page.err"; fail "man warns about $page"; }
  [[ $(wc -l < "$WORK/page.txt") -gt 20 ]] || fail "$page renders to almost nothing"
done
/usr/bin/python3 "$HERE/check_man_and_completion.py" "$SRC" "$P"

# 4. The C++ consumer (built by the docs block) and the installed Python reader on the same archive.
"$HOME/consumer/kforge_archive_summary" "$HOME/runs/replay" > "$WORK/consumer.txt"
PYTHONPATH=$P/share/kforge/python /usr/bin/python3 - "$HOME/runs/replay" "$WORK/consumer.txt" "$P" <<'PY'
import math, re, sys
import kforge_archive as ka
assert ka.__file__.startswith(sys.argv[3]), ka.__file__
records = ka.load_records(sys.argv[1])
lines = open(sys.argv[2]).read().splitlines()
want = [f"generation {g}: {len(r)} records, {(r.status == 'ok').sum()} ok" for g, r in records.groupby("generation")]
assert lines[:-1] == want, (lines, want)
best = records[records.status == "ok"].time_median_ms.min()
got = float(re.match(r"best: (\S+) ms", lines[-1]).group(1))
assert math.isclose(got, best, rel_tol=1e-6), (got, best)
print(f"ok: the C++ consumer and the Python reader agree: {len(records)} records, best {best} ms")
PY

# 5. The modulefile under Debian's Lmod: docs/install.md's block in a shell of its own (a reader's new terminal),
# with the environment saved after its `module load kforge` line and at its end (after `module unload kforge`).
lmod_block=$(block "## Lmod" | sed "/^module load kforge\$/a env > '$WORK/loaded.env'")
grep -q "loaded.env" <<<"$lmod_block" || fail "docs/install.md's Lmod block has no 'module load kforge' line"
env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin \
  bash -c "set -eo pipefail; $lmod_block"$'\n'"env > '$WORK/unloaded.env'" > "$WORK/lmod.log" 2>&1 ||
  { cat "$WORK/lmod.log"; fail "docs/install.md's Lmod block failed"; }
grep -q '^kforge 0\.1\.' "$WORK/lmod.log" || fail "kforge --version after module load: $(cat "$WORK/lmod.log")"
loaded() { sed -n "s/^$1=//p" "$WORK/loaded.env"; }
[[ $(loaded PATH) == "$P/bin:"* ]] || fail "module load kforge: PATH=$(loaded PATH)"
for entry in MANPATH=$P/share/man PYTHONPATH=$P/share/kforge/python CMAKE_PREFIX_PATH=$P XDG_DATA_DIRS=$P/share \
             KFORGE_ROOT=$P KFORGE_SHARE=$P/share/kforge; do
  name=${entry%%=*} value=${entry#*=}
  [[ :$(loaded "$name"): == *":$value:"* ]] || fail "module load kforge: $name=$(loaded "$name"), wanted $value in it"
  [[ -d $value ]] || fail "module load kforge: $name names $value, which does not exist"
done
# module unload took every path and variable of the prefix away (MODULEPATH keeps the `module use` folder).
left=$(grep -F "$P" "$WORK/unloaded.env" | grep -vE '^(MODULEPATH|__LMOD_REF_COUNT_MODULEPATH)=' || true)
[[ -z $left ]] || fail "module unload kforge left: $left"
# Moved elsewhere, it follows its own path (no prefix written into it at install).
mkdir -p "$WORK/moved/share/modulefiles/kforge"
cp "$P/share/modulefiles/kforge/0.1.0.lua" "$WORK/moved/share/modulefiles/kforge/"
moved_path=$(env -i HOME="$HOME" PATH=/usr/bin:/bin bash -c \
  "source /etc/profile.d/lmod.sh; module use '$WORK/moved/share/modulefiles'; module load kforge; echo \"\$PATH\"")
[[ $moved_path == "$WORK/moved/bin:"* ]] || fail "moved modulefile: PATH=$moved_path"

# 6. The systemd unit names the installed kforged and docs.
unit=$P/share/kforge/systemd/kforged.service
grep -q "^ExecStart=$P/bin/kforged --spool " "$unit" || fail "$(grep ExecStart "$unit")"
doc=$(sed -n 's|^Documentation=file://||p' "$unit")
[[ -f $doc ]] || fail "the unit's Documentation= $doc does not exist"
echo "ok: docs/install.md ran; the installed prefix has what a site needs"
