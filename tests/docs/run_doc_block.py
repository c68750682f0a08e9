#!/usr/bin/env python3
"""Prints the shell block that follows a heading of a Markdown file, exactly as a reader copies it.

usage: run_doc_block.py FILE.md "## Heading" [N]   (N: the N-th ```sh block under that heading, 1 = first)
The block ends at the closing fence; a heading of the same or a higher level before it is an error, so a test
never runs a block from another section by mistake.
"""
import re
import sys


def block(path, heading, n):
    lines = open(path, encoding="utf-8").read().splitlines()
    level = len(heading) - len(heading.lstrip("#"))
    try:
        start = lines.index(heading)
    except ValueError:
        sys.exit(f"{path}: no line '{heading}'")
    found, inside, out = 0, False, []
    for line in lines[start + 1:]:
        m = re.match(r"^(#+) ", line)
        if not inside and m and len(m.group(1)) <= level:
            break
        if not inside and line.strip() in ("```sh", "```bash"):
            found += 1
            inside = found == n
            continue
        if inside and line.strip() == "```":
            return "\n".join(out) + "\n"
        if inside:
            out.append(line)
    sys.exit(f"{path}: section '{heading}' has no shell block number {n}")


if __name__ == "__main__":
    sys.stdout.write(block(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1))
