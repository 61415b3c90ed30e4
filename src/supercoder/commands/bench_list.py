"""`supercoder bench list`: problems with split, tags, test counts, size, baseline time."""

from __future__ import annotations

import contextlib
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from supercoder.commands.options import (
    BenchmarkArg,
    BenchmarkOpt,
    NoTimeOpt,
    SplitOpt,
    note,
    pick_benchmark,
)
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import UserError
from supercoder.paths import atomic_write_text, cache_dir, temp_prefix
from supercoder.sandbox.box import Limits, open_sandbox
from supercoder.toolchain.baseline import baseline_asm, baseline_binary, unit_asms
from supercoder.types import Problem


def _human(n: int) -> str:
    for unit in ("B", "KB", "MB"):
        if n < 1024:
            return f"{n:.0f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def baseline_seconds(problem: Problem) -> tuple[str, float]:
    """(slowest test, its CPU seconds under the -O3 baseline): every test run once in the
    sandbox, the slowest then twice more (min of 3). Cached per source, flags and inputs."""
    digest = hashlib.sha256(" ".join(problem.link_flags).encode())
    for t in problem.tests:
        digest.update(hashlib.sha256(t.run_input()).digest())
    key = f"{problem.source_hash()}-{digest.hexdigest()[:16]}"
    path = cache_dir() / "baseline_times" / f"slowest-{key}.json"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        data = json.loads(path.read_text())  # a damaged entry is measured again
        return str(data["test"]), float(data["seconds"])
    name, seconds = _measure(problem)
    atomic_write_text(path, json.dumps({"test": name, "seconds": seconds, "problem": problem.name}))
    return name, seconds


def _measure(problem: Problem) -> tuple[str, float]:
    with tempfile.TemporaryDirectory(prefix=temp_prefix("list")) as tmp:
        try:
            binary = baseline_binary(
                baseline_asm(problem), Path(tmp), problem.link_flags, True, unit_asms(problem)
            )
        except UserError as e:
            raise UserError(f"{problem.name}: the baseline does not build:\n{e}") from e
        limits = Limits(cpu_seconds=30, wall_seconds=60)
        with open_sandbox({"base": binary}, limits, exit_code=problem.exit_code) as box:
            first = {t.name: box.run("base", t.run_input()) for t in problem.tests}
            failed = [n for n, r in first.items() if not r.clean_exit]
            if failed:
                raise UserError(f"{problem.name}: the baseline fails on test {failed[0]}")
            slowest = max(problem.tests, key=lambda t: first[t.name].cpu_seconds)
            runs = [first[slowest.name], *(box.run("base", slowest.run_input()) for _ in range(2))]
    return slowest.name, min(r.cpu_seconds for r in runs)


def _baseline_ms(problem: Problem) -> str:
    try:
        name, seconds = baseline_seconds(problem)
    except UserError as e:
        return f"fails: {str(e).splitlines()[0].removeprefix(problem.name + ': ')}"
    return f"{seconds * 1000:.1f} ({name})"


def list_(
    bench: BenchmarkArg = None,
    benchmark: BenchmarkOpt = None,
    split: SplitOpt = None,
    no_time: NoTimeOpt = False,
    timed: Annotated[
        bool,
        typer.Option(
            "--time",
            help="Also measure each -O3 baseline's CPU time on its slowest test (runs every "
            "test: about 4 s a problem, a minute for the bundled set; cached).",
        ),
    ] = False,
) -> None:
    """The problems of a benchmark: split, tags, test counts, largest input; with --time
    also "baseline ms", the -O3 baseline's CPU time on the problem's slowest test.

    Example: supercoder bench list --benchmark val --time
    """
    bench = pick_benchmark(benchmark, bench)
    problems = _in_split(load_benchmark(bench), bench, split)
    timed = timed and not no_time  # --no-time (the default) times nothing
    if timed:
        note(f"timing the -O3 baseline of {len(problems)} problem(s): about 4 s each (cached)")
    table = Table(
        "problem",
        "split",
        "tags",
        "visible",
        "hidden",
        "largest input",
        "baseline ms (slowest test)" if timed else "baseline ms (--time)",
    )
    for p in problems:
        largest = max(len(t.run_input()) for t in p.tests)
        tags = ",".join(map(str, p.settings.tags))
        hidden = len(p.tests) - len(p.visible_tests)
        table.add_row(
            p.name,
            p.split or "-",
            tags,
            str(len(p.visible_tests)),
            str(hidden),
            _human(largest),
            _baseline_ms(p) if timed else "-",
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
