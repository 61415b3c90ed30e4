"""`supercoder bench fuzz`: fuzzed differential tests written to each problem's fuzz/."""

from __future__ import annotations

import secrets
from typing import Annotated

import typer

from supercoder.commands.display import progress_bar
from supercoder.commands.options import SEED, TIMEOUT, BenchmarkOpt, pick_benchmark
from supercoder.commands.optionset import but
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.problems.fuzz import fuzz_problem


def fuzz(
    target: Annotated[
        str | None,
        typer.Argument(
            help="A problem folder, or the benchmark (as --benchmark).", show_default=False
        ),
    ] = None,
    benchmark: BenchmarkOpt = None,
    count: Annotated[int, typer.Option(min=1, help="Fuzzed inputs to try per problem.")] = 10,
    seed: Annotated[int | None, but(SEED, show_default="a new secret one")] = None,
    timeout: Annotated[float, TIMEOUT] = 2.0,
) -> None:
    if seed is None:
        seed = secrets.randbits(63)
    else:
        typer.echo(
            f"warning: --seed {seed} makes the fuzzed tests predictable from the visible "
            "inputs; they judge correctness only (timed inputs are drawn afresh every check)",
            err=True,
        )
    problems = load_benchmark(pick_benchmark(benchmark, target, None))
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
