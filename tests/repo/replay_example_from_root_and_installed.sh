#!/usr/bin/env bash
# The replay example needs nothing beside the clone: run as its header shows, from the repository root, and
# from an installed tree (the install step puts examples/ and data/ side by side under <prefix>/share/kforge/),
# its relative replay_cache path finds the measured space in share/data/kernel-spaces and the campaign finishes.
#   usage: replay_example_from_root_and_installed.sh SRC BUILD
set -euo pipefail
SRC=$1 BUILD=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
EXAMPLE=share/examples/convolution-replay.yaml

# 1. From the repository root, the command of the example's header (its --out moved to a private folder).
header=$(grep -m1 '^#   build/bin/kforge run ' "$SRC/$EXAMPLE" | sed 's/^#   //')
[[ $header == "build/bin/kforge run $EXAMPLE --out runs/convolution-replay" ]] || { echo "header: $header" >&2; exit 1; }
mkdir -p "$WORK/root/build"
ln -s "$BUILD/bin" "$WORK/root/build/bin"   # build/ may live elsewhere than SRC/build; share/ is the clone's
ln -s "$SRC/share" "$WORK/root/share"
(cd "$WORK/root" && ${header/--out runs\//--out $WORK\/}) > "$WORK/root.log"
grep -q '^kforge: 5 generations in ' "$WORK/root.log"

# 2. Installed: nothing of the clone is reachable from the run but the installed files.
cmake --install "$BUILD" --prefix "$WORK/prefix" > "$WORK/install.log"
[[ -f $WORK/prefix/share/kforge/data/kernel-spaces/LICENSE ]]
[[ -f $WORK/prefix/share/kforge/data/kernel-spaces/CITATION.cff ]]
(cd "$WORK" && prefix/bin/kforge run prefix/share/kforge/examples/convolution-replay.yaml --out installed) \
  > "$WORK/installed.log"
grep -q '^kforge: 5 generations in ' "$WORK/installed.log"
/usr/bin/python3 - "$WORK/installed" "$SRC" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(sys.argv[2], "share", "python"))
import kforge_archive as ka
records = ka.load_records(sys.argv[1])
assert len(records) == 5 * 24, len(records)
assert (records["status"] == "ok").any(), records["status"].value_counts()
print("ok: the example ran from the repository root and installed; %d records" % len(records))
PY
