# Spack recipe for kforge (docs/install.md, "Spack"). Every test run checks this file without Spack
# (tests/install/check_spack_package.py: the class, its versions, variants and dependencies against what
# CMakeLists.txt finds); tests/install/spack_recipe.sh (label spack) has a real Spack audit, concretise and install
# it. What runs where is in docs/install.md.
from spack.package import *  # noqa: F401,F403


class Kforge(CMakePackage):
    """A Slurm-native factory that evolves GPU and CPU kernels: each generation of candidates runs as Slurm job
    arrays of MPI ranks that compile, verify and time them, and every result lands in HDF5 archives."""

    # kforge has no public download site yet: the release tarball is `git archive` of a tag (docs/install.md), which
    # a site serves from a Spack mirror (`spack mirror add`); Spack looks in its mirrors before this url.
    homepage = "https://kforge.invalid/"
    url = "https://kforge.invalid/releases/kforge-0.1.0.tar.gz"

    # No checksum until a tarball is published: `spack install --no-checksum kforge@0.1.0`, or add
    # sha256="..." (`sha256sum kforge-0.1.0.tar.gz`) to the version line.
    version("0.1.0")

    variant("cuda", default=False, description="cuda backend: NVRTC compile stage (no GPU needed) and GPU runs")
    variant("slurm", default=True, description="libslurm for the Slurm executor (without: Slurm's command-line tools)")
    variant("python", default=True, description="run-time packages of the archive reader and kforge plot")

    depends_on("cmake@3.25:", type="build")
    # The man pages and bash completion are generated at build time from the binaries' --help (Python, stdlib).
    depends_on("python@3.8:", type="build")
    depends_on("hdf5@1.10:")
    depends_on("yaml-cpp@0.7:")
    depends_on("boost@1.74:+program_options")
    depends_on("mpi")
    depends_on("openblas")  # the gemm family's OpenBLAS baseline (CBLAS)
    depends_on("zlib-api")  # the replay backend's gzipped caches
    depends_on("nlohmann-json@3:", type="build")  # header-only
    depends_on("slurm@22-05:", when="+slurm")
    depends_on("cuda@12:", when="+cuda")
    depends_on("googletest", type="test")
    with when("+python"):
        depends_on("python@3.8:", type="run")
        depends_on("py-h5py", type="run")
        depends_on("py-numpy", type="run")
        depends_on("py-pandas", type="run")
        depends_on("py-matplotlib", type="run")
        depends_on("py-pyyaml", type="run")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("KFORGE_BUILD_TESTS", self.run_tests),
            self.define("KFORGE_BUILD_BENCH", False),
            # libslurm and the CUDA toolkit are optional in CMakeLists.txt: the variants decide, not what is lying
            # around on the build host.
            self.define("CMAKE_DISABLE_FIND_PACKAGE_Slurm", spec.satisfies("~slurm")),
            self.define("CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit", spec.satisfies("~cuda")),
        ]
        if spec.satisfies("+slurm"):
            args.append(self.define("Slurm_ROOT", spec["slurm"].prefix))
        if spec.satisfies("+cuda"):
            args.append(self.define("CUDAToolkit_ROOT", spec["cuda"].prefix))
        return args

    def setup_run_environment(self, env):
        # As the installed Lmod modulefile does (share/modulefiles/kforge/VERSION.lua).
        env.prepend_path("PYTHONPATH", self.prefix.share.kforge.python)
        env.set("KFORGE_ROOT", self.prefix)
        env.set("KFORGE_SHARE", self.prefix.share.kforge)
