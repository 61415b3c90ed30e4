"""`supercoder bench coverage`: line/branch coverage of each problem's tests (gcov)."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from supercoder.commands.display import progress_bar
from supercoder.commands.machine import current, with_engine
from supercoder.commands.options import (
    BenchmarkArg,
    BenchmarkOpt,
    JsonFile,
    note,
    pick_benchmark,
)
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.engine import every_cpu_but_one
from supercoder.paths import atomic_write_text
from supercoder.problems.coverage import coverage_many, means


@with_engine(workers=every_cpu_but_one(), skip=("requests", "timing_slots"))
def coverage(
    bench: BenchmarkArg = None,
    benchmark: BenchmarkOpt = None,
    json_out: JsonFile = None,
) -> None:
    problems = load_benchmark(pick_benchmark(benchmark, bench))
    workers = current().workers
    if len(problems) > 8:
        note(
            f"measuring the coverage of {len(problems)} problems' tests on {workers} "
            "process(es): a few seconds each"
        )
    with progress_bar("coverage", len(problems)) as advance:
        results = coverage_many(problems, progress=advance)
    table = Table("problem", "tests", "lines", "line %", "branches", "branch %")
    for c in results:
        if c.error:
            why = " ".join(c.error.split())[:90]
            table.add_row(c.problem, str(c.tests), "-", "-", "-", f"failed: {why}")
            continue
        table.add_row(
            c.problem,
            str(c.tests),
            f"{c.lines_hit}/{c.lines}",
            f"{100 * c.line_rate:.1f}",
            f"{c.branches_taken}/{c.branches}",
            f"{100 * c.branch_rate:.1f}",
        )
    Console(width=max(110, Console().width), markup=False).print(table)
    line, branch = means(results)
    failed = sum(1 for c in results if c.error)
    typer.echo(
        f"mean over {len(results) - failed} problems: line {100 * line:.1f}%, branch {100 * branch:.1f}% "
        "(the paper reports 96.2% line, 87.3% branch on its CodeNet tests)"
        + (f"; {failed} could not be measured (see their rows)" if failed else "")
    )
    if json_out:
        rows = [
            {**c.__dict__, "line_rate": c.line_rate, "branch_rate": c.branch_rate} for c in results
        ]

        atomic_write_text(
            json_out, json.dumps({"line": line, "branch": branch, "problems": rows}, indent=2)
        )
