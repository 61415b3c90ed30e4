"""Core commands: ``check``, ``problem init``, ``version``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from supercoder.errors import UserError

problem_app = typer.Typer(help="Create and inspect problem folders.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("check")(check)
    from supercoder.commands.profiling import register_problem

    register_problem(problem_app)
    app.add_typer(problem_app, name="problem")
    app.command("version", help="Print the supercoder version and toolchain context.")(version)


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


@problem_app.command("init")
def problem_init(
    source: Annotated[Path, typer.Argument(help="The C program (reads stdin, writes stdout).")],
    inputs: Annotated[
        Path,
        typer.Option(
            "--inputs",
            help="Test inputs: a flat folder, a Kattis/ICPC package "
            "(data/sample, data/secret) or CodeNet input_N.txt files.",
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Problem folder to create.")
    ] = None,
    hidden: Annotated[Path | None, typer.Option(help="Folder of hidden-test inputs.")] = None,
    cflags: Annotated[
        str, typer.Option("--cflags", help='Extra gcc flags, e.g. "-fopenmp -DN=100".')
    ] = "",
    ldflags: Annotated[str, typer.Option("--ldflags", help='Extra link flags, e.g. "-lgmp".')] = "",
    compare: Annotated[
        str, typer.Option(help="Output comparison: exact, tokens or float:TOL.")
    ] = "exact",
    split: Annotated[str | None, typer.Option(help="Split to record (train or val).")] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing problem folder.")
    ] = False,
    timeout: Annotated[float, typer.Option(help="CPU seconds per reference run.")] = 20.0,
) -> None:
    """Make a problem folder from SOURCE and its test inputs.

    Expected outputs come from running the -O3 reference build (gcc -O3 + --cflags,
    linked with --ldflags; twice, in the sandbox): a program whose two runs differ is
    refused as non-deterministic. Official answers found beside the inputs (Kattis .ans,
    CodeNet output_N.txt, NAME.out) are compared with the reference output and every
    disagreement is reported. Nothing is left behind if init fails.

    Example: supercoder problem init sum.c --inputs inputs/ -o problems/sum
    Example: supercoder problem init par.c --inputs kattis/par --cflags -fopenmp --compare float:1e-6
    """
    from supercoder.problems.init import InitConfig, create_problem

    opts = InitConfig(hidden, cflags, ldflags, compare, split, force, timeout)
    report = create_problem(source, inputs, out or Path(source.stem), opts)
    for line in report.disagreements:
        typer.echo(f"warning: {line}", err=True)
    if report.disagreements:
        typer.echo(
            f"warning: the reference disagrees with {len(report.disagreements)} official answer(s); "
            "the reference output was kept as the expected output",
            err=True,
        )
    typer.echo(
        f"created {report.folder} ({report.layout} layout: {report.visible} visible, "
        f"{report.hidden} hidden tests)"
    )


def version() -> None:
    from supercoder import __version__
    from supercoder.build.toolchain import machine_context
    from supercoder.sandbox.box import isolation_status

    typer.echo(f"supercoder {__version__}")
    for k, v in machine_context().items():
        typer.echo(f"  {k}: {v}")
    typer.echo(f"  sandbox: {isolation_status()[1]}")


def _check_json(verdict) -> dict:
    """The verdict plus the paper's reward (None for an infrastructure failure)."""
    from supercoder.verify.reward import paper_reward

    return {**verdict.to_json(), "reward": paper_reward(verdict)}
