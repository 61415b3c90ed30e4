"""`supercoder problem init prog.c --inputs DIR`: a problem folder from C and inputs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


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
