"""Line and branch coverage of a problem's tests (gcov), as the paper reports it.

The reference C program is built with ``gcc -O0 --coverage``, run on every test
(visible and hidden), and measured with ``gcov --json-format``: line coverage is
executed lines / executable lines of ``source.c``; branch coverage is branches taken
at least once / all branches (``gcov -b``'s "taken at least once").

Problems are untrusted input (they come from other people too): the build, every
run of the instrumented program and gcov itself run in the one-shot sandbox
(``run_isolated``), whose work folder is the only writable path (where the ``.gcda``
files land), under a CPU-time, wall-clock and address-space limit; the problem's
flags pass ``check_flags`` first.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from supercoder.engine import Engine, current
from supercoder.errors import InfraError, UserError
from supercoder.paths import temp_prefix
from supercoder.problems.loading import load_problem
from supercoder.sandbox.box import Limits
from supercoder.sandbox.oneshot import run_isolated
from supercoder.toolchain.flags import check_flags
from supercoder.toolchain.gcc import c99_inline, c_messages, copy_headers, missing_symbols
from supercoder.types import Problem

MEMORY_BYTES = 2 << 30


@dataclass(frozen=True)
class Coverage:
    problem: str
    tests: int
    lines: int
    lines_hit: int
    branches: int
    branches_taken: int
    error: str = ""  # why this problem could not be measured (its row says so; the run goes on)

    @property
    def line_rate(self) -> float:
        return self.lines_hit / self.lines if self.lines else 1.0

    @property
    def branch_rate(self) -> float:
        return self.branches_taken / self.branches if self.branches else 1.0


def _limits(cpu_seconds: float) -> Limits:
    return Limits(
        cpu_seconds=cpu_seconds,
        wall_seconds=2 * cpu_seconds + 5,
        memory_mb=MEMORY_BYTES >> 20,
        output_bytes=64 << 20,
        processes=8,
    )


def _gcc(args: list[str], cwd: Path) -> None:
    args = copy_headers(args, cwd) if "-iquote" in args else args  # the problem's headers
    run = run_isolated(["gcc", *args], cwd, limits=_limits(120.0))
    if not run.clean_exit:
        raise UserError(f"cannot build with --coverage: {c_messages(run, cwd)}")


def _coverage_build(
    work: Path, compile_flags: Sequence[str], units: Sequence[str], link: Sequence[str]
) -> None:
    _gcc(["-O0", *compile_flags, "--coverage", "-c", "source.c", "-o", "source.o"], work)
    others = (*units, *compile_flags) if units else ()  # linked beside
    _gcc(["--coverage", "source.o", *others, "-o", "prog", "-lm", *link], work)


def problem_coverage(problem: Problem, timeout: float = 60.0) -> Coverage:
    """Run every test of ``problem`` on a ``--coverage`` build and measure it."""
    check_flags(problem.cflags, "cflags")
    compile_flags = problem.compile_flags
    link = check_flags(problem.link_flags, "cflags/ldflags")
    work = Path(tempfile.mkdtemp(prefix=temp_prefix("cov")))
    try:
        (work / "source.c").write_text(problem.source)
        try:
            _coverage_build(work, compile_flags, problem.units, link)
        except UserError as e:  # C99 inline functions not inlined at -O0: adapt (gcc.compile_c)
            if not c99_inline(problem.source, missing_symbols(str(e))):
                raise
            _coverage_build(work, (*compile_flags, "-fgnu89-inline"), problem.units, link)
        for test in problem.tests:
            run = run_isolated(["./prog"], work, limits=_limits(timeout), stdin=test.run_input())
            if run.outcome == "timeout":
                raise UserError(f"{problem.name}: test {test.name} timed out under coverage")
        lines, hit, branches, taken = _gcov(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return Coverage(problem.name, len(problem.tests), lines, hit, branches, taken)


def _gcov(work: Path) -> tuple[int, int, int, int]:
    run = run_isolated(
        ["gcov", "-b", "-c", "--json-format", "--stdout", "source.o"], work, limits=_limits(120.0)
    )
    if not run.clean_exit:
        raise InfraError(f"gcov failed: {run.describe()}")
    lines = hit = branches = taken = 0
    for chunk in run.stdout.decode(errors="replace").splitlines():
        if not chunk.strip():
            continue
        for f in json.loads(chunk).get("files", []):
            if Path(f["file"]).name != "source.c":
                continue
            for line in f["lines"]:
                lines += 1
                hit += line["count"] > 0
                branches += len(line["branches"])
                taken += sum(1 for b in line["branches"] if b["count"] > 0)
    return lines, hit, branches, taken


def coverage_many(
    problems: list[Problem],
    workers: int | None = None,
    progress: Callable[[], None] | None = None,
    timeout: float = 60.0,
    *,
    engine: Engine | None = None,
) -> list[Coverage]:
    """Coverage of several problems, on the engine's verification workers (``engine``,
    else this process's; ``workers`` gives a one-off engine of that many instead)."""
    with (engine or current()).with_workers(workers) as scoped:
        jobs = [p if scoped.workers <= 1 else _portable(p) for p in problems]
        return scoped.process_map(partial(_coverage_job, timeout=timeout), jobs, progress)


def _portable(problem: Problem) -> Problem | str:
    """A problem folder path (its lazily generated inputs do not pickle) or the problem."""
    path = problem.path
    return path if path and any(t.input_bytes is None for t in problem.tests) else problem


def _coverage_job(spec: Problem | str, timeout: float) -> Coverage:
    """One problem's coverage; a problem that cannot be built or run is a row saying why."""
    problem = load_problem(spec) if isinstance(spec, str) else spec
    try:
        return problem_coverage(problem, timeout)
    except (UserError, InfraError, OSError) as e:
        return Coverage(problem.name, len(problem.tests), 0, 0, 0, 0, error=str(e).strip()[:500])


def means(results: list[Coverage]) -> tuple[float, float]:
    """Mean per-problem line and branch coverage (as fractions) of the measured problems."""
    results = [c for c in results if not c.error]
    if not results:
        return 0.0, 0.0
    n = len(results)
    return sum(c.line_rate for c in results) / n, sum(c.branch_rate for c in results) / n
