"""Line and branch coverage of a problem's tests (gcov), as the paper reports it.

The reference C program is built with ``gcc -O0 --coverage``, run on every test
(visible and hidden), and measured with ``gcov --json-format``: line coverage is
executed lines / executable lines of ``source.c``; branch coverage is branches taken
at least once / all branches (``gcov -b``'s "taken at least once").

The instrumented program is the user's own reference (trusted, never model output),
and gcov must write ``.gcda`` files next to the object file, which the read-only
sandbox does not allow; so it runs as a plain subprocess in a private temporary
folder, with a CPU-time rlimit, a wall-clock timeout and an address-space limit.
"""

from __future__ import annotations

import json
import resource
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from supercoder.errors import InfraError, UserError
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


def _limits(cpu_seconds: float):
    def apply() -> None:
        cpu = max(1, int(cpu_seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))

    return apply


def _gcc(args: list[str], cwd: Path) -> None:
    proc = subprocess.run(["gcc", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise UserError(f"cannot build with --coverage: {proc.stderr[-2000:]}")


def problem_coverage(problem: Problem, timeout: float = 60.0) -> Coverage:
    """Run every test of ``problem`` on a ``--coverage`` build and measure it."""
    with tempfile.TemporaryDirectory(prefix="sc-cov-") as tmp:
        work = Path(tmp)
        (work / "source.c").write_text(problem.source)
        _gcc(
            ["-O0", *problem.compile_flags, "--coverage", "-c", "source.c", "-o", "source.o"], work
        )
        _gcc(["--coverage", "source.o", "-o", "prog", "-lm", *problem.link_flags], work)
        for test in problem.tests:
            try:
                subprocess.run(
                    [str(work / "prog")],
                    input=test.read_input(),
                    cwd=work,
                    capture_output=True,
                    timeout=timeout,
                    preexec_fn=_limits(timeout),
                    check=False,
                )
            except subprocess.TimeoutExpired as e:
                raise UserError(f"{problem.name}: test {test.name} timed out under coverage") from e
        lines, hit, branches, taken = _gcov(work)
    return Coverage(problem.name, len(problem.tests), lines, hit, branches, taken)


def _gcov(work: Path) -> tuple[int, int, int, int]:
    proc = subprocess.run(
        ["gcov", "-b", "-c", "--json-format", "--stdout", "source.o"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0:
        raise InfraError(f"gcov failed: {proc.stderr[-1000:]}")
    lines = hit = branches = taken = 0
    for chunk in proc.stdout.splitlines():
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
    problems: list[Problem], workers: int = 1, progress=None, timeout: float = 60.0
) -> list[Coverage]:
    """Coverage of several problems (in a process pool when ``workers > 1``)."""
    if workers <= 1:
        out = []
        for p in problems:
            out.append(_coverage_job(p, timeout))
            if progress:
                progress()
        return out
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_coverage_job, _portable(p), timeout) for p in problems]
        out = []
        for fut in futures:
            out.append(fut.result())
            if progress:
                progress()
        return out


def _portable(problem: Problem) -> Problem | str:
    """A problem folder path (its lazily generated inputs do not pickle) or the problem."""
    path = problem.meta.get("path")
    return path if path and any(t.input_bytes is None for t in problem.tests) else problem


def _coverage_job(spec: Problem | str, timeout: float) -> Coverage:
    """One problem's coverage; a problem that cannot be built or run is a row saying why."""
    from supercoder.problems.loading import load_problem

    problem = load_problem(spec) if isinstance(spec, str) else spec
    try:
        return problem_coverage(problem, timeout)
    except (UserError, InfraError, OSError, subprocess.SubprocessError) as e:
        return Coverage(problem.name, len(problem.tests), 0, 0, 0, 0, error=str(e).strip()[:500])


def means(results: list[Coverage]) -> tuple[float, float]:
    """Mean per-problem line and branch coverage (as fractions) of the measured problems."""
    results = [c for c in results if not c.error]
    if not results:
        return 0.0, 0.0
    n = len(results)
    return sum(c.line_rate for c in results) / n, sum(c.branch_rate for c in results) / n
