"""Griffe extension: render the reST bits of survfair's numpydoc docstrings as Markdown.

The docstrings follow numpydoc (Sphinx roles, ``::`` literal blocks, simple tables), which
mkdocstrings would otherwise show verbatim. At build time only -- the package's docstrings are not
changed -- this rewrites:

* roles ``:func:`~pkg.name` `` (and :class:, :meth:, :attr:, :data:, :mod:, :exc:, :obj:) to
  code spans (``~`` keeps the last component);
* a paragraph ending in ``::`` followed by an indented block to a fenced code block;
* reST simple tables (``====  ====`` borders) to Markdown tables; a line continues the row above
  when its first cell is blank or the row above's first cell ends with a comma (a list of names
  wrapped over lines).
"""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:func|class|meth|attr|data|mod|exc|obj):`(~?)([^`]+)`")


def _role(match: re.Match) -> str:
    short, target = match.group(1), match.group(2).strip()
    if short:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _literal_blocks(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("::") and line.strip() != "::" or line.strip() == "::":
            text = line.rstrip()[:-2].rstrip()
            content = _indent(line) + (2 if line.lstrip().startswith(("* ", "- ")) else 0)
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            block_start = j
            if j < len(lines) and _indent(lines[j]) > content:
                depth = _indent(lines[j])
                while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) >= depth):
                    j += 1
                body = lines[block_start:j]
                while body and not body[-1].strip():
                    body.pop()
                if text.strip():
                    out.append(text + ":")
                out.append("")
                pad = " " * content
                out.append(pad + "```python")
                out.extend(pad + b[depth:] if b.strip() else "" for b in body)
                out.append(pad + "```")
                out.append("")
                i = j
                continue
        out.append(line)
        i += 1
    return out


def _is_border(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and set(stripped) <= {"=", " "} and "==" in stripped


def _tables(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        borders = []
        if _is_border(line):
            j = i
            while j < len(lines) and len(borders) < 3:
                if _is_border(lines[j]) and _indent(lines[j]) == _indent(line):
                    borders.append(j)
                elif not lines[j].strip():
                    break
                j += 1
        if len(borders) != 3:
            out.append(line)
            i += 1
            continue
        spans = [(m.start(), m.end()) for m in re.finditer(r"=+", line)]

        def cells(text: str) -> list[str]:
            padded = text.ljust(spans[-1][1])
            parts = [
                padded[start : (spans[k + 1][0] if k + 1 < len(spans) else len(padded))].strip()
                for k, (start, _) in enumerate(spans)
            ]
            return parts

        header = [" ".join(c.split()) for c in cells(lines[borders[0] + 1])]
        rows: list[list[str]] = []
        for row_line in lines[borders[1] + 1 : borders[2]]:
            if not row_line.strip():
                continue
            parts = cells(row_line)
            if rows and (not parts[0] or rows[-1][0].endswith(",")):
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], parts)]
            else:
                rows.append(parts)
        pad = " " * _indent(line)
        out.append("")
        out.append(pad + "| " + " | ".join(header) + " |")
        out.append(pad + "|" + "---|" * len(header))
        out.extend(pad + "| " + " | ".join(r) + " |" for r in rows)
        out.append("")
        i = borders[2] + 1
    return out


def rst_to_markdown(text: str) -> str:
    """The Markdown rendering of one docstring (roles, literal blocks, simple tables)."""
    text = ROLE.sub(_role, text)
    lines = _tables(text.split("\n"))
    lines = _literal_blocks(lines)
    return "\n".join(lines)


class RstToMarkdown(griffe.Extension):
    """Rewrite every docstring once, when griffe creates the object."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:  # noqa: D102
        if obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
