"""Refuse assembly that reads files at build time, before it reaches the assembler.

``.incbin`` pastes a file's bytes into the program and ``.include`` its text (which
the assembler then quotes in its errors): with either, a candidate could embed the
expected outputs or copy hidden tests into its build log. This check gives those a
clear ``compile_error``, including the macro routes to them: a directive or
instruction name built by substitution (``.in\\x``), a ``;`` smuggled in a quoted
macro argument (``m ";.inc", "lude"`` expands to ``nop ;.include``), and the modes
that change the syntax (``.altmacro``, ``.mri``). It is not the guarantee: the build
sandbox shows the assembler nothing but the candidate and the toolchain.
"""

from __future__ import annotations

import re

from supercoder.toolchain.asmtext import blank_strings, statements

# Directive names are case-insensitive; a name ending at a word boundary (not .includes).
_READER = re.compile(r"(?<![\w$.@])\.(incbin|include)(?![\w$.@])", re.IGNORECASE)
_LABEL = re.compile(r"^(?:[A-Za-z_.$][\w.$@]*|\d+):\s*")
_MACRO_LOOPS = (".macro", ".irp", ".irpc")
_MODES = (".altmacro", ".mri")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"?')


def refusal(what: str) -> str:
    """The compile error for a program that reads a file while it is built."""
    return (
        f"{what} reads a file at build time, which is not allowed: the program must "
        "be self-contained (put its data in it with .byte/.ascii/.quad)"
    )


def forbidden_directive(asm: str) -> str | None:
    """A one-line reason if ``asm`` reads a file at build time (directly, through a
    macro argument, or by a name built by macro substitution), else None."""
    for number, stmt in statements(asm):
        while (label := _LABEL.match(stmt)) and not stmt.startswith(('"', "'")):
            stmt = stmt[label.end() :]
        if stmt:
            reason = _statement_problem(stmt)
            if reason:
                return f"line {number}: {reason}"
    return None


def _statement_problem(stmt: str) -> str | None:
    head = stmt.split(None, 1)[0]
    # strings count only where they may be spliced into code: macro arguments
    # (a statement that is not a directive) and the macro/loop headers themselves
    spliced = not head.startswith(".") or head.lower() in _MACRO_LOOPS
    found = _READER.search(stmt if spliced else blank_strings(stmt))
    if found:
        return refusal(f"`.{found.group(1).lower()}`")
    if head.lower() in _MODES:
        return f"`{head}` changes the assembler's syntax, which is not allowed"
    if "\\" in head or "&" in head:
        return (
            f"`{head}` builds a directive or instruction name by macro substitution, "
            "which is not allowed (a file-reading directive could hide there)"
        )
    if spliced and any(";" in s for s in _STRING.findall(stmt)):
        return "a `;` inside a quoted macro argument is not allowed (it could start a hidden directive)"
    return None
