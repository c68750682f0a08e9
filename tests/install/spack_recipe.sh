#!/usr/bin/env bash
# The Spack recipe (packaging/spack) by a real Spack (docs/install.md, "Spack"), in a private Spack configuration:
#   1. `spack audit packages kforge` finds no issue;
#   2. `spack spec kforge` concretises the recipe with its default variants (+slurm +python ~cuda);
#   3. `spack install --no-checksum kforge@0.1.0` builds it from a local mirror holding the release tarball
#      (docs/install.md, "A release tarball": git archive of HEAD), every dependency an external of this Debian
#      machine (no network), and the installed kforge runs: `spack load kforge`, `kforge --version`, its man page
#      and the archive reader on PYTHONPATH.
# Needs a Spack checkout and a Python that can import clingo (Spack's concretiser), which no Debian 12 package
# gives: label spack, outside tests/run-all.sh's default run (docs/testing.md, "Tiers").
#   usage: spack_recipe.sh SRC      environment: KFORGE_SPACK (the checkout, default SRC/build/spack),
#          KFORGE_SPACK_PYTHON (default SRC/build/spack-venv/bin/python)
set -euo pipefail
SRC=$(cd "$1" && pwd)
cd "$SRC"
# shellcheck source=tests/support/helpers.sh
source tests/support/helpers.sh  # fail
spack_root=${KFORGE_SPACK:-$SRC/build/spack}
export SPACK_PYTHON=${KFORGE_SPACK_PYTHON:-$SRC/build/spack-venv/bin/python}
[[ -x $spack_root/bin/spack ]] || fail "no Spack checkout at $spack_root (docs/testing.md, \"Tiers\", says how to get one)"
"$SPACK_PYTHON" -c 'import clingo' 2> /dev/null || fail "$SPACK_PYTHON cannot import clingo (Spack's concretiser)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# Nothing of the developer's ~/.spack, of /etc/spack or of the checkout's own configuration is read or written:
# the user scope (where spack repo/mirror/compiler add write) is $WORK/config. (SPACK_DISABLE_LOCAL_CONFIG would
# turn that scope off too, and the writes would land in the checkout's etc/spack.)
export SPACK_USER_CONFIG_PATH=$WORK/config SPACK_SYSTEM_CONFIG_PATH=$WORK/system SPACK_USER_CACHE_PATH=$WORK/cache
spack() { "$spack_root/bin/spack" "$@"; }
mkdir -p "$WORK/config"
cat > "$WORK/config/config.yaml" <<YAML
config:
  install_tree:
    root: $WORK/opt
  build_stage: [$WORK/stage]
  source_cache: $WORK/source-cache
  misc_cache: $WORK/misc-cache
YAML
spack repo add packaging/spack

echo "== 1. spack audit packages kforge"
spack audit packages kforge | tee "$WORK/audit.txt"  # exits non-zero on an issue
[[ $(grep -c ': 0 issues found\.$' "$WORK/audit.txt") -ge 3 ]] || fail "spack audit did not run its checks"

echo "== 2. spack spec kforge (default variants, nothing external)"
spack spec kforge > "$WORK/spec.txt"
root_spec=$(grep -m 1 -E '^ -   kforge@0\.1\.0%' "$WORK/spec.txt") || fail "spack spec kforge: $(cat "$WORK/spec.txt")"
echo "$root_spec"
for variant in '~cuda' '+python' '+slurm'; do
  [[ $root_spec == *"$variant"* ]] || fail "spack spec kforge: not $variant by default"
done
for dependency in hdf5 yaml-cpp boost openblas slurm nlohmann-json py-h5py py-pandas; do
  grep -q "\^$dependency@" "$WORK/spec.txt" || fail "spack spec kforge has no $dependency"
done

echo "== 3. spack install from a local mirror, the dependencies this machine's Debian packages"
debian() { dpkg-query -W -f='${Version}' "$1" | sed -E 's/^[0-9]+://; s/[+~-].*//'; }
slurm_version=$(debian libslurm-dev | tr . -)
{
  echo "packages:"
  external() {  # SPEC: an external under /usr that Spack must not build
    local name=${1%%@*}
    printf '  %s:\n    buildable: false\n    externals:\n    - spec: %s\n      prefix: /usr\n' "$name" "$1"
  }
  external "cmake@$(debian cmake)"
  external "gmake@$(debian make)"
  external "hdf5@$(debian libhdf5-dev)~mpi"
  external "yaml-cpp@$(debian libyaml-cpp-dev)"
  external "boost@$(debian libboost-program-options-dev)+program_options"
  external "openmpi@$(debian libopenmpi-dev)"
  external "openblas@$(debian libopenblas-dev)"
  external "zlib@$(debian zlib1g-dev)"
  external "nlohmann-json@$(debian nlohmann-json3-dev)"
  external "slurm@$slurm_version"
  external "python@$(debian python3)"
  external "py-h5py@$(debian python3-h5py)"
  external "py-numpy@$(debian python3-numpy)"
  external "py-pandas@$(debian python3-pandas)"
  external "py-matplotlib@$(debian python3-matplotlib)"
  external "py-pyyaml@$(debian python3-yaml)"
  # The virtual packages kforge names, provided by the externals above.
  printf '  mpi:\n    buildable: false\n  zlib-api:\n    buildable: false\n'
} > "$WORK/config/packages.yaml"
spack compiler find > /dev/null
# The mirror: the release tarball where a Spack mirror keeps it (NAME/NAME-VERSION.tar.gz).
mkdir -p "$WORK/mirror/kforge"
git archive --format=tar.gz --prefix=kforge-0.1.0/ -o "$WORK/mirror/kforge/kforge-0.1.0.tar.gz" HEAD
spack mirror add local "file://$WORK/mirror"
spack install --no-checksum kforge@0.1.0 > "$WORK/install.log" 2>&1 || {
  tail -n 60 "$WORK/install.log"
  fail "spack install kforge@0.1.0"
}
tail -n 3 "$WORK/install.log"
grep -q 'Fetching file://.*/mirror/kforge/kforge-0.1.0.tar.gz\|Using cached archive' "$WORK/install.log" ||
  fail "the tarball did not come from the local mirror"
prefix=$(spack location -i kforge)
# As a user of the Spack install: spack load puts the prefix's bin/ and the archive reader in the environment.
eval "$(spack load --sh kforge)"
[[ $(command -v kforge) == "$prefix/bin/kforge" ]] || fail "spack load: kforge is $(command -v kforge)"
kforge --version | grep -q '^kforge 0\.1\.0' || fail "kforge --version: $(kforge --version)"
[[ -f $prefix/share/man/man1/kforge.1 && -x $prefix/bin/kforge-eval && -x $prefix/bin/kforged ]] ||
  fail "the Spack prefix lacks the man page or a program"
/usr/bin/python3 -c 'import kforge_archive' || fail "spack load: kforge_archive is not on PYTHONPATH"
echo "ok: spack audit, spec and install (from a local mirror, Debian externals) of kforge@0.1.0 in $prefix"
