#!/usr/bin/env python3
"""docs/cli.md documents exactly the commands and options the binaries have, and their help and exit codes.

Usage: cli_md_matches_the_binaries.py REPO_ROOT BIN_DIR

docs/cli.md gives each command a heading with its synopsis, `## kforge COMMAND ARGS [--option X] ...` (several
joined by " / "), and one each for kforged, kforge-eval, kforge-check-outputs, kforge-cuda-figures and
kforge-serve. This test
  - compares the commands of those headings with the command list of `kforge --help`, both ways;
  - runs every documented command's `--help` on its own (no other argument): it must exit 0 and print options;
  - compares the options of each heading with those of its `--help`, both ways (--help and --version aside; an
    option the help lists that the synopsis shows as a positional word, --dir as DIR, is the positional);
  - checks `--version` of kforge, kforged and kforge-eval (one version, exit 0) and that an unknown command gets
    "kforge: unknown command X; commands are ..." naming every command, with the usage exit code 2.
Prints one line per difference; exit 0 when there is none, 1 otherwise.
"""
import os
import re
import subprocess
import sys

BINARIES = ("kforge", "kforged", "kforge-eval", "kforge-check-outputs", "kforge-cuda-figures", "kforge-serve")
HELP_OPTION = re.compile(r"^\s+(?:-\w \[ )?--([\w-]+)")
SYNOPSIS_OPTION = re.compile(r"--([\w-]+)")


def documented(cli_md):
    """(binary, command or "") -> synopsis words, from the '## kforge...' headings."""
    docs = {}
    for line in open(cli_md, encoding="utf-8"):
        if not line.startswith("## "):
            continue
        for synopsis in line[3:].strip().split(" / "):
            words = synopsis.split()
            if not words or words[0] not in BINARIES:
                continue
            command = words[1] if words[0] == "kforge" and len(words) > 1 and not words[1].startswith("-") else ""
            docs.setdefault((words[0], command), []).append(synopsis)
    return docs


def run(argv):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return 124, "", f"{' '.join(argv)}: timed out"
    return p.returncode, p.stdout, p.stderr


def help_options(text):
    return {m.group(1) for m in map(HELP_OPTION.match, text.splitlines()) if m} - {"help", "version"}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, bindir = sys.argv[1], sys.argv[2]
    problems = []
    docs = documented(os.path.join(root, "docs", "cli.md"))
    binary = {name: os.path.join(bindir, name) for name in BINARIES}

    # The command list of `kforge --help` against the headings.
    rc, top, err = run([binary["kforge"], "--help"])
    if rc != 0:
        problems.append(f"kforge --help: exit {rc}: {err.strip()}")
    listed = set()
    if "commands:" in top:
        for line in top.split("commands:", 1)[1].splitlines():
            m = re.match(r"^  ([a-z][\w-]*)\s", line)
            if m:
                listed.add(m.group(1))
    in_docs = {command for (b, command) in docs if b == "kforge" and command}
    if len(listed) < 5 or len(in_docs) < 5:  # a parser that finds nothing must not pass
        problems.append(f"too few commands found: --help {sorted(listed)}, docs/cli.md {sorted(in_docs)}")
    for c in sorted(listed - in_docs):
        problems.append(f"docs/cli.md: no '## kforge {c} ...' heading for a command of kforge --help")
    for c in sorted(in_docs - listed):
        problems.append(f"docs/cli.md: '## kforge {c}' documents a command kforge --help does not list")
    for b in BINARIES[1:]:
        if (b, "") not in docs:
            problems.append(f"docs/cli.md: no '## {b} ...' heading")

    # Each documented command's --help, alone, and its options against the synopsis.
    for (b, command), synopses in sorted(docs.items()):
        argv = [binary[b]] + ([command] if command else []) + ["--help"]
        rc, out, err = run(argv)
        name = " ".join([b] + ([command] if command else []))
        if rc != 0:
            problems.append(f"{name} --help: exit {rc} (wanted 0): {err.strip()}")
            continue
        options = help_options(out)
        if not options:
            problems.append(f"{name} --help: lists no options")
        words = set(re.findall(r"[A-Z][A-Z_]*", " ".join(synopses)))
        options = {o for o in options if o.upper() not in words or f"--{o}" in " ".join(synopses)}
        shown = {o for s in synopses for o in SYNOPSIS_OPTION.findall(s)} - {"help", "version"}
        for o in sorted(options - shown):
            problems.append(f"docs/cli.md '## {name}': --{o} of {name} --help is missing")
        for o in sorted(shown - options):
            problems.append(f"docs/cli.md '## {name}': --{o} is documented but {name} --help has no such option")

    # One version for all three binaries.
    versions = {}
    for b in BINARIES:
        rc, out, err = run([binary[b], "--version"])
        m = re.fullmatch(re.escape(b) + r" (\S+)\n", out)
        if rc != 0 or not m:
            problems.append(f"{b} --version: exit {rc}, printed {out!r} (wanted '{b} VERSION', exit 0) {err.strip()}")
        else:
            versions[b] = m.group(1)
    if len(set(versions.values())) > 1:
        problems.append(f"the binaries print different versions: {versions}")

    # An unknown command: the documented usage exit code and the list of commands.
    rc, out, err = run([binary["kforge"], "no-such-command"])
    m = re.search(r"^kforge: unknown command no-such-command; commands are (.+)$", err, re.M)
    if rc != 2 or not m:
        problems.append(f"kforge no-such-command: exit {rc}, stderr {err!r} (wanted exit 2 and "
                        "'kforge: unknown command no-such-command; commands are ...')")
    elif set(m.group(1).split(", ")) != listed:
        problems.append(f"kforge no-such-command names the commands {m.group(1)!r}, kforge --help {sorted(listed)}")

    for p in problems:
        print(p)
    print(f"{len(docs)} documented commands checked against {', '.join(BINARIES)}: {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
