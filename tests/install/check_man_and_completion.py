#!/usr/bin/env python3
"""The installed man pages and bash completion against what the installed binaries and the docs say now:
  kforge(1), kforged(8), kforge-eval(1): every command, option and option text of the binaries' --help;
  kforge-campaign(5), kforge-site(5): every key (the first column of each table) of docs/*-schema.md;
  completion: `kforge <TAB>` offers exactly the commands, `kforge CMD --<TAB>` exactly CMD's options,
  `kforged --<TAB>` / `kforge-eval --<TAB>` theirs, and a value-taking option completes its kind of value.
usage: check_man_and_completion.py SRC PREFIX
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree (cmake/__pycache__)

SRC, PREFIX = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "cmake"))
import kforge_help  # noqa: E402

BIN = os.path.join(PREFIX, "bin")
problems = []


def flat(text):
    """Text without white space and hyphens: line breaks and hyphenation of the rendered page do not matter."""
    return re.sub(r"[\s\-\u2010\u2011\u00ad]", "", text)


def rendered(page):
    env = dict(os.environ, MANWIDTH="120")
    path = os.path.join(PREFIX, "share", "man", "man" + page[-1], page)
    return flat(subprocess.run(["man", "-l", path], capture_output=True, text=True, env=env, check=True).stdout)


def must_hold(page, text, what):
    if flat(what) not in text:
        problems.append(f"{page}: lacks {what!r}")


# -- man pages of the binaries
top, commands = kforge_help.kforge_commands(os.path.join(BIN, "kforge"))
page = rendered("kforge.1")
for c in commands:
    must_hold("kforge.1", page, f"kforge {c.synopsis}")
    must_hold("kforge.1", page, c.description)
    for o in c.help.options if c.help else []:
        for n in o.names:
            must_hold("kforge.1", page, n)
        must_hold("kforge.1", page, o.description)
for binary, man in (("kforged", "kforged.8"), ("kforge-eval", "kforge-eval.1")):
    helped = kforge_help.parse_help(kforge_help.run_help([os.path.join(BIN, binary), "--help"]))
    page = rendered(man)
    for o in helped.options:
        for n in o.names:
            must_hold(man, page, n)
        must_hold(man, page, o.description)

# -- schema pages: every key of every table
for doc, man in (("campaign-schema.md", "kforge-campaign.5"), ("site-schema.md", "kforge-site.5")):
    page = rendered(man)
    keys = re.findall(r"^\| `([^`]+)` \|", open(os.path.join(SRC, "docs", doc), encoding="utf-8").read(), re.M)
    if len(keys) < 10:
        problems.append(f"{doc}: only {len(keys)} keys found in its tables")
    for key in keys:
        must_hold(man, page, key)

# -- bash completion, run as bash runs it: COMP_WORDS / COMP_CWORD, then COMPREPLY
completion = os.path.join(PREFIX, "share", "bash-completion", "completions", "kforge")


def complete(function, *words):
    script = (f'source "{completion}"; COMP_WORDS=({" ".join(repr(w) for w in words)}); '
              f"COMP_CWORD={len(words) - 1}; {function}; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True, cwd=SRC).stdout
    return set(out.split())


def expect(got, want, what):
    if got != set(want):
        problems.append(f"completion of {what}: {sorted(got)}, --help says {sorted(set(want))}")


expect(complete("_kforge", "kforge", ""), [c.name for c in commands] + ["--help", "--version"], "kforge")
for c in commands:
    expect(complete("_kforge", "kforge", c.name, "--"), c.option_names(), f"kforge {c.name} --")
for binary, function in (("kforged", "_kforged"), ("kforge-eval", "_kforge_eval")):
    helped = kforge_help.parse_help(kforge_help.run_help([os.path.join(BIN, binary), "--help"]))
    expect(complete(function, binary, "--"), [n for o in helped.options for n in o.names if n.startswith("--")],
           f"{binary} --")
# Values: a YAML file after --site, a folder after --out, the campaign file as run's first argument.
expect(complete("_kforge", "kforge", "run", "--site", "site-configs/hop"), ["site-configs/hopper-cluster.yaml"],
       "kforge run --site site-configs/hop")
expect(complete("_kforge", "kforge", "run", "share/examples/gemm-host"),
       ["share/examples/gemm-host.yaml", "share/examples/gemm-host-agents.yaml"], "kforge run share/examples/gemm-host")
expect(complete("_kforge", "kforge", "report", "--dir", "share/ex"), ["share/examples"], "kforge report --dir share/ex")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print(f"ok: 5 man pages and the completion match --help of {len(commands)} commands, kforged, kforge-eval and "
      "the schema docs")
