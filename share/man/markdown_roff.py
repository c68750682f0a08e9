"""The Markdown of docs/ as man(7) roff, for the kforge-campaign(5) and kforge-site(5) pages: headings, paragraphs,
lists, code blocks and tables (each row a tagged paragraph: the first cell, then "column: cell" lines), inline
code in bold, links as their text. Only what docs/*.md use; anything else passes through as text.
"""
import re


def escape(text):
    """Plain text -> roff text: backslashes, and a leading . or ' that roff would take for a request."""
    text = text.replace("\\", "\\e")
    return re.sub(r"^([.'])", r"\\&\1", text)


def inline(text):
    """Markdown inline -> roff: `code` in bold, **strong** in bold, [text](link) -> text, \\| -> |."""
    out = []
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    for i, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if i % 2:
            out.append("\\fB" + escape(part[1:-1]).replace("-", "\\-") + "\\fR")
            continue
        part = part.replace("\\|", "|")
        part = escape(part)
        part = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", part)
        out.append(part)
    text = "".join(out)
    return "\\&" + text if text.startswith(("'", ".")) else text


def _cells(row):
    """Splits a table row on | outside `code` and not escaped."""
    cells, cur, code = [], "", False
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    i = 0
    while i < len(row):
        c = row[i]
        if c == "\\" and i + 1 < len(row) and row[i + 1] == "|":
            cur += "\\|"
            i += 2
            continue
        if c == "`":
            code = not code
        if c == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    cells.append(cur.strip())
    return cells


def _table(rows):
    header = _cells(rows[0])
    out = []
    for row in rows[2:]:
        cells = _cells(row)
        out += [".TP", inline(cells[0]) if cells else ""]
        rest = [f"\\fI{escape(h)}\\fR: {inline(c)}" for h, c in zip(header[1:], cells[1:], strict=False)]
        out += rest[:1]
        for line in rest[1:]:
            out += [".br", line]
    return out


def _heading(text):
    return '"' + inline(text).replace('"', "'") + '"'


def convert(markdown, skip_title=True):
    """Markdown text -> list of roff lines. The level-1 title is left out (it becomes the NAME line)."""
    lines = markdown.splitlines()
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1:j]
            if body:
                out += [".PP", ".RS 4", ".nf"] + ["\\&" + escape(b) for b in body] + [".fi", ".RE"]
            i = j + 1
            continue
        m = re.match(r"^(#+) (.*)$", line)
        if m:
            level = len(m.group(1))
            if not (level == 1 and skip_title):
                out += [(".SH " if level <= 2 else ".SS ") + _heading(m.group(2))]
            i += 1
            continue
        if line.startswith("|"):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out += _table(lines[i:j])
            i = j
            continue
        m = re.match(r"^(\s*)(- |\d+\. )(.*)$", line)
        if m:
            item, j = [m.group(3)], i + 1
            while j < len(lines) and lines[j].startswith("  ") and lines[j].strip() \
                    and not re.match(r"^\s*(- |\d+\. )", lines[j]):
                item.append(lines[j].strip())
                j += 1
            tag = "\\(bu" if m.group(2) == "- " else m.group(2).strip()
            out += [f".IP {tag} 4", inline(" ".join(item))]
            i = j
            continue
        if not line.strip():
            i += 1
            continue
        para, j = [], i
        while j < len(lines) and lines[j].strip() and not re.match(r"^(#+ |\||```|\s*- |\s*\d+\. )", lines[j]):
            para.append(lines[j].strip())
            j += 1
        out += [".PP", inline(" ".join(para))]
        i = j
    return out


def title(markdown):
    m = re.search(r"^# (.*)$", markdown, re.M)
    return m.group(1).strip() if m else ""


def first_table(markdown, header):
    """The rows (cells) of the first table whose header cells are `header`, e.g. ["code", "meaning"]."""
    lines = markdown.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and [c.strip("` ") for c in _cells(line)] == header:
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(_cells(row))
            return rows
    return []
