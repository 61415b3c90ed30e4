"""`supercoder problem baseline PROBLEM [-o FILE]`: the -O3 assembly to start from."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import OUT, note
from supercoder.commands.optionset import but
from supercoder.errors import check_writable
from supercoder.paths import atomic_write_text
from supercoder.problems.loading import kept_paths, load_problem_arg
from supercoder.toolchain.baseline import baseline_asm


def baseline_cmd(
    problem_dir: Annotated[
        Path,
        typer.Argument(
            help="Problem folder, or a bundled problem's name (dp_lcs; a folder of that "
            "name here wins)."
        ),
    ],
    out: Annotated[Path | None, but(OUT, show_default="print it")] = None,
) -> None:
    """The problem's gcc -O3 baseline assembly: the program every candidate is compared
    with, and where to start an optimized one.

    Its own baseline.s when the folder has one, else gcc -O3 -S of source.c with the
    problem's cflags (built in the sandbox, cached).

    Example: supercoder problem baseline dp_lcs -o mine.s && supercoder check dp_lcs mine.s
    """
    problem = load_problem_arg(problem_dir, note)
    asm = baseline_asm(problem)
    if out is None:
        typer.echo(asm, nl=not asm.endswith("\n"))
        return
    check_writable(out, "-o", kept_paths(problem))
    atomic_write_text(out, asm)
    note(f"wrote {out}: the -O3 baseline of {problem.name} ({len(asm.splitlines())} lines)")
