"""`supercoder check PROBLEM CANDIDATE.s`: one verdict (correct? how much faster?)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from supercoder.errors import UserError


def check(
    problem_dir: Annotated[
        Path, typer.Argument(help="Problem folder (source.c, tests/NAME.in + NAME.out).")
    ],
    candidate: Annotated[
        Path, typer.Argument(help="Candidate x86-64 assembly (AT&T, as gcc emits).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    no_time: Annotated[
        bool, typer.Option("--no-time", help="Check correctness only; skip timing.")
    ] = False,
    unsafe_no_sandbox: Annotated[
        bool,
        typer.Option(
            "--unsafe-no-sandbox", help="Run the candidate WITHOUT isolation (dangerous)."
        ),
    ] = False,
    cpu_limit: Annotated[
        float, typer.Option(min=0.01, max=3600, help="CPU seconds per test run.")
    ] = 10.0,
    memory_mb: Annotated[
        int, typer.Option(min=16, max=1 << 20, help="Memory limit per test run (MiB).")
    ] = 2048,
) -> None:
    """Is CANDIDATE correct on every test of PROBLEM_DIR, and how much faster than gcc -O3?

    Assembles and links the candidate (gcc CANDIDATE.s -lm, plus problem.json's cflags
    and ldflags), runs every test (hidden ones too) in the sandbox, compares stdout
    (exactly, or by problem.json's compare: tokens, float:TOL), and if all pass measures the
    speedup over the -O3 baseline: CPU time, paired and interleaved, median per test,
    geometric mean over tests, bootstrap 95% CI.

    Exit code 0 whenever the check ran, whatever the verdict.

    Example: supercoder check src/supercoder/data/bench/dp_lcs my.s --json
    """
    from dataclasses import replace

    from supercoder.problems.loading import load_problem
    from supercoder.sandbox.box import Limits
    from supercoder.verify.evaluate import EvalConfig, evaluate

    if not candidate.is_file():
        raise UserError(f"{candidate}: no such file")
    problem = load_problem(problem_dir)
    limits = replace(
        Limits(), cpu_seconds=cpu_limit, wall_seconds=2 * cpu_limit + 5, memory_mb=memory_mb
    )
    config = EvalConfig(sandbox=not unsafe_no_sandbox, time=not no_time, limits=limits)
    verdict = evaluate(problem, candidate.read_text(errors="replace"), config)
    if verdict.is_infra_failure:  # the check itself could not run
        typer.echo(
            json.dumps(_check_json(verdict))
            if as_json
            else f"check could not run: {verdict.message}"
        )
        raise typer.Exit(3)
    if as_json:
        typer.echo(json.dumps(_check_json(verdict), indent=2))
    else:
        from supercoder.commands.display import print_verdict

        print_verdict(verdict)


def _check_json(verdict) -> dict:
    """The verdict plus the paper's reward (None for an infrastructure failure)."""
    from supercoder.verify.reward import paper_reward

    return {**verdict.to_json(), "reward": paper_reward(verdict)}
