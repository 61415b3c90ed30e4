"""The verified evaluator: assemble, run every test in the sandbox, compare, time.

``evaluate(problem, candidate)`` never raises for a bad candidate: every candidate
failure is a ``Status`` in the returned ``Verdict``. Hidden data never leaves the
evaluator: for a hidden test the verdict (its messages, ``TestResult.detail``) says
only the test's name and status, never its input, its expected output, or what the
candidate printed (stdout, stderr, exit code, signal) on it; visible tests may be quoted. A broken machine (no sandbox,
supervisor lost while running the baseline) gives ``Status.INFRA_ERROR``, which
callers retry or drop and never score as wrong. A broken *problem* (C that does not
compile, baseline that fails its own tests) raises ``UserError``.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from supercoder.build.baseline import baseline_asm, baseline_binary
from supercoder.build.toolchain import assemble, machine_context, same_program
from supercoder.errors import InfraError
from supercoder.paths import cache_dir
from supercoder.problems.outputs import expected_output, outputs_match
from supercoder.sandbox.box import Limits, RunResult, Sandbox, SandboxLost, isolation_status
from supercoder.timing.meter import Comparison, Meter, MeterConfig
from supercoder.types import Candidate, Problem, Status, TestResult, Verdict
from supercoder.verify.unseen import unseen_tests


@dataclass(frozen=True)
class EvalConfig:
    """How ``evaluate`` checks a candidate.

    Fields:
        sandbox: run in the sandbox (False only on the user's explicit
            ``--unsafe-no-sandbox``).
        time: measure the speedup of a correct candidate (False: correctness only).
        limits: the sandbox's limits per run (CPU, wall, memory, output, ...).
        meter: how the speedup is measured (``MeterConfig``).
        max_timeouts: tests that time out before the remaining ones are not run.
    """

    sandbox: bool = True
    time: bool = True
    limits: Limits = field(default_factory=Limits)
    meter: MeterConfig = field(default_factory=MeterConfig)
    max_timeouts: int = 2


_OUTCOME_STATUS = {
    "timeout": Status.TIMEOUT,
    "idle": Status.TIMEOUT,  # slept past its allowance: a run's wall time is bounded
    "output_limit": Status.OUTPUT_LIMIT,
    "memory_limit": Status.MEMORY_LIMIT,
    "signaled": Status.RUNTIME_ERROR,
    "exited": Status.RUNTIME_ERROR,
    "spawn_error": Status.RUNTIME_ERROR,
    "tampered": Status.RUNTIME_ERROR,
}
_SEVERITY = [
    Status.COMPILE_ERROR,
    Status.TIMEOUT,
    Status.MEMORY_LIMIT,
    Status.OUTPUT_LIMIT,
    Status.RUNTIME_ERROR,
    Status.WRONG_OUTPUT,
]


def evaluate(
    problem: Problem, candidate: Candidate | str | None, config: EvalConfig = EvalConfig()
) -> Verdict:
    asm = candidate.asm if isinstance(candidate, Candidate) else candidate
    context = {
        **machine_context(),
        **Meter(config.meter).context(),
        "sandbox": "bubblewrap" if config.sandbox else "none (unsafe)",
    }
    if not asm or not asm.strip():
        return Verdict(
            problem.name, Status.NO_ANSWER, message="no assembly in the answer", context=context
        )
    base_asm = baseline_asm(problem)
    identical = same_program(asm, base_asm)
    isolated, why = isolation_status()
    if config.sandbox and not isolated:
        return Verdict(problem.name, Status.INFRA_ERROR, message=why, context=context)
    with tempfile.TemporaryDirectory(prefix="sc-eval-") as tmp:
        workdir = Path(tmp)
        base_bin = baseline_binary(base_asm, workdir, problem.link_flags, config.sandbox)
        build = assemble(asm, workdir / "candidate", problem.link_flags, isolation=config.sandbox)
        if not build.ok or build.binary is None:
            control = assemble(base_asm, workdir / "control", isolation=config.sandbox)
            if not control.ok:  # the baseline fails too (disk full, ...): not the candidate's
                return Verdict(
                    problem.name,
                    Status.INFRA_ERROR,
                    context=context,
                    message=f"the toolchain failed on the baseline too: {control.log}",
                )
            return Verdict(
                problem.name,
                Status.COMPILE_ERROR,
                message=build.log,
                identical_to_baseline=identical,
                context=context,
            )
        try:
            return _run_and_time(problem, base_bin, build.binary, identical, config, context)
        except InfraError as e:
            return Verdict(problem.name, Status.INFRA_ERROR, message=str(e), context=context)


def _run_and_time(
    problem: Problem,
    base_bin: Path,
    cand_bin: Path,
    identical: bool,
    config: EvalConfig,
    context: dict,
) -> Verdict:
    unseen = unseen_tests(problem, generate=config.time)  # generated ones only to time
    inputs = [
        (t.name, t.read_input(), expected_output(t.expected, problem.compare))
        for t in problem.tests  # hidden tests too: every test decides correctness
    ] + list(unseen.generated_tests)  # and the generated ones
    hidden = frozenset(t.name for t in problem.tests if t.hidden) | unseen.names
    meter = Meter(config.meter)
    box = Sandbox(
        meter.binaries(base_bin, cand_bin),
        config.limits,
        isolation=config.sandbox,
        exit_code=problem.exit_code,
    )
    try:
        results, cpu = _check_all(box, inputs, config, hidden)
        failed = [r for r in results if r.status is not Status.OK]
        if failed:
            status = min((r.status for r in failed), key=_SEVERITY.index)
            return Verdict(
                problem.name,
                status,
                tuple(results),
                identical_to_baseline=identical,
                message=f"{len(failed)}/{len(results)} tests failed; first: {failed[0].name}: {failed[0].detail}",
                context=context,
                cpu_seconds_spent=cpu,
            )
        if not config.time:
            return Verdict(
                problem.name,
                Status.OK,
                tuple(results),
                identical_to_baseline=identical,
                context=context,
                cpu_seconds_spent=cpu,
            )
        context = {**context, "timing": unseen.why}
        if not unseen.tests:  # nothing the model never saw: no speedup to measure
            return Verdict(
                problem.name,
                Status.OK,
                tuple(_not_timed(r) for r in results),
                identical_to_baseline=identical,
                message=unseen.why,
                context=context,
                cpu_seconds_spent=cpu,
            )
        timed_inputs = [t for t in inputs if t[0] in unseen.names]
        with timing_slot():
            comparison = meter.compare(box, timed_inputs, baseline_digest=base_bin.name)
    except InfraError as e:  # SandboxLost too; the candidate has run in this sandbox
        box.close()
        return _blame(problem, base_bin, inputs, config, e, identical, context, cpu, hidden)
    finally:
        box.close()
    if comparison.mismatch and box.slept("candidate"):  # stopped for sleeping while timed
        why = (
            "the candidate slept while it was timed (a run's wall time is bounded by its CPU time)"
        )
        return Verdict(
            problem.name,
            Status.TIMEOUT,
            tuple(results),
            identical_to_baseline=identical,
            message=why,
            context=context,
            cpu_seconds_spent=cpu + comparison.cpu_seconds,
        )
    return _timed_verdict(problem, results, comparison, identical, context, cpu, hidden)


def _blame(
    problem: Problem,
    base_bin: Path,
    inputs,
    config: EvalConfig,
    error: InfraError,
    identical: bool,
    context: dict,
    cpu: float,
    hidden: frozenset[str] = frozenset(),
) -> Verdict:
    """The baseline failed (or the supervisor was lost) in a sandbox that has run the
    candidate: the candidate's fault, unless the baseline also fails in a fresh sandbox
    that never ran it; only then an infrastructure error."""
    fresh = baseline_fails_alone(
        base_bin, inputs, config, exit_code=problem.exit_code, hidden=hidden
    )
    why = _hidden_safe(str(error), hidden)
    if fresh:
        return Verdict(
            problem.name,
            Status.INFRA_ERROR,
            context=context,
            message=f"{why}; the baseline fails in a fresh sandbox that never ran "
            f"the candidate too ({fresh}): not the candidate's fault",
        )
    return Verdict(
        problem.name,
        Status.RUNTIME_ERROR,
        identical_to_baseline=identical,
        context=context,
        cpu_seconds_spent=cpu,
        message=f"the baseline failed after the candidate ran in the same sandbox ({why}); "
        "it passes every test in a fresh sandbox that never ran the candidate: "
        "the candidate broke its sandbox",
    )


def baseline_fails_alone(
    base_bin: Path,
    inputs,
    config: EvalConfig,
    rounds: int = 2,
    exit_code: int = 0,
    hidden: frozenset[str] = frozenset(),
) -> str | None:
    """Why the baseline fails, run ``rounds`` times on every test in a fresh sandbox that
    holds nothing else (None: it passes; on a ``hidden`` test, only that it failed)."""
    try:
        with Sandbox(
            {"baseline": base_bin},
            config.limits,
            isolation=config.sandbox,
            exit_code=exit_code,
        ) as box:
            for _ in range(rounds):
                for name, data, expected in inputs:
                    run = box.run("baseline", data)
                    if not run.clean_exit or run.stdout != expected:
                        why = run.describe() if not run.clean_exit else "a different output"
                        return f"test {name}: {'it failed' if name in hidden else why}"
    except InfraError as e:
        return str(e)
    return None


def _check_all(
    box: Sandbox, inputs, config: EvalConfig, hidden: frozenset[str] = frozenset()
) -> tuple[list[TestResult], float]:
    """Run the candidate on every test. After ``max_timeouts`` timeouts, or once the
    candidate has brought its supervisor down, the remaining tests are not run. A
    ``hidden`` test's result names its status only (``_hidden_result``)."""
    results: list[TestResult] = []
    cpu, timeouts = 0.0, 0
    stopped: TestResult | None = None
    for name, data, expected in inputs:
        if stopped:
            results.append(
                TestResult(
                    name, stopped.status, f"not run after {stopped.name} failed: {stopped.status}"
                )
            )
            continue
        try:
            run = box.run("candidate", data)
        except SandboxLost as e:  # the candidate brought its supervisor down: its failure
            stopped = TestResult(name, Status.RUNTIME_ERROR, f"sandbox supervisor lost: {e}")
            results.append(stopped)
            continue
        cpu += run.cpu_seconds
        result = _judge(name, run, expected)
        if name in hidden:
            result = _hidden_result(result)
        timeouts += result.status is Status.TIMEOUT
        if timeouts >= config.max_timeouts:
            stopped = result
        results.append(result)
    return results, cpu


def _judge(name: str, run: RunResult, expected: bytes) -> TestResult:
    if not run.exited_as_expected:
        return TestResult(
            name, _OUTCOME_STATUS[run.outcome], run.describe(), candidate_seconds=run.cpu_seconds
        )
    if run.leftover:
        return TestResult(
            name, Status.RUNTIME_ERROR, run.describe(), candidate_seconds=run.cpu_seconds
        )
    if not outputs_match(run.stdout, expected):
        return TestResult(
            name,
            Status.WRONG_OUTPUT,
            _diff_hint(run.stdout, expected),
            candidate_seconds=run.cpu_seconds,
        )
    return TestResult(name, Status.OK, candidate_seconds=run.cpu_seconds)


HIDDEN_DETAIL = "a hidden test: only its status is shown"
NOT_TIMED = "visible: not timed (the model may have seen its input)"


def _not_timed(result: TestResult) -> TestResult:
    """A passing test the speedup is not measured on: a visible one."""
    return TestResult(
        result.name, result.status, NOT_TIMED, candidate_seconds=result.candidate_seconds
    )


def _hidden_result(result: TestResult) -> TestResult:
    """What a verdict may say of a hidden test that failed: its name and status, never
    its input, expected output or what the candidate printed (or its exit code, signal
    or time: all of them the candidate's to choose)."""
    if result.status is Status.OK:
        return result
    return TestResult(result.name, result.status, HIDDEN_DETAIL)


def _hidden_safe(message: str, hidden: frozenset[str]) -> str:
    """``message`` if it names no hidden test; else cut after the first hidden test's
    name (what followed may describe its data)."""
    spots = [(message.find(f"test {n}"), n) for n in hidden if f"test {n}" in message]
    if not spots:
        return message
    at, name = min(spots)
    return f"{message[: at + len(name) + 5]} ({HIDDEN_DETAIL})"


def _diff_hint(actual: bytes, expected: bytes) -> str:
    """What differs, in words: line endings, the final newline, or the first line."""
    if actual.replace(b"\r\n", b"\n") == expected.replace(b"\r\n", b"\n"):
        got, want = ("CRLF (\\r\\n)" if b"\r\n" in x else "LF (\\n)" for x in (actual, expected))
        return f"line endings differ: expected {want} line endings, got {got}"
    if actual.rstrip(b"\n") == expected.rstrip(b"\n"):
        return f"final newlines differ: expected {expected[-3:]!r} at the end, got {actual[-3:]!r}"
    a, e = actual.split(b"\n"), expected.split(b"\n")
    for i, (x, y) in enumerate(zip(a, e, strict=False)):
        if x != y:
            return f"line {i + 1}: expected {y[:80]!r}, got {x[:80]!r}"
    more = "more" if len(a) > len(e) else "fewer"
    return f"expected {len(e)} lines, got {len(a)} ({more} lines than expected)"


def _timed_verdict(
    problem: Problem,
    results: list[TestResult],
    cmp: Comparison,
    identical: bool,
    context: dict,
    cpu: float,
    hidden: frozenset[str] = frozenset(),
) -> Verdict:
    cpu_total = cpu + cmp.cpu_seconds
    if cmp.mismatch:
        mismatch = (
            f"candidate output changed on test {cmp.mismatch_test} during timing ({HIDDEN_DETAIL})"
            if cmp.mismatch_test in hidden
            else cmp.mismatch
        )
        failed = [
            TestResult(r.name, Status.WRONG_OUTPUT, mismatch) if r.name == cmp.mismatch_test else r
            for r in results
        ]
        return Verdict(
            problem.name,
            Status.WRONG_OUTPUT,
            tuple(failed),
            identical_to_baseline=identical,
            message=mismatch,
            context=context,
            cpu_seconds_spent=cpu_total,
        )
    by_name = {t.name: t for t in cmp.tests}
    timed_results = []
    for r in results:
        t = by_name.get(r.name)
        if t is None:  # a visible test: it decides correctness, never the speedup
            timed_results.append(_not_timed(r))
            continue
        timed_results.append(
            TestResult(
                r.name,
                Status.OK,
                "" if t.timed else "too short to time: not in the aggregate",
                speedup=t.speedup,
                speedup_ci=cmp.per_test_ci.get(r.name),
                baseline_seconds=float(min(t.base_cpu)),
                candidate_seconds=float(min(t.cand_cpu)),
                baseline_wall_seconds=float(min(t.base_wall)),
                candidate_wall_seconds=float(min(t.cand_wall)),
                pairs=len(t.base_cpu),
                timed=t.timed,
                baseline_samples=t.base_cpu,
                candidate_samples=t.cand_cpu,
                sample_rounds=t.rounds,
            )
        )
    ctx = {
        **context,
        "pairs": sum(t.pairs for t in timed_results),
        "measure": "cpu time (user+sys), wait4",
    }
    return Verdict(
        problem.name,
        Status.OK,
        tuple(timed_results),
        speedup=cmp.speedup,
        paper_speedup=cmp.paper_speedup,
        identical_to_baseline=identical,
        message=cmp.note,
        context=ctx,
        cpu_seconds_spent=cpu_total,
    )


@contextmanager
def timing_slot():
    """Serialise timing across processes on this machine (``SUPERCODER_TIMING_SLOTS``
    concurrent slots, default 1), so parallel verification does not add noise."""
    slots = max(1, int(os.environ.get("SUPERCODER_TIMING_SLOTS", "1")))
    lock_dir = cache_dir() / "locks"
    lock_dir.mkdir(parents=True, exist_ok=True)
    while True:
        for i in range(slots):
            fd = os.open(lock_dir / f"timing-{i}.lock", os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
            return
        time.sleep(0.01)
