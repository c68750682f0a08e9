# shellcheck shell=bash
# Source this file (". BUNDLE/env.sh") to use a kforge GPU bundle (tools/gpu-bundle.sh, commit @BUNDLE_COMMIT@).
# Puts the bundle's kforge, kforge-eval and mpirun first on PATH, points OpenMPI and PMIx at the plugins and
# help texts inside the bundle, and unpacks OpenBLAS, its Fortran runtime and the gpu test binaries on first use
# (they travel xz-compressed).
KFORGE_BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export KFORGE_BUNDLE
for packed in "$KFORGE_BUNDLE"/lib/*.so*.xz "$KFORGE_BUNDLE"/tests/*.xz; do
  [[ -e $packed && ! -e ${packed%.xz} ]] || continue
  if command -v xz > /dev/null; then xz -dk "$packed"; else  # xz keeps the packed file's mode
    python3 -c 'import lzma, os, sys; open(sys.argv[2], "wb").write(lzma.open(sys.argv[1]).read())
os.chmod(sys.argv[2], os.stat(sys.argv[1]).st_mode & 0o777)' "$packed" "${packed%.xz}"
  fi
done
export PATH="$KFORGE_BUNDLE/bin:$PATH"
export OPAL_PREFIX="$KFORGE_BUNDLE"
export OPAL_PKGDATADIR="$KFORGE_BUNDLE/share/openmpi"
export OPAL_SYSCONFDIR="$KFORGE_BUNDLE/etc/openmpi"
export OMPI_MCA_mca_base_component_path="$KFORGE_BUNDLE/lib/openmpi"
# One node, no ssh: mpirun starts its ranks itself (the "isolated" launcher) instead of through an rsh agent.
export OMPI_MCA_plm=isolated
export PMIX_MCA_mca_base_component_path="$KFORGE_BUNDLE/lib/pmix"
export PMIX_PREFIX="$KFORGE_BUNDLE"
export PMIX_INSTALL_PREFIX="$KFORGE_BUNDLE"
# Candidates compiled by the host backend and the cuda backend's NVRTC cache stay inside the bundle's user dirs.
export KFORGE_CUDA_CACHE="${KFORGE_CUDA_CACHE:-${TMPDIR:-/tmp}/kforge-cuda-cache}"
