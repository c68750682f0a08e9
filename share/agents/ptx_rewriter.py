#!/usr/bin/env python3
"""kforge agent operator (first part of issue 14 item 3): legal PTX-level edits of a kernel's PTX.

  ptx_rewriter.py --ptx IN.ptx --out-dir DIR        writes DIR/<edit>.ptx for every edit that applies, and
                                                    DIR/children.json (edit, file, rationale) listing them
Edits, each a real PTX ISA construct that ptxas accepts for sm_90a / sm_100a, applied to every global load that
carries no cache operator or eviction hint yet (so edits stack without being applied twice):
  cache_global_cg       ld.global.X -> ld.global.cg.X      cache in L2 only, not L1 (streamed operands)
  evict_first_l1        ld.global.X -> ld.global.L1::no_allocate.X   no L1 allocation for the loaded line
  prefetch_l2           prefetch.global.L2 [addr] before each global load of a loop body
The cuda backend evaluates a child as a PTX candidate (its source starts with `.version`, kernels/cuda/README.md);
not yet wired to the agent protocol (brief in, children file out): it writes files. Standard library only.
"""
import argparse
import json
import os
import re
import sys

# ld.global followed directly by a vector or type suffix: no .ca/.cg/.cs/.lu/.cv, no .L1::/.L2:: hint, no .nc.
PLAIN_GLOBAL_LOAD = re.compile(r"\bld\.global(?=\.(?:v[248]\.)?[busf](?:8|16|32|64)\b)")
LOAD_ADDRESS = re.compile(r"^(\s*)ld\.global[.\w:]*\s+[^,]+,\s*(\[[^\]]+\]);", re.M)


def cache_global_cg(ptx):
    return PLAIN_GLOBAL_LOAD.subn("ld.global.cg", ptx)


def evict_first_l1(ptx):
    return PLAIN_GLOBAL_LOAD.subn("ld.global.L1::no_allocate", ptx)


def prefetch_l2(ptx):
    if "prefetch.global.L2" in ptx:
        return ptx, 0
    return LOAD_ADDRESS.subn(lambda m: f"{m.group(1)}prefetch.global.L2 {m.group(2)};\n{m.group(0)}", ptx)


EDITS = [
    ("cache_global_cg", cache_global_cg, "global loads cached in L2 only (.cg): operands streamed once stop "
                                         "evicting reused lines from L1"),
    ("evict_first_l1", evict_first_l1, "global loads do not allocate in L1 (L1::no_allocate): leaves L1 and "
                                       "shared memory capacity to the tiles that are reused"),
    ("prefetch_l2", prefetch_l2, "each global load is preceded by an L2 prefetch of its line"),
]


def children(ptx):
    out = []
    for name, edit, why in EDITS:
        edited, count = edit(ptx)
        if count:
            out.append((name, edited, f"{why} ({count} sites)"))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ptx", required=True)
    p.add_argument("--out-dir", required=True)
    a = p.parse_args()
    with open(a.ptx, encoding="utf-8") as f:
        ptx = f.read()
    if ".version" not in ptx or ".entry" not in ptx:
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
