#!/usr/bin/env python3
"""kforge agent operator (issue 14 item 3): legal PTX-level edits of a cuda kernel's PTX.

  ptx_rewriter.py --brief BRIEF.yaml --children CHILDREN.yaml   the agent protocol (docs/agents.md): reads the
        brief's JSON twin; for each parent whose record carries its PTX (the archive keeps every cuda record's
        PTX, /ptx), each edit that applies is one child: the parent's genome, the edited PTX as its source, and
        a rationale. At most children_wanted, best parents first.
  ptx_rewriter.py --ptx IN.ptx --out-dir DIR                   writes DIR/<edit>.ptx for every edit that applies,
        and DIR/children.json (edit, file, rationale) listing them
Edits, each a real PTX ISA construct that ptxas accepts for sm_90a / sm_100a, applied to every global load that
carries no cache operator or eviction hint yet (so edits stack without being applied twice):
  cache_global_cg       ld.global.X -> ld.global.cg.X      cache in L2 only, not L1 (streamed operands)
  evict_first_l1        ld.global.X -> ld.global.L1::no_allocate.X   no L1 allocation for the loaded line
  prefetch_l2           prefetch.global.L2 [addr+512] before each global load: the line 512 bytes ahead (a
                        prefetch distance; prefetches never fault)
  cp_async_prefetch_l2  cp.async.cg.shared.global -> ....global.L2::256B   L2 prefetch size of asynchronous copies
  cp_async_evict_last   a createpolicy L2::evict_last policy as the cache hint of every asynchronous copy
  streaming_stores      st.global.X -> st.global.cs.X      streaming (evict-first) stores of the output
The cuda backend evaluates a child as a PTX candidate (its first statement is `.version`, kernels/cuda/README.md):
ptxas assembles it and it is verified and timed as any candidate. Same brief in, same children out. Standard
library only.
"""
import argparse
import json
import os
import re
import sys

# ld.global followed directly by a vector or type suffix: no .ca/.cg/.cs/.lu/.cv, no .L1::/.L2:: hint, no .nc.
PLAIN_GLOBAL_LOAD = re.compile(r"\bld\.global(?=\.(?:v[248]\.)?[busf](?:8|16|32|64)\b)")
LOAD_ADDRESS = re.compile(r"^(\s*)ld\.global[.\w:]*\s+[^,]+,\s*\[([^\]+]+)(?:\+(-?\d+))?\];", re.M)
PREFETCH_DISTANCE = 512  # bytes ahead of each load
# Asynchronous global->shared copies (sm_80+) with no qualifier after .global yet, and their operands.
PLAIN_CP_ASYNC = re.compile(r"\bcp\.async\.(ca|cg)\.shared\.global(\s+\[[^\]]+\],\s*\[[^\]]+\],\s*\d+(?:,\s*%\w+)?);")
# st.global followed directly by a vector or type suffix: no .wb/.cg/.cs/.wt, no hint.
PLAIN_GLOBAL_STORE = re.compile(r"\bst\.global(?=\.(?:v[248]\.)?[busf](?:8|16|32|64)\b)")
POLICY = "%kforge_policy"


def cache_global_cg(ptx):
    return PLAIN_GLOBAL_LOAD.subn("ld.global.cg", ptx)


def evict_first_l1(ptx):
    return PLAIN_GLOBAL_LOAD.subn("ld.global.L1::no_allocate", ptx)


def prefetch_l2(ptx):
    if "prefetch.global.L2" in ptx:
        return ptx, 0

    def ahead(m):
        offset = int(m.group(3) or 0) + PREFETCH_DISTANCE
        return f"{m.group(1)}prefetch.global.L2 [{m.group(2)}+{offset}];\n{m.group(0)}"
    return LOAD_ADDRESS.subn(ahead, ptx)


def cp_async_prefetch_l2(ptx):
    return PLAIN_CP_ASYNC.subn(lambda m: f"cp.async.{m.group(1)}.shared.global.L2::256B{m.group(2)};", ptx)


def cp_async_evict_last(ptx):
    """An L2 evict_last cache policy (createpolicy, sm_80+) on every asynchronous copy: the operand tiles that
    every block re-reads stay in L2 ahead of the streamed output."""
    if POLICY in ptx:
        return ptx, 0
    edited, count = PLAIN_CP_ASYNC.subn(
        lambda m: f"cp.async.{m.group(1)}.shared.global.L2::cache_hint{m.group(2)}, {POLICY};", ptx)
    if not count:
        return ptx, 0
    # Declare the policy register and create the policy once, after the entry's declarations.
    body = re.search(r"\.entry\s+\w+\s*\([^)]*\)[^{]*\{\n", edited)
    if not body:
        return ptx, 0
    lines = edited[body.end():].split("\n")
    first_statement = next(i for i, line in enumerate(lines)
                           if line.strip() and not line.strip().startswith((".", "//")))
    lines[first_statement:first_statement] = [f"\t.reg .b64 \t{POLICY};",
                                              f"\tcreatepolicy.fractional.L2::evict_last.b64 \t{POLICY}, 0f3F800000;"]
    return edited[:body.end()] + "\n".join(lines), count


def streaming_stores(ptx):
    return PLAIN_GLOBAL_STORE.subn("st.global.cs", ptx)


EDITS = [
    ("cache_global_cg", cache_global_cg, "global loads cached in L2 only (.cg): operands streamed once stop "
                                         "evicting reused lines from L1"),
    ("evict_first_l1", evict_first_l1, "global loads do not allocate in L1 (L1::no_allocate): leaves L1 and "
                                       "shared memory capacity to the tiles that are reused"),
    ("prefetch_l2", prefetch_l2, f"each global load is preceded by an L2 prefetch {PREFETCH_DISTANCE} bytes ahead "
                                 "of it, so the next lines are in L2 when the loop reaches them"),
    ("cp_async_prefetch_l2", cp_async_prefetch_l2, "asynchronous copies fetch 256 bytes into L2 (.L2::256B): the "
                                                   "neighbouring tile rows arrive with the first"),
    ("cp_async_evict_last", cp_async_evict_last, "asynchronous copies carry an L2 evict_last policy (createpolicy): "
                                                 "operand tiles re-read by other blocks outlive the streamed output"),
    ("streaming_stores", streaming_stores, "global stores are streaming (.cs, evict first): the output written "
                                           "once does not push operands out of the caches"),
]


def children(ptx):
    out = []
    for name, edit, why in EDITS:
        edited, count = edit(ptx)
        if count:
            out.append((name, edited, f"{why} ({count} sites)"))
    return out


def is_ptx(text):
    return ".version" in text and ".entry" in text


def from_brief(brief_path, children_path):
    twin = os.path.splitext(brief_path)[0] + ".json"
    with open(twin if os.path.exists(twin) else brief_path, encoding="utf-8") as f:
        brief = json.load(f)  # the JSON twin kforge writes beside the YAML brief
    out = []
    for parent in brief.get("parents", []):
        ptx = parent.get("record", {}).get("ptx", "")
        if not is_ptx(ptx):
            continue  # a host parent, or one that never compiled
        for name, edited, why in children(ptx):
            if len(out) < int(brief.get("children_wanted", 0)):
                out.append({"parents": [parent["id"]], "genome": parent["genome"], "source": edited,
                            "source_kind": "ptx", "rationale": f"{name}: {why}"})
    with open(children_path, "w", encoding="utf-8") as f:
        json.dump({"children": out}, f, indent=1)
    print(f"ptx_rewriter: {len(out)} children from {len(brief.get('parents', []))} parents")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    p.add_argument("--brief")
    p.add_argument("--children")
    p.add_argument("--ptx")
    p.add_argument("--out-dir")
    a = p.parse_args()
    if a.brief and a.children:
        return from_brief(a.brief, a.children)
    if not (a.ptx and a.out_dir):
        p.error("give --brief and --children (the agent protocol), or --ptx and --out-dir")
    with open(a.ptx, encoding="utf-8") as f:
        ptx = f.read()
    if not is_ptx(ptx):
        print(f"{a.ptx}: not PTX with an entry function", file=sys.stderr)
        return 2
    os.makedirs(a.out_dir, exist_ok=True)
    listing = []
    for name, edited, why in children(ptx):
        path = os.path.join(a.out_dir, name + ".ptx")
        with open(path, "w", encoding="utf-8") as f:
            f.write(edited)
        listing.append({"edit": name, "file": path, "rationale": why})
    with open(os.path.join(a.out_dir, "children.json"), "w", encoding="utf-8") as f:
        json.dump(listing, f, indent=2)
    print(f"ptx_rewriter: {len(listing)} children of {a.ptx}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
