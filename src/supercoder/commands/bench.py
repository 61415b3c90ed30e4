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


def baseline_seconds(problem: Problem) -> tuple[str, float]:
    """(slowest test, its CPU seconds under the -O3 baseline): every test run once in the
    sandbox, the slowest then twice more (min of 3). Cached per source, flags and inputs."""
    from supercoder.paths import cache_dir

    digest = hashlib.sha256(" ".join(problem.link_flags).encode())
    for t in problem.tests:
        digest.update(hashlib.sha256(t.read_input()).digest())
    key = f"{problem.source_hash()}-{digest.hexdigest()[:16]}"
    path = cache_dir() / "baseline_times" / f"slowest-{key}.json"
    if path.is_file():
        data = json.loads(path.read_text())
        return str(data["test"]), float(data["seconds"])
    name, seconds = _measure(problem)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"test": name, "seconds": seconds, "problem": problem.name}))
    return name, seconds


def _measure(problem: Problem) -> tuple[str, float]:
    import tempfile

    from supercoder.build.baseline import baseline_asm, baseline_binary
    from supercoder.sandbox.box import Limits, open_sandbox

    with tempfile.TemporaryDirectory(prefix="sc-list-") as tmp:
        try:
            binary = baseline_binary(baseline_asm(problem), Path(tmp), problem.link_flags)
        except UserError as e:
            raise UserError(f"{problem.name}: the baseline does not build:\n{e}") from e
        with open_sandbox({"base": binary}, Limits(cpu_seconds=30, wall_seconds=60)) as box:
            first = {t.name: box.run("base", t.read_input()) for t in problem.tests}
            failed = [n for n, r in first.items() if not r.clean_exit]
            if failed:
                raise UserError(f"{problem.name}: the baseline fails on test {failed[0]}")
            slowest = max(problem.tests, key=lambda t: first[t.name].cpu_seconds)
            runs = [first[slowest.name], *(box.run("base", slowest.read_input()) for _ in range(2))]
    return slowest.name, min(r.cpu_seconds for r in runs)


def _baseline_ms(problem: Problem) -> str:
    try:
        name, seconds = baseline_seconds(problem)
    except UserError as e:
        return f"fails: {str(e).splitlines()[0].removeprefix(problem.name + ': ')}"
    return f"{seconds * 1000:.1f} ({name})"


def list_(
    bench: Annotated[
        str, typer.Argument(help="train, val, all, a benchmark folder or a record file.")
    ] = "all",
    split: Annotated[str | None, typer.Option(help="Only this split.")] = None,
    no_time: Annotated[
        bool, typer.Option("--no-time", help="Skip measuring the baseline time.")
    ] = False,
) -> None:
    """ "baseline ms" is the -O3 baseline's CPU time on the problem's slowest test."""
    from rich.console import Console
    from rich.table import Table

    from supercoder.dataset.benchmarks import load_benchmark

    problems = _in_split(load_benchmark(bench), bench, split)
    table = Table(
        "problem",
        "split",
        "tags",
        "visible",
        "hidden",
        "largest input",
        "baseline ms (slowest test)",
    )
    for p in problems:
        largest = max(len(t.read_input()) for t in p.tests)
        tags = ",".join(map(str, p.meta.get("tags", [])))
        hidden = len(p.tests) - len(p.visible_tests)
        table.add_row(
            p.name,
            p.split or "-",
            tags,
            str(len(p.visible_tests)),
            str(hidden),
            _human(largest),
            "-" if no_time else _baseline_ms(p),
        )
    Console(width=max(110, Console().width), markup=False).print(table)
    splits = {
        s: sum(1 for p in problems if p.split == s)
        for s in sorted({p.split for p in problems if p.split})
    }
    unsplit = sum(1 for p in problems if not p.split)
    parts = [f"{k} {v}" for k, v in splits.items()] + (
        [f"no split {unsplit}"] if splits and unsplit else []
    )
    typer.echo(f"{len(problems)} problems" + (": " + ", ".join(parts) if parts else ""))


def _in_split(problems: list[Problem], bench: str, split: str | None) -> list[Problem]:
    if split is None:
        return problems
    if not any(p.split for p in problems):
        raise UserError(
            f'{bench}: its problems have no split (set "split" in each problem.json, or '
            "problem init --split): drop --split to list them all"
        )
    chosen = [p for p in problems if p.split == split]
    if not chosen:
        known = ", ".join(sorted({p.split for p in problems if p.split}))
        raise UserError(f"{bench}: no problems in split {split!r} (splits: {known})")
    return chosen


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
    from supercoder.dataset.benchmarks import load_benchmark
    from supercoder.problems.coverage import coverage_many, means

    problems = load_benchmark(bench)
    with progress_bar("coverage", len(problems)) as advance:
        results = coverage_many(problems, workers, advance)
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


def _register_tokens(sub: typer.Typer) -> None:
    from supercoder.commands.profiling import tokens

    sub.command("tokens", help="Prompt and answer tokens per problem (full/hot, whole/diff).")(
        tokens
    )
