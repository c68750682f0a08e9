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
  unroll_loops          every innermost loop (a label, a body without labels, a conditional branch back to the
                        label) unrolled twice: the body, the loop test as an exit branch, the body again, the
                        branch back; no trip count is assumed, so it is legal for any count
  predicate_branches    a forward conditional branch over at most 12 plain instructions becomes those instructions
                        under the inverted guard (@!%p): predication instead of a branch, no divergence point
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


LABEL = re.compile(r"^(\$L__\w+):\s*$")
GUARDED_BRANCH = re.compile(r"^\s*@(!?)(%p\d+)\s+bra(?:\.uni)?\s+(\$L__\w+);\s*$")
UNROLL_MARK = "$L__kforge_unrolled_"
MAX_UNROLL_BODY = 200  # lines: larger loops are left alone (code size)
MAX_PREDICATED = 12  # instructions under one predicated region
# Instructions left under a branch rather than predicated: control flow, barriers and fences, calls.
NOT_PREDICABLE = re.compile(r"^\s*(?:@|bra|ret|exit|bar|barrier|membar|fence|call|brx|\.|\{|\}|//)")


def unroll_loops(ptx):
    """Each innermost loop twice over: L: body; @!p bra EXIT; body; @p bra L; EXIT:"""
    if UNROLL_MARK in ptx:
        return ptx, 0  # unrolled once already: edits do not repeat
    lines = ptx.split("\n")
    out, count, i = [], 0, 0
    while i < len(lines):
        label = LABEL.match(lines[i])
        end = None
        if label:
            for j in range(i + 1, min(len(lines), i + 2 + MAX_UNROLL_BODY)):
                if LABEL.match(lines[j]):
                    break  # the body holds a label: not an innermost straight-line loop
                branch = GUARDED_BRANCH.match(lines[j])
                if branch and branch.group(3) == label.group(1):
                    end = j
                    break
        if end is None or end == i + 1:
            out.append(lines[i])
            i += 1
            continue
        branch = GUARDED_BRANCH.match(lines[end])
        negate, pred = branch.group(1), branch.group(2)
        exit_label = f"{UNROLL_MARK}{count}"
        body = lines[i + 1:end]
        out += [lines[i]] + body + [f"\t@{'' if negate else '!'}{pred} bra \t{exit_label};"] + body + [lines[end],
                                                                                                  f"{exit_label}:"]
        count += 1
        i = end + 1
    return "\n".join(out), count


def _indent(line):
    return line[: len(line) - len(line.lstrip())]


def predicate_branches(ptx):
    """@p bra L; a; b; L:  ->  @!p a; @!p b; L:  (the label stays: other branches may target it)"""
    lines = ptx.split("\n")
    out, count, i = [], 0, 0
    while i < len(lines):
        branch = GUARDED_BRANCH.match(lines[i])
        end = None
        if branch:
            for j in range(i + 1, min(len(lines), i + 2 + 2 * MAX_PREDICATED)):
                target = LABEL.match(lines[j])
                if target:
                    end = j if target.group(1) == branch.group(3) else None
                    break
        body = lines[i + 1:end] if end else []
        instructions = [line for line in body if line.strip()]
        pred = branch.group(2) if branch else ""
        if (not instructions or len(instructions) > MAX_PREDICATED or
                any(NOT_PREDICABLE.match(line) or re.search(re.escape(pred) + r"\b", line) for line in instructions)):
            out.append(lines[i])
            i += 1
            continue
        guard = f"@{'' if branch.group(1) else '!'}{pred} "
        out += [_indent(line) + guard + line.lstrip() if line.strip() else line for line in body]
        count += 1
        i = end
    return "\n".join(out), count


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
    ("unroll_loops", unroll_loops, "innermost loops unrolled twice in the PTX (the exit test kept between the "
                                   "copies): half the taken branches, and ptxas schedules two iterations together"),
    ("predicate_branches", predicate_branches, "short forward branches replaced by predicated instructions: no "
                                               "divergence point, the guarded work issues under the predicate"),
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
