"""`supercoder problem show PROBLEM`: what defines a problem, its input domain first."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import note
from supercoder.problems.constraints import constraint_lines
from supercoder.problems.inputmodel import model_for
from supercoder.problems.loading import load_problem_arg
from supercoder.problems.outputs import problem_mode
from supercoder.toolchain.reference import THREADS_MEASURED, starts_threads
from supercoder.types import memorizable_note
from supercoder.verify.unseen import domain_line, sources


def show_cmd(
    problem_dir: Annotated[
        Path,
        typer.Argument(
            help="Problem folder, or a bundled problem's name (dp_lcs; a folder of that "
            "name here wins)."
        ),
    ],
) -> None:
    """Show a problem: its tests, how outputs are compared, its build flags, its marks
    (memorizable, too small to time), and its input domain with the source the timed
    inputs are drawn from, in one line (the first usable of: its generator, its input
    model with any declared constraints, extrapolated beyond the visible span, and the
    fuzzer), then each source that cannot be used, with why.

    Finding an input model's domain runs the reference on a few draws the first time
    (cached; problem init stores it in input_model.json).

    Example: supercoder problem show problems/prog
    """
    problem = load_problem_arg(problem_dir, note)
    hidden = sum(t.hidden for t in problem.tests)
    typer.echo(
        f"problem {problem.name}: {len(problem.tests) - hidden} visible, {hidden} hidden tests"
    )
    typer.echo(
        f"compare: {problem_mode(problem.settings).describe()}; exit code {problem.exit_code}"
    )
    if problem.cflags or problem.ldflags:
        typer.echo(f"flags: {shlex.join(problem.cflags)} | {shlex.join(problem.ldflags)}")
    if problem.units or problem.answer_joined:
        answer = problem.answer_unit or "source.c (the unit with main)"
        if problem.answer_joined:
            answer += f" with {', '.join(problem.answer_joined)} joined to it"
        why = problem.settings.answer_why
        typer.echo(
            f"answer unit: {answer}{f' ({why})' if why else ''}; linked beside it as gcc "
            f"-O3 builds them: {', '.join(problem.units)}"
        )
    if problem.memorizable:
        typer.echo(f"memorizable: {memorizable_note(problem.memorizable_why)}")
    folder = Path(problem.settings.path) if problem.settings.path else None
    texts = [problem.source]
    if folder is not None:
        texts += [
            folder.joinpath(u).read_text(errors="replace")
            for u in problem.units
            if folder.joinpath(u).is_file()
        ]
    if any(starts_threads(t) for t in texts):
        typer.echo(f"threads: {THREADS_MEASURED}")
    line = domain_line(problem)
    if problem.settings.too_small and "every drawn input gets the same output" not in line:
        typer.echo("too small to time: the whole input domain runs under 5 ms (marked at init)")
    typer.echo(f"domain: {line}")
    if problem.memorizable:
        return
    model = model_for(problem)
    for line in constraint_lines(model.spec) if model is not None else []:
        typer.echo(f"  constraint {line}")
    for src in sources(problem):  # those before the one used
        if not src.dropped:
            break
        typer.echo(f"  not used: {src.name}: {src.dropped}")
