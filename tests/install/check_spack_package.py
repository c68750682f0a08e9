#!/usr/bin/env python3
"""Checks packaging/spack/packages/kforge/package.py without Spack (not installed here): it parses as Python, holds
class Kforge(CMakePackage), lists the version of CMakeLists.txt's project(), the variants cuda (off by default), slurm
and python, and depends on everything CMakeLists.txt finds (hdf5, yaml-cpp, boost+program_options, mpi, openblas,
zlib, nlohmann-json, slurm when +slurm, cuda when +cuda, googletest for tests), and its cmake_args sets the options
that CMakeLists.txt declares. What Spack would check beyond this (fetching, concretising, building) is not checked.

usage: check_spack_package.py SOURCE_DIR
"""
import ast
import re
import sys

src = sys.argv[1]
path = f"{src}/packaging/spack/packages/kforge/package.py"
tree = ast.parse(open(path, encoding="utf-8").read(), path)
problems = []


def check(ok, what):
    if not ok:
        problems.append(what)


classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
check([c.name for c in classes] == ["Kforge"], f"one class Kforge, found {[c.name for c in classes]}")
cls = classes[0]
check([ast.unparse(b) for b in cls.bases] == ["CMakePackage"], "Kforge derives from CMakePackage")
check(bool(ast.get_docstring(cls)), "Kforge has a docstring (spack info shows it)")


def calls(name):
    """Every call NAME(...) in the class body (inside `with when(...)` too), as (args, kwargs, when-context)."""
    out = []

    def visit(body, context):
        for node in body:
            if isinstance(node, ast.With):
                ctx = [ast.literal_eval(i.context_expr.args[0]) for i in node.items
                       if isinstance(i.context_expr, ast.Call) and ast.unparse(i.context_expr.func) == "when"]
                visit(node.body, context + ctx)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                    ast.unparse(node.value.func) == name:
                c = node.value
                out.append(([ast.literal_eval(a) for a in c.args],
                            {k.arg: ast.literal_eval(k.value) for k in c.keywords}, context))
    visit(cls.body, [])
    return out


project_version = re.search(r"project\(kforge VERSION ([0-9.]+)", open(f"{src}/CMakeLists.txt").read()).group(1)
versions = [a[0] for a, _, _ in calls("version")]
check(project_version in versions, f"version('{project_version}') of CMakeLists.txt's project(), found {versions}")
for _, kw, _ in calls("version"):
    check("sha256" not in kw or re.fullmatch(r"[0-9a-f]{64}", kw["sha256"]), "a sha256 is 64 hex digits")

variants = {a[0]: kw for a, kw, _ in calls("variant")}
for name in ("cuda", "slurm", "python"):
    check(name in variants and variants[name].get("description"), f"variant {name} with a description")
check(variants.get("cuda", {}).get("default") is False, "variant cuda is off by default (no GPU needed to build)")

deps = {}
for a, kw, ctx in calls("depends_on"):
    spec = a[0]
    name = re.match(r"[a-z0-9-]+", spec).group(0)
    deps.setdefault(name, []).append((spec, kw.get("type"), kw.get("when") or (ctx[0] if ctx else None)))
wanted = {  # what CMakeLists.txt find_package()s or find_library()s -> the Spack package providing it
    "hdf5": None, "yaml-cpp": None, "boost": "+program_options", "mpi": None, "openblas": None, "zlib-api": None,
    "nlohmann-json": None, "cmake": None, "python": None}
for name, must_contain in wanted.items():
    check(name in deps, f"depends_on('{name}...')")
    if must_contain and name in deps:
        check(any(must_contain in spec for spec, _, _ in deps[name]), f"depends_on('{name}{must_contain}')")
check(any(w == "+slurm" for _, _, w in deps.get("slurm", [])), "depends_on('slurm...', when='+slurm')")
check(any(w == "+cuda" for _, _, w in deps.get("cuda", [])), "depends_on('cuda...', when='+cuda')")
check(any(t == "test" for _, t, _ in deps.get("googletest", [])), "depends_on('googletest', type='test')")
check(any(t == "build" for _, t, _ in deps.get("cmake", [])), "depends_on('cmake...', type='build')")
cmake_min = re.search(r"cmake_minimum_required\(VERSION ([0-9.]+)", open(f"{src}/CMakeLists.txt").read()).group(1)
check(any(f"cmake@{cmake_min}:" in s for s, _, _ in deps.get("cmake", [])), f"cmake@{cmake_min}: as CMakeLists.txt")

methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
check("cmake_args" in methods, "a cmake_args method")
if "cmake_args" in methods:
    text = ast.unparse(methods["cmake_args"])
    declared = re.findall(r"option\((KFORGE_[A-Z_]+)", open(f"{src}/CMakeLists.txt").read())
    for option in ("KFORGE_BUILD_TESTS", "KFORGE_BUILD_BENCH"):
        check(option in declared, f"CMakeLists.txt declares {option}")
        check(option in text, f"cmake_args sets {option}")
    for pkg in ("Slurm", "CUDAToolkit"):
        check(f"CMAKE_DISABLE_FIND_PACKAGE_{pkg}" in text, f"cmake_args lets the variant decide {pkg}")

if problems:
    print(f"{path}:", *problems, sep="\n  ")
    sys.exit(1)
print(f"ok: {path}: versions {versions}, variants {sorted(variants)}, {len(deps)} dependencies")
