"""The ``compiler`` model's budgeted search over builds, on the honest meter.

``search(problem, config)``:

1. **Build** the builds of ``builds.search_space`` in order (at most ``max_builds``),
   deduplicated by assembly digest (``toolchain.asm_digest``); a build identical to
   the ``-O3`` baseline is dropped.
2. **Screen** each distinct build in the sandbox: every visible test once (exact
   output, or it is out) and a cheap timing against the baseline's best of two runs.
   Then the best screened builds are crossed (``builds.combine``) and screened too.
3. **Successive halving**: the best ``keep`` survivors are compared with the baseline
   by ``Meter.compare`` (paired, ABBA, output re-checked), 2 pairs per timed test in
   the first rung, doubling each rung; samples accumulate; the better half goes on.
4. **Fresh re-measure**: the ``finalists`` are measured again from scratch (a new
   sandbox, a new seed, the meter's own stopping rule). The fastest one whose fresh
   speedup is *significantly faster* (``Speedup.significantly_faster``) is chosen;
   if none is, the baseline is (the model never returns a slower program).

Only visible tests are used (hidden ones judge the answer later). ``budget`` is CPU
seconds per problem: compile time (wall, a single-threaded upper bound) plus the CPU
time of every sandboxed run. Building and screening stop at ``SCREEN_SHARE`` of it,
halving at ``HALVING_SHARE``; the fresh re-measure takes what is left (at least
``MIN_FINAL_SECONDS`` per finalist, so a choice is always measured).
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from supercoder.build.baseline import baseline_binary
from supercoder.build.flagspace import Build, Tools, combine, find_tools, search_space
from supercoder.build.pgo import build_asm, training_inputs
from supercoder.build.toolchain import asm_digest, assemble
from supercoder.errors import UserError
from supercoder.models.trials import (
    DEFAULT_BUDGET,
    FAILED,
    HALVING_SHARE,
    MIN_FINAL_SECONDS,
    MIN_TEST_SECONDS,
    SCREEN_SHARE,
    Budget,
    SearchConfig,
    SearchResult,
    Trial,
)
from supercoder.problems.outputs import expected_output, outputs_match
from supercoder.sandbox.box import Limits, Sandbox
from supercoder.timing.meter import Meter, MeterConfig
from supercoder.types import Problem

# --- the search ----------------------------------------------------------------------


@dataclass
class _Job:
    """One problem's search: what every stage needs."""

    problem: Problem
    config: SearchConfig
    tools: Tools
    budget: Budget
    work: Path
    tests: list[tuple[str, bytes, bytes]]
    inputs: list[bytes]
    seen: dict[str, str]
    base_bin: Path | None = None
    base_times: dict[str, float] = field(default_factory=dict)

    def link(self, asm: str, name: str) -> Path | None:
        start = time.perf_counter()
        built = assemble(asm, self.work / name, self.problem.link_flags, target=self.config.target)
        self.budget.charge(time.perf_counter() - start)
        return built.binary if built.ok else None

    def sandbox(self, binaries: dict[str, Path]) -> Sandbox:
        base = {"baseline": self.base_bin} if self.base_bin else {}
        return Sandbox(
            {**base, **binaries},
            self.config.limits,
            isolation=self.config.isolation,
            exit_code=self.problem.exit_code,
        )


def search(
    problem: Problem,
    baseline: str,
    config: SearchConfig | None = None,
    tools: Tools | None = None,
    builds: list[Build] | None = None,
) -> SearchResult:
    """See the module docstring. ``baseline`` is the problem's -O3 assembly (with its
    cflags); ``builds`` replaces the search space (and its crosses)."""
    config = config or SearchConfig()
    tools = tools or find_tools()
    tests = [
        (t.name, t.read_input(), expected_output(t.expected, problem.compare))
        for t in problem.visible_tests
    ]
    with tempfile.TemporaryDirectory(prefix="sc-search-") as tmp:
        job = _Job(
            problem,
            config,
            tools,
            Budget(config.budget),
            Path(tmp),
            tests,
            training_inputs(problem),
            {asm_digest(baseline): "baseline"},
        )
        job.base_bin = _baseline(job, baseline)
        space = (search_space(tools, config.target) if builds is None else builds)[
            : config.max_builds
        ]
        trials = _build_all(job, space, SCREEN_SHARE * 0.6)
        _screen(job, trials)
        best = [t.build for t in _ranked(trials, "screen")[:4] if (t.screen or 0) > 1.0]
        crosses = _build_all(
            job,
            combine(best, config.combos, config.target) if builds is None else [],
            SCREEN_SHARE + 0.1,
        )
        _screen(job, crosses)
        trials += crosses
        finalists = _halve(job, _ranked(trials, "screen")[: config.keep])
        chosen = _final(job, finalists)
    for t in trials:  # keep only the chosen program's text
        t.asm = t.asm if t is chosen else None
    note = "" if tests else "no visible tests: nothing could be checked or timed"
    return SearchResult(chosen, tuple(trials), tuple(tools.skipped()), job.budget.spent, note)


def _build_all(job: _Job, builds: list[Build], share: float) -> list[Trial]:
    out = []
    for b in builds:
        trial = Trial(b)
        out.append(trial)
        if not job.budget.within(share):
            trial.status = "unbuilt"
            continue
        start = time.perf_counter()
        asm = build_asm(
            b,
            job.problem.source,
            job.inputs,
            job.tools,
            job.config.isolation,
            job.problem.compile_flags,
            job.problem.link_flags,
        )
        job.budget.charge(time.perf_counter() - start)
        if asm is None:
            trial.status = "failed" if not b.pgo or job.inputs else "no_training_inputs"
            continue
        trial.digest = asm_digest(asm)
        if trial.digest in job.seen:
            trial.status, trial.detail = "duplicate", f"same assembly as {job.seen[trial.digest]}"
            continue
        job.seen[trial.digest] = b.label
        trial.status, trial.asm = "built", asm
    return out


def _ranked(trials: list[Trial], key: str) -> list[Trial]:
    ok = [t for t in trials if getattr(t, key) is not None and t.status not in FAILED]
    return sorted(ok, key=lambda t: -getattr(t, key))


# --- screening ----------------------------------------------------------------------


def _screen(job: _Job, trials: list[Trial]) -> None:
    """Correctness on every visible test + one timed run each, against the baseline's
    best-of-two CPU time per test (measured once per search)."""
    from supercoder.timing.slots import timing_slot

    todo = [t for t in trials if t.status == "built"]
    if not todo or job.base_bin is None or not job.tests:
        return
    for i, t in enumerate(todo):
        t.binary = job.link(t.asm or "", f"c{i}-{id(t)}")
        if t.binary is None:
            t.status = "compile_error"
    names = {f"c{i}": t for i, t in enumerate(todo) if t.binary is not None}
    box = job.sandbox({name: t.binary for name, t in names.items() if t.binary})
    try:
        if not job.base_times:
            with timing_slot():
                job.base_times = _baseline_times(box, job)
        for name, trial in names.items():
            if not job.budget.within(SCREEN_SHARE):
                trial.status = "unscreened"
                continue
            with timing_slot():
                _screen_one(job, box, name, trial)
    finally:
        box.close()


def _baseline_times(box: Sandbox, job: _Job) -> dict[str, float]:
    times = {}
    for name, data, _ in job.tests:
        runs = [box.run("baseline", data) for _ in range(2)]
        job.budget.charge(sum(r.cpu_seconds for r in runs))
        times[name] = max(min(r.cpu_seconds for r in runs), 1e-6)
    return times


def _screen_one(job: _Job, box: Sandbox, name: str, trial: Trial) -> None:
    lim, slow = job.config.limits, max(job.base_times.values())
    limits = Limits(
        cpu_seconds=min(lim.cpu_seconds, 3 * slow + 1.0),
        wall_seconds=min(lim.wall_seconds, 6 * slow + 2.0),
        memory_mb=lim.memory_mb,
        output_bytes=lim.output_bytes,
        processes=lim.processes,
    )
    long = [n for n, s in job.base_times.items() if s >= MIN_TEST_SECONDS] or list(job.base_times)
    logs = []
    for test, data, expected in job.tests:
        run = box.run(name, data, limits)
        job.budget.charge(run.cpu_seconds)
        if not (run.clean_exit and outputs_match(run.stdout, expected)):
            trial.status = "wrong_output" if run.clean_exit else _failure(run)
            trial.detail = (
                f"test {test}: {run.describe() if not run.clean_exit else 'different output'}"
            )
            return
        if test in long:
            logs.append(math.log(job.base_times[test]) - math.log(max(run.cpu_seconds, 1e-6)))
    trial.status, trial.screen = "screened", math.exp(sum(logs) / len(logs))


def _failure(run) -> str:
    return {
        "timeout": "timeout",
        "output_limit": "output_limit",
        "memory_limit": "memory_limit",
    }.get(run.outcome, "runtime_error")


# --- successive halving and the fresh re-measure ---------------------------------------


def _baseline(job: _Job, asm: str) -> Path | None:
    """The problem's cached baseline binary (``baseline.baseline_binary``, the one the
    evaluator uses; its name keys the cached timed-test set), None if it does not link."""
    try:
        return baseline_binary(asm, job.work, job.problem.link_flags)  # built like job.link
    except UserError:
        return None


def _halve(job: _Job, survivors: list[Trial]) -> list[Trial]:
    """Rungs of 2, 4, 8... pairs per timed test; the better half goes on each rung. A
    rung's trials are timed together (group timing: one session, one baseline stream)."""
    alive = [t for t in survivors if (t.screen or 0) > 0.9]
    pairs, rung = 2, 0
    while len(alive) > job.config.finalists and job.budget.within(HALVING_SHARE):
        cfg = MeterConfig(
            min_pairs=pairs,
            max_pairs=pairs,
            seed=job.config.seed + 100 * rung,
            max_cpu_seconds=max(job.budget.left / len(alive), 1.0),
        )
        for t, cmp in zip(alive, _compare(job, alive, cfg), strict=True):
            _record(job, t, cmp)
        measured = [t for t in alive if t.estimate is not None and t.status not in FAILED]
        measured.sort(key=lambda t: -(t.estimate or 0.0))
        winners = measured[: max(job.config.finalists, math.ceil(len(measured) / 2))]
        for t in alive:
            if t not in winners and t.status not in FAILED:
                t.status = "pruned"
        alive, pairs, rung = winners, pairs * 2, rung + 1
    return alive


def _record(job: _Job, trial: Trial, cmp) -> None:
    """One rung's measurement of ``trial``: its pairs join those of earlier rungs."""
    job.budget.charge(cmp.cpu_seconds if cmp else 0.0)
    if cmp is None or cmp.mismatch:
        trial.status, trial.detail = (
            "wrong_output",
            (cmp.mismatch or "" if cmp else "does not link"),
        )
        return
    for t in cmp.tests:
        if t.timed:
            trial.timings.setdefault(t.name, []).extend(t.log_ratios.tolist())
    medians = [float(np.median(r)) for r in trial.timings.values()]
    trial.estimate = math.exp(sum(medians) / len(medians)) if medians else None
    trial.pairs += sum(len(t.base_cpu) for t in cmp.tests)
    trial.status = "measured"


def _compare(job: _Job, trials: list[Trial], meter_cfg: MeterConfig) -> list:
    """A ``Comparison`` for each trial (None: it does not link), the trials timed
    together in one sandbox bound to a timing slot's core."""
    from supercoder.timing.slots import timing_slot

    out: list = [None] * len(trials)
    paths = {}
    for i, trial in enumerate(trials):
        cand = trial.binary or job.link(trial.asm or "", f"m{id(trial)}")
        if cand is not None:
            paths[f"c{i}"] = cand
    if not paths or job.base_bin is None:
        return out
    meter = Meter(meter_cfg)
    binaries = meter.group_binaries(job.base_bin, paths)
    with (
        timing_slot() as slot,
        Sandbox(binaries, job.config.limits, isolation=job.config.isolation, cpus=slot.cpus) as box,
    ):
        got = meter.compare_group(box, job.tests, list(paths), job.base_bin.name)
    for name, cmp in zip(paths, got, strict=True):
        out[int(name[1:])] = cmp
    return out


def _final(job: _Job, finalists: list[Trial]) -> Trial | None:
    """Re-measure the finalists from scratch, together in one fresh session; the fastest
    significantly faster one wins."""
    contenders = [t for t in finalists if (t.estimate or t.screen or 0) > 1.0]
    if not contenders:
        return None
    share = max(job.budget.left / len(contenders), MIN_FINAL_SECONDS)
    cfg = MeterConfig(seed=job.config.seed + 7919, max_cpu_seconds=share)
    for t, cmp in zip(contenders, _compare(job, contenders, cfg), strict=True):
        job.budget.charge(cmp.cpu_seconds if cmp else 0.0)
        if cmp is None or cmp.mismatch or cmp.speedup is None:
            t.status, t.detail = "wrong_output", (cmp.mismatch or "" if cmp else "does not link")
            continue
        t.fresh = cmp.speedup
        t.status = "faster" if cmp.speedup.significantly_faster else "not_significant"
    winners = [t for t in contenders if t.status == "faster"]
    chosen = max(winners, key=lambda t: t.fresh.value if t.fresh else 0.0, default=None)
    if chosen is not None:
        chosen.status = "chosen"
    return chosen


__all__ = ["DEFAULT_BUDGET", "SearchConfig", "SearchResult", "Trial", "search"]
