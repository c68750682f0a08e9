#!/usr/bin/env python3
"""Every relative link of README.md and docs/*.md names a file or folder of the repository.

Usage: doc_links_resolve.py REPO_ROOT

Checks Markdown links and images, `[text](target)` and `![alt](target)`, and reference definitions
`[name]: target`, outside fenced code blocks (a code block shows text, it links nothing). A target with a scheme
(https:, mailto:) or a bare #anchor is not a file and is skipped; otherwise the anchor is cut off, the path is
resolved against the folder of the Markdown file (as a browser and GitHub do), and it must exist and stay inside
the repository (a clone carries nothing beside it).

Most files are named in prose as inline code (`site-configs/hopper.yaml`), not as links: such a path is checked
too, from the repository root, when it names a file (it ends in an extension such as .cpp, .md, .yaml) in a
folder the repository has, and holds no placeholder (<version>, NNNN, an upper-case word such as TARGET, *, $).
Paths in folders the repository lacks (an install prefix's share/kforge/, a campaign's runs/) are not its files.

Before the repository it checks itself on a made-up tree with a broken, an outside and a good link and a broken
and a good inline path, so a checker that finds nothing cannot pass. Exit 0 when every link resolves, 1 with one
FILE:LINE: line per broken link.
"""
import glob
import os
import re
import sys
import tempfile

INLINE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
CODE = re.compile(r"`([^`\s]+)`")
FILE_EXTENSIONS = (".cpp", ".hpp", ".h", ".py", ".sh", ".md", ".yaml", ".yml", ".json", ".cmake", ".in", ".txt",
                   ".lua", ".sbatch", ".service", ".cu", ".ptx", ".cff", ".gz", ".tsv")
PLACEHOLDER = re.compile(r"[<>*$%{}\[\]]|\.\.\.|(^|/)[A-Z][A-Z0-9_]*[A-Z](/|\.|$)|NNNN|TTTT")


def markdown_files(root):
    return [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def prose_lines(path):
    """(line number, line) of every line outside fenced code blocks (a code block shows text, it links nothing)."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.lstrip()
            if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
                fence = stripped[:3]
                continue
            if fence is not None:
                if stripped.startswith(fence):
                    fence = None
                continue
            yield number, line


def code_paths(path, root):
    """(line number, path) of every inline-code repository file path outside fenced code (see the module doc)."""
    for number, line in prose_lines(path):
        for m in CODE.finditer(line):
            token = m.group(1).rstrip(".,;:)").split(":", 1)[0].split("#", 1)[0]
            if "/" not in token or token.startswith(("/", "./", "../", "~")) or SCHEME.match(token):
                continue
            if not token.endswith(FILE_EXTENSIONS) or PLACEHOLDER.search(token):
                continue
            if os.path.isdir(os.path.join(root, os.path.dirname(token))):
                yield number, token


def links(path):
    """(line number, target) of every link outside fenced code."""
    for number, line in prose_lines(path):
        line = re.sub(r"`[^`]*`", "", line)  # inline code is text, not a link
        for m in INLINE.finditer(line):
            yield number, m.group(1)
        m = REFERENCE.match(line)
        if m:
            yield number, m.group(1)


def broken_links(root):
    root = os.path.realpath(root)
    found = []
    for md in markdown_files(root):
        if not os.path.exists(md):
            continue
        for number, target in links(md):
            if SCHEME.match(target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0].split("?", 1)[0]
            resolved = os.path.realpath(os.path.join(os.path.dirname(md), path))
            rel = os.path.relpath(md, root)
            if resolved != root and not resolved.startswith(root + os.sep):
                found.append(f"{rel}:{number}: link '{target}' points outside the repository")
            elif not os.path.exists(resolved):
                found.append(f"{rel}:{number}: link '{target}' names no file of the repository")
        for number, token in code_paths(md, root):
            if not os.path.exists(os.path.join(root, token)):
                found.append(f"{os.path.relpath(md, root)}:{number}: `{token}` names no file of the repository")
    return found


def self_check():
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        os.makedirs(os.path.join(repo, "docs"))
        with open(os.path.join(repo, "docs", "good.md"), "w") as f:
            f.write("# Good\n[ok](../README.md#two-commands) [web](https://example.org) [here](#good)\n"
                    "```\n[in code](nowhere.md)\n`docs/gone.md`\n```\n"
                    "`docs/good.md`, `share/kforge/x.py` (an install path), `docs/<NAME>.md`, `docs/TARGET.md`\n")
        with open(os.path.join(repo, "README.md"), "w") as f:
            f.write("[guide](docs/good.md)\n[gone](docs/missing.md#x)\n![pic](docs/nope.png)\n"
                    "[brief](../brief.md)\n[ref]: docs/also-missing.md\nsee `docs/hopper.yaml`.\n")
        found = broken_links(repo)
        wanted = ["README.md:2:", "README.md:3:", "README.md:4:", "README.md:5:", "README.md:6:"]
        if [line[: len(w)] for line, w in zip(found, wanted, strict=False)] != wanted or len(found) != len(wanted):
            sys.exit("self-check failed: expected broken links on README.md lines 2-6 only, got:\n" + "\n".join(found))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    self_check()
    root = sys.argv[1]
    found = broken_links(root)
    for line in found:
        print(line)
    checked = sum(1 for md in markdown_files(root) if os.path.exists(md))
    print(f"{checked} Markdown files checked, {len(found)} broken links")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
