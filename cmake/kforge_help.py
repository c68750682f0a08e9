"""Reads what kforge, kforged and kforge-eval say about themselves in --help, for the generated man pages and bash
completion (share/man/generate_man_pages.py, share/bash-completion/generate_completion.py) and their tests: the
binaries' own help is the one source of commands and options, so neither can drift from it.

Two shapes of help text are understood: kforge's command list ("commands:" then "  NAME SYNOPSIS   what it does")
and Boost.Program_options' option lists ("  -h [ --help ]   this help", "  --rounds arg (=10)  ...", with
continuation lines indented further).
"""
from __future__ import annotations  # "str | None" below on Python 3.8 (CMakeLists.txt asks 3.8)

import re
import subprocess
import sys
from dataclasses import dataclass, field


@dataclass
class Option:
    names: list          # ["-h", "--help"] or ["--site"]
    takes_value: bool
    default: str | None
    description: str

    @property
    def long(self):
        return next((n for n in self.names if n.startswith("--")), self.names[0])


@dataclass
class Help:
    text: str
    usage: str = ""                               # the synopsis line, without "usage:" and a trailing colon
    summary: str = ""                             # "evolves GPU and CPU kernels" of "kforge 0.1.0 - evolves ..."
    options: list = field(default_factory=list)   # Option
    notes: list = field(default_factory=list)     # other prose lines (paragraphs joined)


@dataclass
class Command:
    name: str
    synopsis: str        # "run CAMPAIGN.yaml [--site SITE.yaml] [--out DIR]"
    description: str
    help: Help | None = None   # its own --help; None when that failed (then options come from the synopsis)

    @property
    def positional(self):
        """The first placeholder after the name (CAMPAIGN.yaml, DIR, DIR|NAME), or ""."""
        words = self.synopsis.split()[1:]
        return words[0] if words and not words[0].startswith(("-", "[")) else ""

    def option_names(self):
        if self.help:
            return [n for o in self.help.options for n in o.names if n.startswith("--")]
        return sorted(set(re.findall(r"--[A-Za-z0-9-]+", self.synopsis)) | {"--help"})


def run_help(argv):
    """stdout of argv (+ stderr when stdout is empty); None when it exits non-zero."""
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        print(f"kforge_help: {' '.join(argv)} exited {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
        return None
    return p.stdout or p.stderr


def _synopsis_split(line):
    """'status [DIR|NAME] [--json] where a campaign stands' -> (synopsis, description): the synopsis is the name
    then placeholders (upper case), options and bracketed groups; the description starts at the first other word."""
    words, depth, i = line.split(), 0, 1
    while i < len(words):
        w = words[i]
        if depth == 0 and not (w.startswith(("[", "-", "<")) or w[:1].isupper() or w[:1].isdigit()):
            break
        depth += w.count("[") - w.count("]")
        i += 1
    return " ".join(words[:i]), " ".join(words[i:])


def parse_options(lines):
    """Boost.Program_options' option list -> [Option]."""
    options, current = [], None
    for line in lines:
        m = re.match(r"^ {1,4}(-[^\s\[]+(?: \[ --[^\s\]]+ \])?(?: arg)?(?: \(=[^)]*\))?)(?:\s+(\S.*))?$", line)
        if m and not line.startswith(" " * 6):
            spec, desc = m.group(1), " ".join((m.group(2) or "").split())
            names = re.findall(r"(?<![\w-])(--?[A-Za-z0-9][A-Za-z0-9-]*)", spec)
            default = re.search(r"\(=([^)]*)\)", spec)
            current = Option(names, bool(re.search(r"\barg\b", spec)), default.group(1) if default else None, desc)
            options.append(current)
        elif current is not None and line.startswith(" " * 6) and line.strip():
            current.description = " ".join((current.description + " " + line).split())
        else:
            current = None
    return options


def parse_help(text):
    lines = text.splitlines()
    h = Help(text)
    first = next((ln for ln in lines if ln.strip()), "")
    m = re.match(r"^\S+ \S+ - (.*)$", first)
    if m:
        h.summary = m.group(1).strip()
    usage = next((ln for ln in lines if ln.lower().startswith("usage:")), first if not m else "")
    h.usage = re.sub(r"^usage:\s*", "", usage.strip(), flags=re.I).rstrip(":").strip()
    h.options = parse_options(lines)
    paragraph = []
    for ln in lines:
        skip = (ln is first and m) or ln.strip() == usage.strip() or ln.startswith(" ") or ln.rstrip().endswith(":")
        if ln.strip() and not skip:
            paragraph.append(ln.strip())
        elif paragraph:
            h.notes.append(" ".join(paragraph))
            paragraph = []
    if paragraph:
        h.notes.append(" ".join(paragraph))
    return h


def parse_commands(text):
    """kforge --help's "commands:" block -> [(name, synopsis, description)]."""
    out, inside = [], False
    for ln in text.splitlines():
        if ln.strip().lower() == "commands:":
            inside = True
        elif inside and ln.startswith("  ") and ln.strip():
            synopsis, description = _synopsis_split(ln.strip())
            out.append((synopsis.split()[0], synopsis, description))
        elif inside and out:
            break
    return out


def kforge_commands(kforge):
    """Every command of `kforge --help`, each with its own `kforge CMD --help` parsed."""
    top = run_help([kforge, "--help"])
    if top is None:
        sys.exit(f"kforge_help: {kforge} --help failed")
    commands = []
    for name, synopsis, description in parse_commands(top):
        text = run_help([kforge, name, "--help"])
        commands.append(Command(name, synopsis, description, parse_help(text) if text else None))
    return parse_help(top), commands


def value_kind(option):
    """What the value of an option is, from its description: dir, yaml, user, group, file or none."""
    if not option.takes_value:
        return "none"
    name, d = option.long.lower(), option.description.lower()
    if "group" in name:
        return "group"
    if "owner" in name or "user" in name:
        return "user"
    for kind, words in (("dir", ("directory", "folder")), ("yaml", ("yaml",)), ("user", ("user",)),
                        ("group", ("group",)), ("file", ("file", "manifest", "path"))):
        if any(w in d for w in words):
            return kind
    return "word"
