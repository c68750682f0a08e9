#!/usr/bin/env python3
"""The test tiers are what docs/testing.md says: every CTest test carries exactly one tier label, `ctest -L TIER`
selects exactly the tests of that tier (a label is a regular expression to CTest: no other label may contain a
tier's name), and each tier's command in docs/testing.md's "Tiers" table (and in CONTRIBUTING.md's "Test tiers"),
run literally with -N (list only) from the repository root, selects that tier.

usage: test_tiers_are_honest.py SRC BUILD       (BUILD must be SRC/build: the documented commands name build/)
Tests listed under [test-tiers] in tools/habits-exclusions.txt (name patterns) are tolerated until fixed.
"""
import json
import os
import re
import subprocess
import sys


def tiers_table(path, heading):
    """{tier: command} from the table under HEADING: rows whose first cell is `tier`, with a `ctest ...` cell."""
    lines = open(path, encoding="utf-8").read().splitlines()
    start = lines.index(heading)
    table = {}
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        tier = re.fullmatch(r"`([a-z_]+)`", cells[0]) if cells else None
        if tier:
            commands = [c for c in re.findall(r"`([^`]+)`", line) if c.startswith("ctest ")]
            table[tier.group(1)] = commands[0] if commands else None
    if not table:
        sys.exit(f"{path}: no tier table under '{heading}'")
    return table


def tolerated(src):
    """Name patterns under [test-tiers] in tools/habits-exclusions.txt."""
    patterns, inside = [], False
    for line in open(os.path.join(src, "tools", "habits-exclusions.txt"), encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            inside = line == "[test-tiers]"
        elif inside and line:
            patterns.append(re.compile(line))
    return patterns


def labelled_tests(build):
    listing = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], check=True,
                             capture_output=True, text=True).stdout
    tests = {}
    for test in json.loads(listing)["tests"]:
        labels = []
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS":
                labels = prop["value"]
        tests[test["name"]] = labels
    return tests


def selected_by(command, src):
    """The test names the documented command selects, run literally (by bash, as a reader's shell) with -N."""
    out = subprocess.run(["bash", "-c", command + " -N"], cwd=src, check=True, capture_output=True, text=True).stdout
    # A parameterised test's name goes on after a space ("Suite.Case/0  # GetParam() = ..."): take the whole line.
    return {m.group(1).rstrip() for m in re.finditer(r"^\s*Test\s+#\d+: (.+)$", out, re.M)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, build = sys.argv[1], sys.argv[2]
    if os.path.realpath(build) != os.path.realpath(os.path.join(src, "build")):
        sys.exit(f"the documented commands name build/: BUILD={build}")
    table = tiers_table(os.path.join(src, "docs", "testing.md"), "## Tiers")
    everyday = tiers_table(os.path.join(src, "CONTRIBUTING.md"), "## Test tiers")
    allowed, tests = tolerated(src), labelled_tests(build)
    problems, excused = [], 0
    for tier, command in sorted(everyday.items()):
        if table.get(tier) != command:
            problems.append(f"CONTRIBUTING.md: tier {tier}: `{command}`, docs/testing.md: `{table.get(tier)}`")
    for name, labels in sorted(tests.items()):
        own = [label for label in labels if label in table]
        if len(own) != 1:
            if any(p.fullmatch(name) for p in allowed):
                excused += 1
                continue
            problems.append(f"{name}: labels {labels}: wants exactly one tier of {sorted(table)}")
    for tier, command in sorted(table.items()):
        for label in {label for labels in tests.values() for label in labels}:
            if label != tier and re.search(tier, label):
                problems.append(f"label '{label}' contains tier '{tier}': `ctest -L {tier}` would select it too")
        if command is None:
            problems.append(f"docs/testing.md: tier {tier} has no ctest command")
            continue
        want = {name for name, labels in tests.items() if tier in labels}
        got = selected_by(command, src)
        if got != want:
            problems.append(f"`{command}` selects {len(got)} tests, the tier has {len(want)}: "
                            f"{sorted(got ^ want)[:5]}")
        print(f"tier {tier}: {len(want)} tests, `{command}` selects them")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"ok: {len(tests)} tests, each of one tier ({excused} tolerated by tools/habits-exclusions.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
