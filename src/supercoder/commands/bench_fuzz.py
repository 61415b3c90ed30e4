"""`supercoder bench fuzz`: fuzzed differential tests written to each problem's fuzz/."""

from __future__ import annotations

from typing import Annotated

import typer

from supercoder.errors import UserError


def fuzz(
    target: Annotated[
        str, typer.Argument(help="A problem folder, a benchmark folder, train/val/all.")
    ],
    count: Annotated[int, typer.Option(help="Fuzzed inputs to try per problem.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the mutations.")] = 0,
    timeout: Annotated[
        float, typer.Option(help="CPU seconds per reference run (slower: dropped).")
    ] = 2.0,
) -> None:
    from supercoder.commands.display import progress_bar
    from supercoder.dataset.benchmarks import load_benchmark
    from supercoder.problems.fuzz import fuzz_problem

    if count < 1:
        raise UserError("--count must be at least 1")
    problems = load_benchmark(target)
    reports = []
    with progress_bar("fuzzing", len(problems)) as advance:
        for p in problems:
            reports.append(fuzz_problem(p, count, seed, timeout))
            advance()
    for r in reports:
        why = ", ".join(f"{k} {v}" for k, v in sorted(r.dropped.items())) or "none dropped"
        typer.echo(f"{r.problem}: kept {r.kept} of {r.tried} fuzzed inputs ({why})")
    typer.echo(
        f"{sum(r.kept for r in reports)} fuzzed tests written to fuzz/ (loaded as hidden tests)"
    )
