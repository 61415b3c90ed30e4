"""The verified evaluator: assemble, run every test in the sandbox, compare, time.

Two stages, so a batch can run them apart (the verification service's cascade):
``check_candidate`` builds the candidate and runs every test (hidden ones too) in a
sandbox of its own, holding no timing slot, and returns an ``Untimed`` (its verdict,
and its executable when it passed); ``time_group`` times correct candidates of one
problem together (``Meter.compare_group``) in one sandbox bound to a timing slot's
core. ``evaluate`` is the two in a row for one candidate.

``evaluate(problem, candidate)`` never raises for a bad candidate: every candidate
failure is a ``Status`` in the returned ``Verdict``. Hidden data never leaves the
evaluator: a verdict reports the visible tests one by one (they may be quoted) and the
tests the model never saw (hidden and generated) together (``UnseenResult``): how many
and one status, never which of them failed, their input, expected output, what the
candidate printed (stdout, stderr, exit code, signal) or how long it took on one of them
(a per-test status of a secret input is an oracle the candidate can encode bits in).
Speedups are measured only on inputs nobody saw or can predict (``verify/unseen.py``:
drawn afresh for every timing session with a new secret seed, judged by the meter's
output check on every timed run). A broken machine (no sandbox,
supervisor lost while running the baseline) gives ``Status.INFRA_ERROR``, which
callers retry or drop and never score as wrong. A broken *problem* (C that does not
compile, baseline that fails its own tests) raises ``UserError``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from supercoder.analysis.core import tables_added
from supercoder.codec import decode
from supercoder.errors import InfraError, printable
from supercoder.paths import temp_prefix
from supercoder.problems.outputs import expected_output, outputs_match, problem_mode
from supercoder.sandbox.box import (
    Limits,
    RunResult,
    Sandbox,
    Sandboxes,
    SandboxLost,
    isolation_status,
)
from supercoder.sandbox.elf import same_run_image
from supercoder.timing.meter import Comparison, Meter, MeterConfig
from supercoder.timing.slots import timing_slot  # noqa: F401  (re-exported)
from supercoder.toolchain.baseline import (
    baseline_asm,
    baseline_binary,
    carried_baseline_note,
    unit_asms,
)
from supercoder.toolchain.gcc import assemble, machine_context, oversized
from supercoder.toolchain.isa import DEFAULT_TARGET, Target, sigill_note
from supercoder.toolchain.sections import DATA_GROWTH_BYTES, data_bytes
from supercoder.types import (
    Candidate,
    DataSize,
    PairedSamples,
    Problem,
    Provenance,
    Status,
    TestResult,
    UnseenResult,
    Verdict,
    VerdictContext,
    machine_load,
)
from supercoder.verify.unseen import Unseen, unseen_tests


@dataclass(frozen=True)
class CheckConfig:
    """How ``evaluate`` checks a candidate.

    Fields:
        sandbox: run in the sandbox (False only on the user's explicit
            ``--unsafe-no-sandbox``).
        time: measure the speedup of a correct candidate (False: correctness only).
        limits: the sandbox's limits per run (CPU, wall, memory, output, ...).
        meter: how the speedup is measured (``MeterConfig``).
        max_timeouts: tests that time out before the remaining ones are not run.
        target: the CPUs the candidate must run on (``toolchain/isa.py``): ``native``
            (this CPU) or an x86-64 level, whose assembler refuses anything beyond it.
    """

    sandbox: bool = True
    time: bool = True
    limits: Limits = field(default_factory=Limits)
    meter: MeterConfig = field(default_factory=MeterConfig)
    max_timeouts: int = 2
    target: Target = DEFAULT_TARGET


def check_config(
    *,
    sandbox: bool = True,
    time: bool = True,
    target: Target | str = DEFAULT_TARGET,
    cpu_limit: float | None = None,
    memory_mb: int | None = None,
    meter: MeterConfig | None = None,
) -> CheckConfig:
    """The one place option values become a ``CheckConfig`` (every command, the
    verification server, the run's verifier and the training rewards make theirs here):
    ``cpu_limit`` CPU seconds per test run (its wall limit twice that plus 5 s),
    ``memory_mb`` per run, the default limits otherwise."""
    limits = Limits()
    if cpu_limit is not None:
        limits = replace(limits, cpu_seconds=cpu_limit, wall_seconds=2 * cpu_limit + 5)
    if memory_mb is not None:
        limits = replace(limits, memory_mb=memory_mb)
    return CheckConfig(
        sandbox=sandbox,
        time=time,
        limits=limits,
        meter=meter or MeterConfig(),
        target=Target(target),
    )


_OUTCOME_STATUS = {
    "timeout": Status.TIMEOUT,
    "output_limit": Status.OUTPUT_LIMIT,
    "memory_limit": Status.MEMORY_LIMIT,
    "signaled": Status.RUNTIME_ERROR,
    "exited": Status.RUNTIME_ERROR,
    "spawn_error": Status.RUNTIME_ERROR,
    "tampered": Status.RUNTIME_ERROR,
    "idle": Status.TIMEOUT,  # slept past its allowance: a run's wall time is bounded
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
    problem: Problem, candidate: Candidate | str | None, config: CheckConfig = CheckConfig()
) -> Verdict:
    """Check the candidate on every test, then (``config.time``) time it alone."""
    checked = check_candidate(problem, candidate, config)
    if not config.time or checked.binary is None:
        return checked.verdict
    return time_group(problem, [checked], config)[0]


@dataclass(frozen=True)
class Untimed:
    """A candidate checked on every test, not timed: its verdict (the failure, or OK
    with no speedup) and, when it passed every test, its executable."""

    verdict: Verdict
    binary: bytes | None = field(default=None, repr=False)


def for_problem(config: CheckConfig, problem: Problem) -> CheckConfig:
    """``config`` with the problem's own CPU limit per run where it declares a larger one
    (``problem.json`` ``cpu_limit``: ``problem init`` writes it when the reference takes
    most of the default on a test), its wall limit twice that plus 5 s: a baseline as slow
    as its reference never fails its own tests as a timeout, on any path."""
    own = problem.settings.cpu_limit
    if own is None or own <= config.limits.cpu_seconds:
        return config
    wall = max(config.limits.wall_seconds, 2 * own + 5)
    return replace(config, limits=replace(config.limits, cpu_seconds=own, wall_seconds=wall))


def check_candidate(
    problem: Problem, candidate: Candidate | str | None, config: CheckConfig = CheckConfig()
) -> Untimed:
    """The cascade's first stages: refuse (no answer), build, correctness on every test
    (hidden ones too), in a sandbox of its own and holding no timing slot. The verdict
    says whether the problem is ``memorizable`` (it reads no input)."""
    checked = _check_candidate(problem, candidate, for_problem(config, problem))
    return replace(checked, verdict=_marked(problem, checked.verdict))


def _marked(problem: Problem, verdict: Verdict) -> Verdict:
    if verdict.memorizable == problem.memorizable:
        return verdict
    return replace(verdict, memorizable=problem.memorizable)


def _check_candidate(
    problem: Problem, candidate: Candidate | str | None, config: CheckConfig
) -> Untimed:
    asm = candidate.asm if isinstance(candidate, Candidate) else candidate
    context = _context(config)
    if not asm or asm.isspace():  # (no copy of a huge text)
        return Untimed(
            Verdict(
                problem.name, Status.NO_ANSWER, message="no assembly in the answer", context=context
            )
        )
    base_asm = baseline_asm(problem)
    carried = carried_baseline_note(problem)  # a baseline.s that is not our build: said
    if carried:
        context = replace(context, provenance=replace(context.provenance, baseline=carried))
    too_big = oversized(asm, base_asm)  # before any work on its text: O(1)
    if too_big:
        return Untimed(
            Verdict(problem.name, Status.COMPILE_ERROR, message=too_big, context=context)
        )
    isolated, why = isolation_status()
    if config.sandbox and not isolated:
        return Untimed(Verdict(problem.name, Status.INFRA_ERROR, message=why, context=context))
    with tempfile.TemporaryDirectory(prefix=temp_prefix("eval")) as tmp:
        workdir = Path(tmp)
        # a problem whose baseline does not build is broken: UserError, before any check
        units = unit_asms(problem)  # the program's other translation units, linked beside
        base_bin = baseline_binary(base_asm, workdir, problem.link_flags, config.sandbox, units)
        build = assemble(
            asm,
            workdir / "candidate",
            problem.link_flags,
            isolation=config.sandbox,
            target=config.target,
            units=units,
        )
        if not build.ok or build.binary is None:
            control = assemble(
                base_asm,
                workdir / "control",
                problem.link_flags,
                isolation=config.sandbox,
                units=units,
            )
            if not control.ok:  # the baseline fails too (disk full, ...): not the candidate's
                return Untimed(
                    Verdict(
                        problem.name,
                        Status.INFRA_ERROR,
                        context=context,
                        message=f"the toolchain failed on the baseline too: {control.log}",
                    )
                )
            return Untimed(
                Verdict(
                    problem.name,
                    Status.COMPILE_ERROR,
                    message=build.log,
                    context=context,
                    isa=build.isa,
                )
            )
        # a copy of the baseline is the baseline's executable in every byte it loads and
        # runs (``sandbox.elf.run_image_digest``): a changed ``.ident`` or an added
        # ``.comment`` loads nothing; a normalized text could conflate two programs
        identical = same_run_image(build.binary.read_bytes(), base_bin.read_bytes())
        try:
            verdict = _check(problem, build.binary, identical, config, context)
            tables = (
                tuple(t.evidence() for t in tables_added(base_asm, asm))
                if (verdict.correct)
                else ()
            )
            verdict = replace(
                verdict,
                isa=build.isa,
                message=_sigill(verdict, build),
                data=DataSize(
                    data_bytes(base_bin), data_bytes(build.binary), DATA_GROWTH_BYTES, tables
                ),
            )
        except InfraError as e:
            return Untimed(
                Verdict(problem.name, Status.INFRA_ERROR, message=str(e), context=context)
            )
        binary = build.binary.read_bytes() if verdict.correct else None
    return Untimed(verdict, binary)


def _sigill(verdict: Verdict, build) -> str:
    """The verdict's message, with the extensions this CPU lacks when a (visible) test
    died of an illegal instruction."""
    if not any("SIGILL" in t.detail for t in verdict.tests):
        return verdict.message
    return f"{verdict.message}; SIGILL: {sigill_note(build.isa)}"


def _context(config: CheckConfig) -> VerdictContext:
    """A new verdict's provenance: the machine, the meter's protocol, floor and margin,
    the sandbox and the target."""
    provenance = {
        **machine_context(),
        **Meter(config.meter).context(),
        "sandbox": "bubblewrap" if config.sandbox else "none (unsafe)",
        "target": str(config.target),
    }
    return VerdictContext(provenance=decode(Provenance, provenance))


def _inputs(problem: Problem, unseen: Unseen) -> list[tuple[str, bytes, bytes]]:
    """Every test (hidden ones too: every test decides correctness): the visible ones
    first, then the hidden and the generated ones the speedup may be measured on (so a
    visible test is never "not run" because a test the model never saw failed first)."""
    tests = sorted(problem.tests, key=lambda t: t.hidden)
    return [
        (t.name, t.run_input(), expected_output(t.expected, problem_mode(problem.settings)))
        for t in tests
    ] + list(unseen.generated_tests)


def _hidden(problem: Problem, unseen: Unseen) -> frozenset[str]:
    """The tests whose data a verdict never quotes: hidden and drawn ones."""
    return frozenset(t.name for t in problem.tests if t.hidden) | unseen.secret_names


def _check(
    problem: Problem, cand_bin: Path, identical: bool, config: CheckConfig, context: VerdictContext
) -> Verdict:
    unseen = unseen_tests(problem, generate=False)  # timed inputs are drawn when timing
    hidden = _hidden(problem, unseen)
    with Sandbox(
        {"candidate": cand_bin},
        config.limits,
        isolation=config.sandbox,
        exit_code=problem.exit_code,
    ) as box:
        results, cpu = _check_all(box, _inputs(problem, unseen), config, hidden)
    visible = tuple(r for r in results if r.name not in hidden)
    together = unseen_result([r.status for r in results if r.name in hidden])
    failed = [r for r in visible if r.status is not Status.OK]
    statuses = [r.status for r in failed]
    if together is not None and not together.passed:
        statuses.append(together.status)
    return Verdict(
        problem.name,
        min(statuses, key=_SEVERITY.index) if statuses else Status.OK,
        visible,
        identical_to_baseline=identical,
        message=_failure_message(failed, len(visible), together, config.limits),
        context=context,
        cpu_seconds_spent=cpu,
        unseen=together,
    )


def unseen_result(statuses: Sequence[Status]) -> UnseenResult | None:
    """The tests the model never saw, together: how many, and ``ok`` or the most severe
    failure class among them (None when there were none)."""
    if not statuses:
        return None
    failed = [s for s in statuses if s is not Status.OK]
    status = min(failed, key=_SEVERITY.index) if failed else Status.OK
    return UnseenResult(len(statuses), status)


UNSEEN_NAME = "the tests the model never saw"
TIME_LIMIT = "time limit exceeded"  # how RunResult.describe begins for a timeout
STOPPED = ("timeout", "idle")  # run outcomes that are a candidate's timeout
# sandbox instances a timing session spreads its runs over (``Sandboxes``): what one
# instance fixes varies within the check, as it would between checks
INSTANCES = 2


def _failure_message(
    failed: list[TestResult],
    visible: int,
    unseen: UnseenResult | None,
    limits: Limits | None = None,
) -> str:
    """Which visible tests failed (the first one named, with how long it ran against its
    limit when it timed out); of the unseen ones only that they failed together, and
    how (a timeout: that one ran past the limit, never which or for how long)."""
    parts = []
    if failed:
        first = failed[0]
        parts.append(
            f"{len(failed)}/{visible} visible tests failed; first: {first.name}: {first.detail}"
        )
    if unseen is not None and not unseen.passed:
        past = (
            f"; one ran past the {limits.cpu_seconds:g}s cpu / {limits.wall_seconds:g}s wall limit"
            if unseen.status is Status.TIMEOUT and limits is not None
            else ""
        )
        parts.append(
            f"{UNSEEN_NAME} ({unseen.count}, together): {unseen.status}{past} "
            "(which of them, and their data, are never shown)"
        )
    return "; ".join(parts)


def time_group(problem: Problem, checked: Sequence[Untimed], config: CheckConfig) -> list[Verdict]:
    """Time correct candidates of one problem together (``Meter.compare_group``: one
    sandbox, one stream of baseline runs, in one timing slot pinned to its core); one
    verdict each, in order. A candidate that is not correct keeps its verdict. Should
    the baseline fail in the shared sandbox, each candidate is timed again alone, so
    the blame falls on the one that broke its sandbox (``_blame``)."""
    own = for_problem(config, problem)
    return [_marked(problem, v) for v in _time_group(problem, checked, own)]


def _time_group(problem: Problem, checked: Sequence[Untimed], config: CheckConfig) -> list[Verdict]:
    todo = [i for i, c in enumerate(checked) if c.binary is not None and c.verdict.correct]
    out = [c.verdict for c in checked]
    if not todo:
        return out
    unseen = unseen_tests(problem)
    if not unseen.tests:  # nothing the model never saw: no speedup to measure
        for i in todo:
            v = checked[i].verdict
            out[i] = replace(
                v,
                tests=tuple(_not_timed(r) for r in v.tests),
                message=unseen.why,
                context=v.context.measured(timing=unseen.why, **_domain(unseen)),
            )
        return out
    hidden = _hidden(problem, unseen)
    with tempfile.TemporaryDirectory(prefix=temp_prefix("time")) as tmp:
        workdir = Path(tmp)
        base_bin = baseline_binary(
            baseline_asm(problem), workdir, problem.link_flags, config.sandbox, unit_asms(problem)
        )
        paths = {}
        for k, i in enumerate(todo):
            path = workdir / f"cand{k}"
            path.write_bytes(checked[i].binary or b"")
            path.chmod(0o755)
            paths[f"candidate{k}" if len(todo) > 1 else "candidate"] = path
        inputs = _inputs(problem, unseen)
        timed_inputs = [x for x in inputs if x[0] in unseen.names]
        meter = Meter(_meter_config(config.meter, unseen))
        binaries = meter.group_binaries(base_bin, paths)
        try:
            with (
                timing_slot() as slot,
                Sandboxes(
                    lambda: Sandbox(
                        binaries,
                        config.limits,
                        isolation=config.sandbox,
                        exit_code=problem.exit_code,
                        cpus=slot.cpus,
                    ),
                    INSTANCES,
                ) as box,
            ):
                # drawn inputs are new every check: their timed set is decided here,
                # not cached beside the baseline
                digest = None if unseen.generated_tests else base_bin.name
                comparisons = meter.compare_group(box, timed_inputs, list(paths), digest)
                beyond = _time_beyond(box, unseen, config.meter, list(paths), comparisons)
                slept = {name: box.slept(name) for name in paths}
        except InfraError as e:  # SandboxLost too; the candidates have run in this sandbox
            if len(todo) > 1:
                for i in todo:
                    out[i] = time_group(problem, [checked[i]], config)[0]
                return out
            v = checked[todo[0]].verdict
            cpu = v.cpu_seconds_spent
            out[todo[0]] = _blame(
                problem,
                base_bin,
                inputs,
                config,
                e,
                v.identical_to_baseline,
                v.context,
                cpu,
                hidden,
            )
            return out
    drawn = len(unseen.generated_tests) + len(unseen.beyond)
    load = machine_load()  # the load it was timed under, read as the timing ends
    for i, name, cmp in zip(todo, paths, comparisons, strict=True):
        v = checked[i].verdict
        context = v.context.measured(
            timing=unseen.why, timed_inputs=unseen.source, load=load, **_domain(unseen)
        )
        if cmp.capped:  # a long program's rounds were held down: its timing line says so
            context = context.measured(timing=f"{unseen.why}; {cmp.capped}")
        past = beyond.get(name)
        if past is not None and not cmp.mismatch:
            if past.mismatch:  # wrong (or stopped) on a draw past the cut: that decides
                cmp = past
            else:
                context = context.measured(cut=unseen.cut, beyond_cut=past.speedup)
                cmp = replace(cmp, cpu_seconds=cmp.cpu_seconds + past.cpu_seconds)
        together = v.unseen  # the hidden tests, and now the drawn ones too
        if drawn:
            together = (
                UnseenResult(drawn, Status.OK)
                if together is None
                else replace(together, count=together.count + drawn)
            )
        # stopped for sleeping while it was timed: the run that ended it says so (the
        # sandbox's allowance may have grown again since, by the baseline's own blocking)
        if cmp.mismatch and (cmp.mismatch_outcome == "idle" or slept[name]):
            out[i] = replace(
                v,
                status=Status.TIMEOUT,
                message="the candidate slept while it was timed "
                "(a run's wall time is bounded by its CPU time)",
                context=context,
                cpu_seconds_spent=v.cpu_seconds_spent + cmp.cpu_seconds,
            )
            continue
        out[i] = _timed_verdict(
            problem,
            list(v.tests),
            cmp,
            v.identical_to_baseline,
            context,
            v.cpu_seconds_spent + unseen.cpu_seconds / len(todo),
            hidden,
            together,
            config.meter.min_test_seconds,
            unseen.secret_names,
            _distinct(cmp, timed_inputs),
        )
    for i in todo:  # the timed verdict is new: it keeps what the build found
        out[i] = replace(out[i], isa=checked[i].verdict.isa, data=checked[i].verdict.data)
    return out


# pairs each draw past the cut is timed with (baseline and candidate, one a round): with
# the reference's run on it, a check costs at most about a fifth more
# (``benchmarks/beyond_cut.py``)
BEYOND_PAIRS = 2


def _time_beyond(
    box: Sandboxes,
    unseen: Unseen,
    meter: MeterConfig,
    names: list[str],
    comparisons: Sequence[Comparison],
) -> dict[str, Comparison]:
    """The draws past the cut (``Unseen.beyond``), timed in the sandbox that has just
    timed the main draws, ``BEYOND_PAIRS`` pairs each, for every candidate still
    correct: their own stratum, by candidate name."""
    active = [n for n, c in zip(names, comparisons, strict=True) if not c.mismatch]
    if not unseen.beyond or not active:
        return {}
    config = replace(
        meter,
        drawn_inputs=True,
        min_pairs=BEYOND_PAIRS,
        max_pairs=BEYOND_PAIRS,
        max_repeats=1,
        stop_when_not_faster=False,
    )
    found = Meter(config).compare_group(box, list(unseen.beyond), active, None, warm=False)
    return dict(zip(active, found, strict=True))


def _distinct(cmp: Comparison, inputs: Sequence[tuple[str, bytes, bytes]]) -> int:
    """How many distinct inputs the speedup was timed on (the meter's timed tests)."""
    data = {name: d for name, d, _ in inputs}
    return len({data[t.name] for t in cmp.tests if t.timed and t.name in data})


# CPU seconds the pairs of a check's timed tests may take (baseline and candidate, every
# round): long tests get fewer rounds (at least ``min_pairs``), not smaller draws
ROUND_BUDGET = 3.0


def _meter_config(meter: MeterConfig, unseen: Unseen) -> MeterConfig:
    """The meter for these timed tests: their rounds are held to ``ROUND_BUDGET``
    (``MeterConfig.round_budget``: priced from the baseline's first pass over them, a
    round running each once per side with its repeats; ``min_pairs`` rounds at least),
    whatever they are (drawn inputs, hidden tests, a memorizable problem's visible
    tests: a benchmark that runs for seconds), and the verdict's timing line says so
    when it held the rounds down. Drawn inputs say so."""
    if not meter.legacy and meter.round_budget is None:
        meter = replace(meter, round_budget=ROUND_BUDGET)
    if not unseen.generated_tests:
        return meter
    return replace(meter, drawn_inputs=True)


def _domain(unseen: Unseen) -> dict[str, str | tuple[str, ...]]:
    """The measurement's domain fields: the domain and source in one line, the sizes
    drawn, each source dropped with why."""
    return {
        "domain": f"{unseen.source}: {unseen.domain}" if unseen.domain else "",
        "timed_sizes": unseen.sizes,
        "dropped_sources": tuple(unseen.dropped),
    }


def _blame(
    problem: Problem,
    base_bin: Path,
    inputs,
    config: CheckConfig,
    error: InfraError,
    identical: bool,
    context: VerdictContext,
    cpu: float,
    hidden: frozenset[str] = frozenset(),
) -> Verdict:
    """The baseline failed (or the supervisor was lost) in a sandbox that has run the
    candidate: the candidate's fault, unless the baseline also fails in a fresh sandbox
    that never ran it, or the candidate runs the baseline's very image (a copy does
    nothing the baseline does not: a baseline that fails now and then fails it); only
    then an infrastructure error."""
    why = _hidden_safe(str(error), hidden)
    if identical:
        return Verdict(
            problem.name,
            Status.INFRA_ERROR,
            context=context,
            message=f"{why}; the candidate runs the baseline's own image, so the failure "
            "is the baseline's (its output or exit varies between runs now and then): not "
            "the candidate's fault",
        )
    fresh = baseline_fails_alone(
        base_bin, inputs, config, exit_code=problem.exit_code, hidden=hidden
    )
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
    config: CheckConfig,
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
                    if not run.clean_exit or not outputs_match(run.stdout, expected):
                        if name in hidden:
                            return f"it failed on one of {UNSEEN_NAME}"
                        why = run.describe() if not run.clean_exit else "a different output"
                        return f"test {name}: {why}"
    except InfraError as e:
        return str(e)
    return None


def _check_all(
    box: Sandbox, inputs, config: CheckConfig, hidden: frozenset[str] = frozenset()
) -> tuple[list[TestResult], float]:
    """Run the candidate on every test. After ``max_timeouts`` timeouts, or once the
    candidate has brought its supervisor down, the remaining tests are not run. A
    ``hidden`` test's result names its status only (``_hidden_result``)."""
    results: list[TestResult] = []
    cpu, timeouts = 0.0, 0
    stopped: TestResult | None = None
    for name, data, expected in inputs:
        if stopped:
            after = "an earlier test" if stopped.name in hidden else stopped.name
            results.append(
                TestResult(name, stopped.status, f"not run after {after} failed: {stopped.status}")
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


HIDDEN_DETAIL = "a test the model never saw: only the status of all of them together is shown"
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
    """``message`` if it names no hidden test; else cut before the first hidden test's
    name (it, and what followed, may describe its data)."""
    spots = [message.find(f"test {n}") for n in hidden if f"test {n}" in message]
    if not spots:
        return message
    return f"{message[: min(spots)]}on one of {UNSEEN_NAME} ({HIDDEN_DETAIL})"


def _text(data: bytes) -> str:
    """Output bytes as the text they are (``1``, not ``b'1'``): newlines, tabs and
    control characters as escapes, bytes that are not UTF-8 as ``\\xNN``."""
    text = data.decode("utf-8", "backslashreplace")
    text = text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return printable(text, newlines=False)


def _diff_hint(actual: bytes, expected: bytes) -> str:
    """What differs, in words: line endings, the final newline, or the first line."""
    if actual.replace(b"\r\n", b"\n") == expected.replace(b"\r\n", b"\n"):
        got, want = ("CRLF (\\r\\n)" if b"\r\n" in x else "LF (\\n)" for x in (actual, expected))
        return f"line endings differ: expected {want} line endings, got {got}"
    if actual.rstrip(b"\n") == expected.rstrip(b"\n"):
        return (
            f"final newlines differ: expected '{_text(expected[-3:])}' at the end, "
            f"got '{_text(actual[-3:])}'"
        )
    a, e = actual.split(b"\n"), expected.split(b"\n")
    for i, (x, y) in enumerate(zip(a, e, strict=False)):
        if x != y:
            return f"line {i + 1}: expected '{_text(y[:80])}', got '{_text(x[:80])}'"
    more = "more" if len(a) > len(e) else "fewer"
    return f"expected {len(e)} lines, got {len(a)} ({more} lines than expected)"


def _timed_verdict(
    problem: Problem,
    results: list[TestResult],
    cmp: Comparison,
    identical: bool,
    context: VerdictContext,
    cpu: float,
    hidden: frozenset[str] = frozenset(),
    unseen: UnseenResult | None = None,
    min_test_seconds: float = MeterConfig().min_test_seconds,
    drawn: frozenset[str] = frozenset(),
    distinct: int = 0,
) -> Verdict:
    """A correct candidate's verdict once timed: visible tests one by one (timed only
    where the problem times its visible tests), the unseen ones together (``UnseenResult``:
    aggregate times, never one test's)."""
    cpu_total = cpu + cmp.cpu_seconds
    if cmp.mismatch:
        secret = cmp.mismatch_test in hidden
        # a run stopped at its limit (its outcome, else the meter's words for it:
        # RunResult.describe) is a timeout, not a wrong output, on every path; on a
        # drawn input only that it ran past the limit
        late = cmp.mismatch_outcome in STOPPED or f"during timing: {TIME_LIMIT}" in cmp.mismatch
        status = Status.TIMEOUT if late else Status.WRONG_OUTPUT
        if secret and late:
            mismatch = (
                f"the candidate ran past its time limit during timing on a drawn input "
                f"(one of {UNSEEN_NAME}; {HIDDEN_DETAIL})"
            )
        elif secret:
            mismatch = (
                f"candidate output changed during timing on one of {UNSEEN_NAME} ({HIDDEN_DETAIL})"
            )
        else:
            mismatch = cmp.mismatch
        failed = [
            TestResult(r.name, status, mismatch) if r.name == cmp.mismatch_test else r
            for r in results
        ]
        if secret and unseen is not None:
            unseen = replace(unseen, status=status)
        return Verdict(
            problem.name,
            status,
            tuple(failed),
            identical_to_baseline=identical,
            message=mismatch,
            context=context,
            cpu_seconds_spent=cpu_total,
            unseen=unseen,
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
    secret = [t for t in cmp.tests if t.name in hidden]
    if unseen is not None and secret:
        timed = [t for t in secret if t.timed]
        unseen = replace(
            unseen,
            timed=len(timed),
            baseline_seconds=float(sum(min(t.base_cpu) for t in timed)),
            candidate_seconds=float(sum(min(t.cand_cpu) for t in timed)),
            # the meter times the tests long enough to time, or all of them when none is
            long_enough=len(timed) < len(secret)
            or max(min(t.base_cpu) for t in secret) >= min_test_seconds,
        )
    ctx = context.measured(
        pairs=sum(len(t.base_cpu) for t in cmp.tests),
        measure="cpu time (user+sys), wait4",
        distinct_inputs=distinct,
        # the drawn inputs' raw pairs, unnamed; a fixed hidden test's are never kept
        samples=tuple(
            PairedSamples(tuple(t.base_cpu), tuple(t.cand_cpu), tuple(t.rounds))
            for t in cmp.tests
            if t.name in drawn
        ),
    )
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
        unseen=unseen,
    )
