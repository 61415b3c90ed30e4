"""``supercoder bench``: list a benchmark, measure its tests' coverage, fuzz its inputs."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Annotated

import typer

from supercoder.errors import UserError
from supercoder.types import Problem

WORKERS = max(1, (os.cpu_count() or 2) - 1)


def register(app: typer.Typer) -> None:
    sub = typer.Typer(help="Benchmarks: list, test coverage, fuzzed tests.", no_args_is_help=True)
    sub.command("list", help="Problems with split, tags, test counts, size, baseline time.")(list_)
    sub.command("coverage", help="Line/branch coverage of each problem's tests (gcov).")(coverage)
    sub.command("fuzz", help="Add fuzzed differential tests (fuzz/, used as hidden tests).")(fuzz)
    _register_tokens(sub)
    app.add_typer(sub, name="bench")


def _human(n: int) -> str:
    for unit in ("B", "KB", "MB"):
        if n < 1024:
            return f"{n:.0f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def baseline_seconds(problem: Problem, data: bytes) -> float:
    """CPU seconds of the -O3 baseline on ``data`` (min of 3 sandboxed runs), cached."""
    from supercoder.paths import cache_dir

    key = f"{problem.source_hash()}-{hashlib.sha256(data).hexdigest()[:16]}"
    path = cache_dir() / "baseline_times" / f"{key}.json"
    if path.is_file():
        return float(json.loads(path.read_text())["seconds"])
    seconds = _measure(problem, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"seconds": seconds, "problem": problem.name}))
    return seconds


def _measure(problem: Problem, data: bytes) -> float:
    import tempfile

    from supercoder.sandbox import Limits, open_sandbox
    from supercoder.toolchain import assemble, compile_to_asm

    with tempfile.TemporaryDirectory(prefix="sc-list-") as tmp:
        build = assemble(problem.baseline_asm or compile_to_asm(problem.source), Path(tmp) / "base")
        if not build.ok or build.binary is None:
            raise UserError(f"{problem.name}: the baseline does not build:\n{build.log}")
        with open_sandbox({"base": build.binary}, Limits(cpu_seconds=30, wall_seconds=60)) as box:
            runs = [box.run("base", data) for _ in range(3)]
    if not all(r.clean_exit for r in runs):
        raise UserError(f"{problem.name}: the baseline fails on its largest test")
    return min(r.cpu_seconds for r in runs)


def list_(
    bench: Annotated[
        str, typer.Argument(help="train, val, all, a benchmark folder or a record file.")
    ] = "all",
    split: Annotated[str | None, typer.Option(help="Only this split.")] = None,
    no_time: Annotated[
        bool, typer.Option("--no-time", help="Skip measuring the baseline time.")
    ] = False,
) -> None:
    from rich.console import Console
    from rich.table import Table

    from supercoder.problems import load_benchmark

    problems = [p for p in load_benchmark(bench) if split is None or p.split == split]
    if not problems:
        raise UserError(f"{bench}: no problems in split {split!r}")
    table = Table("problem", "split", "tags", "visible", "hidden", "largest input", "baseline ms")
    for p in problems:
        largest = max((t.read_input() for t in p.tests), key=len)
        ms = "-" if no_time else f"{baseline_seconds(p, largest) * 1000:.1f}"
        tags = ",".join(map(str, p.meta.get("tags", [])))
        hidden = len(p.tests) - len(p.visible_tests)
        table.add_row(p.name, p.split or "-", tags, str(len(p.visible_tests)), str(hidden),
                      _human(len(largest)), ms)  # fmt: skip
    Console(width=max(110, Console().width)).print(table)
    splits = {
        s: sum(1 for p in problems if p.split == s)
        for s in sorted({str(p.split) for p in problems})
    }
    typer.echo(f"{len(problems)} problems: " + ", ".join(f"{k} {v}" for k, v in splits.items()))


def coverage(
    bench: Annotated[
        str, typer.Argument(help="train, val, all, a benchmark folder or a record file.")
    ] = "all",
    workers: Annotated[int, typer.Option(help="Parallel processes.")] = WORKERS,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the figures as JSON.")
    ] = None,
) -> None:
    from rich.console import Console
    from rich.table import Table

    from supercoder.commands.dataset import progress_bar
    from supercoder.coverage import coverage_many, means
    from supercoder.problems import load_benchmark

    problems = load_benchmark(bench)
    with progress_bar("coverage", len(problems)) as advance:
        results = coverage_many(problems, workers, advance)
    table = Table("problem", "tests", "lines", "line %", "branches", "branch %")
    for c in results:
        table.add_row(c.problem, str(c.tests), f"{c.lines_hit}/{c.lines}", f"{100 * c.line_rate:.1f}",
                      f"{c.branches_taken}/{c.branches}", f"{100 * c.branch_rate:.1f}")  # fmt: skip
    Console(width=max(110, Console().width)).print(table)
    line, branch = means(results)
    typer.echo(
        f"mean over {len(results)} problems: line {100 * line:.1f}%, branch {100 * branch:.1f}% "
        "(the paper reports 96.2% line, 87.3% branch on its CodeNet tests)"
    )
    if json_out:
        rows = [
            {**c.__dict__, "line_rate": c.line_rate, "branch_rate": c.branch_rate} for c in results
        ]
        json_out.write_text(
            json.dumps({"line": line, "branch": branch, "problems": rows}, indent=2)
        )


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
    from supercoder.commands.dataset import progress_bar
    from supercoder.fuzz import fuzz_problem
    from supercoder.problems import load_benchmark

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


def _register_tokens(sub: typer.Typer) -> None:
    from supercoder.commands.profiling import tokens

    sub.command("tokens", help="Prompt and answer tokens per problem (full/hot, whole/diff).")(
        tokens
    )
