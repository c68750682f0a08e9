#!/usr/bin/env python3
"""A clone is the whole product: no tracked file may point outside the repository.

Usage: no_paths_outside_the_repository.py REPO_ROOT

Checks every file git knows (tracked, plus new files not ignored), text files only, changelogs exempt:
  - no reference to the team folder beside the clone (the literal two dots, slash, "shared") and no absolute
    path of the development machine's work folder (the clone's and the team folder's);
  - every relative path that starts with ../ (as in a campaign's replay_cache, a Markdown link, an include),
    resolved against the folder of the file that holds it (what kforge does for campaign files), stays
    inside the repository.
A line carrying the marker "repo-check: outside-path-ok" is exempt (e.g. a test of path traversal).
Before checking the repository it checks itself on a made-up tree that has each kind of violation, so a
checker that finds nothing cannot pass. Exit 0 when clean, 1 with one FILE:LINE: line per violation.
"""
import os
import re
import subprocess
import sys
import tempfile

SIBLING = re.compile(r"\.\./shared\b")  # written escaped so that this file does not match itself
MACHINE = re.compile(r"/work/(?:main|shared)\b")
# A run of ../ not glued to something before it ($SRC/../x is relative to $SRC, not to the file).
RELATIVE = re.compile(r"(?<![\w./$}-])((?:\.\./)+[\w.\-/]*)")
MARKER = "repo-check: outside-path-ok"
CHANGELOG = re.compile(r"^(changelog|changes|news)(\.\w+)?$", re.IGNORECASE)


def listed_files(root):
    try:
        out = subprocess.run(["git", "-c", "safe.directory=*", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an unpacked tarball): walk it
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x != ".git" and not x.startswith("build")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def text_of(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:  # a deleted-but-tracked file or a dangling link: nothing to read
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def violations(root):
    root = os.path.realpath(root)
    found = []
    for rel in sorted(listed_files(root)):
        if CHANGELOG.match(os.path.basename(rel)):
            continue
        text = text_of(os.path.join(root, rel))
        if text is None:
            continue
        folder = os.path.dirname(os.path.join(root, rel))
        for number, line in enumerate(text.splitlines(), 1):
            if MARKER in line:
                continue
            where = f"{rel}:{number}: "
            for pattern in (SIBLING, MACHINE):
                for m in pattern.finditer(line):
                    found.append(where + "points outside the repository: " + m.group(0))
            for m in RELATIVE.finditer(line):
                target = os.path.normpath(os.path.join(folder, m.group(1)))
                if os.path.commonpath([root, target]) != root:
                    found.append(f"{where}{m.group(1)} (relative to the file) leaves the repository")
    return found


def self_check():
    """The checker must catch each kind of violation on a tree made for it, and accept the clean lines."""
    with tempfile.TemporaryDirectory() as tmp:
        bad = {
            "share/examples/escape.yaml": "evaluation:\n  replay_cache: " + "../" * 3 + "data/x.json.gz\n",
            "README.md": "See [the brief](../" + "shared/ARCHITECTURE.md).\n",
            "bench/run.sh": "SPACES=$SRC/../" + "shared/data\n",
            "docs/a.md": "data in /work/" + "shared/data\n",
        }
        good = {
            "share/examples/ok.yaml": "evaluation:\n  replay_cache: ../data/x.json.gz\n",
            "tests/t.cpp": 'path = "' + "../" * 4 + 'etc/passwd";  // ' + MARKER + "\n",
            "CHANGELOG.md": "- moved data from ../" + "shared into the repository\n",
        }
        for rel, text in {**bad, **good}.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), "w") as f:
                f.write(text)
        hits = violations(tmp)
        flagged = {h.split(":", 1)[0] for h in hits}
        if flagged != set(bad):
            hits_text = "\n".join(hits)
            sys.exit(f"self-check failed: expected violations in {sorted(bad)}, got:\n{hits_text}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    self_check()
    found = violations(sys.argv[1])
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} reference(s) outside the repository: a clone must need nothing beside it")
        return 1
    print("ok: no tracked file references a path outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
