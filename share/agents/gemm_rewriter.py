#!/usr/bin/env python3
"""kforge agent operator: deterministic source-level rewriter for the host gemm family.

Protocol (docs/agents.md): gemm_rewriter.py --brief BRIEF.yaml --children CHILDREN.yaml

It reads the brief's JSON twin (BRIEF.json, written beside BRIEF.yaml by kforge; PyYAML is used only when the
twin is missing), and for the parents that carry a source it applies real edits to the rendered C++ of the
host gemm template (kernels/host/gemm/gemm_template_text.cpp): loop unrolling pragmas, a loop interchange of
the edge tile, software prefetch, restrict and ivdep hints, function flattening. Each child is one edit of one
parent, written with the parent's genome, the edited source and a rationale. The output is JSON, which is
valid YAML. Same brief in, same children out: nothing here is random.

Every edit is anchored on exact template text and marked with a `// kforge-agent: NAME` comment; an edit whose
anchor is missing (a different template, or a source already edited) or whose marker is present is skipped,
so edits stack across generations without being applied twice. Standard library only.
"""
import argparse
import json
import os
import sys

MARK = "// kforge-agent: "
ENTRY = 'extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,'

PACKED_KERNEL = "inline void micro_kernel(int kc, const float* __restrict ap, const float* __restrict bp,"
K_BLOCK_LOOP = "  for (; k + UNROLL <= kc; k += UNROLL) {\n"
K_REMAINDER_LOOP = "  for (; k < kc; ++k) tile_step("

DIRECT_EDGE_BODY = """  for (int r = 0; r < mr; ++r)
    for (int j = 0; j < nr; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < kc; ++k) sum += a[r * lda + k] * b[k * ldb + j];
      c[r * ldc + j] = overwrite ? sum : c[r * ldc + j] + sum;
    }
"""
DIRECT_EDGE_RKJ = ("  // kforge-agent: edge_rkj -- r-k-j order: "
                   "the inner j loop is unit-stride in B and C and vectorises\n"
                   """  for (int r = 0; r < mr; ++r) {
    float row[NR];
    for (int j = 0; j < nr; ++j) row[j] = 0.0f;
    for (int k = 0; k < kc; ++k) {
      const float ark = a[r * lda + k];
#pragma GCC ivdep
      for (int j = 0; j < nr; ++j) row[j] += ark * b[k * ldb + j];
    }
    for (int j = 0; j < nr; ++j) c[r * ldc + j] = overwrite ? row[j] : c[r * ldc + j] + row[j];
  }
""")
DIRECT_MACRO_SIGNATURE = ("void macro_kernel(int mc, int nc, int kc, const float* a, index_t lda, const float* b, "
                          "index_t ldb, float* c,\n                  index_t ldc, bool overwrite) {\n")
DIRECT_MACRO_RESTRICT = ("void macro_kernel(int mc, int nc, int kc, const float* __restrict a, index_t lda,\n"
                         "                  const float* __restrict b, index_t ldb, float* __restrict c, "
                         "index_t ldc,\n                  bool overwrite) {  " + MARK + "restrict_macro\n")
PACK_A_COPY = "      for (int r = 0; r < rows; ++r) out[r] = a[(i + r) * lda + k];\n"
PACK_B_COPY = "      for (int c = 0; c < cols; ++c) out[c] = row[c];\n"


def replace_once(source, anchor, replacement):
    """The source with its single occurrence of anchor replaced, or None when it is not there exactly once."""
    if source.count(anchor) != 1:
        return None
    return source.replace(anchor, replacement)


def k_unroll_outer(src):
    return replace_once(src, K_BLOCK_LOOP, "  " + MARK + "k_unroll_outer\n#pragma GCC unroll 2\n" + K_BLOCK_LOOP)


def k_remainder_unroll(src):
    return replace_once(src, K_REMAINDER_LOOP,
                        "  " + MARK + "k_remainder_unroll\n#pragma GCC unroll 8\n" + K_REMAINDER_LOOP)


def prefetch_b(src):
    # The row a few k blocks ahead, clamped into the block so the address is always inside B.
    if PACKED_KERNEL in src:
        hint = "    __builtin_prefetch(bp + min_int(k + 4 * UNROLL, kc - 1) * NR);  " + MARK + "prefetch_b\n"
    else:
        hint = "    __builtin_prefetch(b + min_int(k + 4 * UNROLL, kc - 1) * ldb);  " + MARK + "prefetch_b\n"
    return replace_once(src, K_BLOCK_LOOP, K_BLOCK_LOOP + hint)


def edge_rkj(src):
    return replace_once(src, DIRECT_EDGE_BODY, DIRECT_EDGE_RKJ)


def restrict_macro(src):
    return replace_once(src, DIRECT_MACRO_SIGNATURE, DIRECT_MACRO_RESTRICT)


def ivdep_pack(src):
    edited = replace_once(src, PACK_A_COPY, "#pragma GCC ivdep  " + MARK + "ivdep_pack\n" + PACK_A_COPY)
    return edited and replace_once(edited, PACK_B_COPY, "#pragma GCC ivdep\n" + PACK_B_COPY)


def flatten_macro(src):
    anchor = "\nvoid macro_kernel("
    return replace_once(src, anchor, "\n" + MARK + "flatten_macro -- inline the whole call tree into the block\n"
                        "__attribute__((flatten)) void macro_kernel(")


# (name, edit, rationale), tried in this order for every parent.
REWRITES = [
    ("k_unroll_outer", k_unroll_outer,
     "unroll the micro-kernel's k-block loop twice more: longer straight-line FMA runs between branches"),
    ("edge_rkj", edge_rkj,
     "interchange the edge tile's loops to r-k-j: unit-stride, vectorisable inner loop instead of a strided dot "
     "product (edges dominate when M or N is not a multiple of the register tile)"),
    ("prefetch_b", prefetch_b,
     "software-prefetch the B rows four k blocks ahead of the micro-kernel"),
    ("restrict_macro", restrict_macro,
     "declare the block's A, B and C pointers __restrict so the compiler may keep values in registers"),
    ("ivdep_pack", ivdep_pack,
     "mark the packing copies as free of loop-carried dependences so they vectorise"),
    ("k_remainder_unroll", k_remainder_unroll,
     "unroll the k remainder loop left over when kc is not a multiple of UNROLL"),
    ("flatten_macro", flatten_macro,
     "flatten the macro kernel: inline the micro-kernel and its helpers into the block loop"),
]


def read_brief(brief_path):
    twin = os.path.splitext(brief_path)[0] + ".json"
    if os.path.exists(twin):
        with open(twin, encoding="utf-8", errors="surrogateescape") as f:
            return json.load(f)
    try:
        import yaml  # python3-yaml; only needed without the JSON twin
    except ImportError:
        sys.exit(f"gemm_rewriter: {twin} is missing and PyYAML is not installed to read {brief_path}")
    with open(brief_path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def editable_parents(brief):
    """Parents with a source, the correct ones first, otherwise in the brief's (best-first) order."""
    parents = [p for p in brief.get("parents", []) if p.get("source")]
    return sorted(parents, key=lambda p: p.get("record", {}).get("status") != "ok")


def make_children(brief):
    wanted = int(brief.get("children_wanted", 0))
    parents = editable_parents(brief)
    next_rewrite = [0] * len(parents)
    children, seen = [], set()
    while len(children) < wanted and parents:
        progressed = False
        for i, parent in enumerate(parents):  # round robin: every parent gets its first edit before any gets two
            if len(children) >= wanted:
                break
            child = next_child(parent, next_rewrite, i, seen)
            if child:
                children.append(child)
                progressed = True
        if not progressed:
            break
    return children


def next_child(parent, next_rewrite, i, seen):
    source = parent["source"]
    while next_rewrite[i] < len(REWRITES):
        name, edit, why = REWRITES[next_rewrite[i]]
        next_rewrite[i] += 1
        if MARK + name in source:
            continue
        edited = edit(source)
        if edited is None or edited == source or edited in seen or ENTRY not in edited:
            continue
        seen.add(edited)
        return {"parents": [parent["id"]], "genome": parent["genome"], "source": edited,
                "rationale": f"{name}: {why} (edit of parent {parent['id'][:12]})"}
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--brief", required=True)
    parser.add_argument("--children", required=True)
    args = parser.parse_args()
    brief = read_brief(args.brief)
    if brief.get("family") != "gemm" or brief.get("backend") != "host":
        print(f"gemm_rewriter: only edits host gemm sources, this brief is {brief.get('backend')}/"
              f"{brief.get('family')}: no children", file=sys.stderr)
        children = []
    else:
        children = make_children(brief)
    temp = args.children + ".tmp"
    with open(temp, "w", encoding="utf-8", errors="surrogateescape") as f:
        json.dump({"children": children}, f, indent=1)
        f.write("\n")
    os.replace(temp, args.children)
    print(f"gemm_rewriter: wrote {len(children)} children to {args.children}", file=sys.stderr)


if __name__ == "__main__":
    main()
