"""GNU as (x86-64) source text: comments, string literals, statements. A leaf module.

One lexer for everything that reads candidate text (``gcc.normalize_asm`` and
its digest, the build's directive check, ``analysis.asm.parse``), so they agree on
what is code: ``#`` starts a comment only outside a ``"string"`` and a ``'c``
character constant; ``/* ... */`` comments may span lines; ``;`` separates
statements on a line. Escapes (``\\"``, ``\\\\``) are honoured inside strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_PLAIN = re.compile(r"[^\"'#/]+")  # text the lexer copies as it is, in one piece


def strip_comments(text: str) -> str:
    """``text`` without comments; newlines (so line numbers) and strings kept as written.
    Runs of ordinary text are copied whole (a 30 MB table costs a second, not a minute)."""
    out: list[str] = []
    i, n = 0, len(text)
    plain = _PLAIN.match
    while i < n:
        run = plain(text, i)
        if run:
            out.append(run.group())
            i = run.end()
            continue
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif ch == "'" and i + 1 < n and text[i + 1] != "\n":
            step = 3 if text[i + 1] == "\\" and i + 2 < n else 2  # 'c or '\c
            out.append(text[i : i + step])
            i += step
        elif ch == "#":
            i = _line_end(text, i)
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            end = n if close < 0 else close + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """Index just past the string literal opening at ``start`` (a string stops at a newline)."""
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == '"':
            return i + 1
        if ch == "\n":
            return i
        i += 1
    return len(text)


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def split_statements(line: str) -> list[str]:
    """A comment-free line split at ``;`` outside strings, each stripped, empty ones dropped."""
    if ";" not in line:
        return [line.strip()] if line.strip() else []
    parts, start = [], 0
    for i, kind in _scan(line):
        if kind == ";":
            parts.append(line[start:i])
            start = i + 1
    parts.append(line[start:])
    return [p.strip() for p in parts if p.strip()]


def _scan(line: str) -> Iterator[tuple[int, str]]:
    """Positions of ``;`` outside string literals and character constants."""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch == '"':
            i = _string_end(line, i)
            continue
        if ch == "'" and i + 1 < n:
            i += 3 if line[i + 1] == "\\" else 2
            continue
        if ch == ";":
            yield i, ";"
        i += 1


def statements(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line, statement) for every statement of the program, comments removed."""
    for number, line in enumerate(strip_comments(text).splitlines(), start=1):
        for stmt in split_statements(line):
            yield number, stmt


_SPACE = re.compile(r"\s+")


def collapse_space(stmt: str) -> str:
    """Runs of whitespace outside string literals become one space (strings untouched)."""
    if '"' not in stmt:
        return _SPACE.sub(" ", stmt.strip())
    out, i = [], 0
    while i < len(stmt):
        if stmt[i] == '"':
            end = _string_end(stmt, i)
            out.append(stmt[i:end])
            i = end
            continue
        j = stmt.find('"', i)
        j = len(stmt) if j < 0 else j
        out.append(_SPACE.sub(" ", stmt[i:j]))
        i = j
    return "".join(out).strip()


def blank_strings(stmt: str) -> str:
    """``stmt`` with the contents of every string literal removed (``"..."`` -> ``""``)."""
    if '"' not in stmt:
        return stmt
    out, i = [], 0
    while i < len(stmt):
        if stmt[i] == '"':
            i = _string_end(stmt, i)
            out.append('""')
            continue
        out.append(stmt[i])
        i += 1
    return "".join(out)
