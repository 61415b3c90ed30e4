"""Prompts of the evolutionary search: improve a parent program, or cross two parents.

``evolve_messages(problem, parents, tried, ...)`` shows the C program, then each parent
(``Parent``: its assembly, full or profile-annotated with ``context="hot"``, and its
measured speedup over gcc -O3), then what was already tried on the first parent (short
notes: wrong output, not faster, 1.4x...), and asks for a faster program: SEARCH/REPLACE
edit blocks against the first parent (``answer="diff"``) or the whole program. With two
parents (crossover) it asks to combine their best ideas. Hidden tests never appear.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from supercoder.prompting.prompts import (
    _INSTRUCTIONS,
    DIFF_INSTRUCTIONS,
    _args_line,
    _with_link,
    fence,
    hot_parts,
    requirements,
)
from supercoder.types import Problem


@dataclass(frozen=True)
class Parent:
    """A program shown in the prompt, with its measured speedup (None: the baseline)."""

    asm: str
    speedup: str | None = None


def evolve_messages(
    problem: Problem,
    parents: Sequence[Parent],
    tried: Sequence[str] = (),
    *,
    context: str = "full",
    answer: str = "whole",
    show_inputs: int = 0,
    target: str = "native",
) -> list[dict[str, str]]:
    """One user turn (see module docstring); ``target`` and the problem's exit status
    are said as in the first prompt (``prompts.requirements``)."""
    parts = [
        "Here is a C program that reads standard input and writes standard output:",
        fence(problem.source, "c"),
    ]
    cross = len(parents) > 1
    for k, parent in enumerate(parents):
        name = f"Program {chr(ord('A') + k)}" if cross else "This program"
        speed = (
            f"it runs {parent.speedup} faster than `gcc -O3`"
            if parent.speedup
            else "it is what `gcc -O3` generates"
        )
        intro = f"{name} is a correct x86-64 assembly version of it ({speed}):"
        if context == "hot" and k == 0:
            body = hot_parts(problem, parent.asm)
            parts += [intro, *body[1:]]
        else:
            parts += [intro, fence(parent.asm, "assembly")]
    if tried:
        parts.append(
            "Already tried on "
            + ("program A" if cross else "this program")
            + " (do something different):\n"
            + "\n".join(f"- {t}" for t in tried)
        )
    inputs = list(problem.visible_tests)[: max(show_inputs, 0)]
    if inputs:
        parts.append("Example inputs (the program reads them from standard input):")
        parts += [
            _args_line(t) + fence(t.read_input()[:300].decode("utf-8", errors="replace"), "")
            for t in inputs
        ]
    parts += requirements(problem, target)
    if cross:
        parts.append("Combine the best ideas of both programs into one program faster than either.")
    if answer == "diff":
        ask = DIFF_INSTRUCTIONS.replace("the assembly shown above", "program A" if cross else "it")
        parts.append(_with_link(problem, ask.replace("Make this program", "Make it")))
    else:
        parts.append(_with_link(problem, _INSTRUCTIONS.replace("a faster", "an even faster")))
    return [{"role": "user", "content": "\n\n".join(parts)}]
