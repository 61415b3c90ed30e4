"""The build search's timed search (``search_builds``): every build judged by the
verification service like any other candidate, within a CPU budget.

1. **Build** the builds of ``flagspace.search_space`` in order (at most ``--samples``),
   deduplicated by the exact assembly text (``gcc.asm_digest``); a build identical to the
   ``-O3`` baseline is dropped.
2. **Screen** the distinct builds through the service, ``screen_group`` per call:
   every test (correctness, hidden tests too) and one round of timing on the timed
   inputs every candidate is timed on (``service.staged(rounds=1)``). The best
   screened builds are then crossed (``flagspace.combine``) and screened too.
3. **Successive halving**: the best ``keep`` survivors go through the service again
   with 2 rounds of timing, then 4, 8...; each rung's figure joins the earlier ones
   (pooled by pairs) and the better half goes on.
4. **Fresh re-measure**: the ``finalists`` are verified once more, with the service's
   own stop rule; the fastest one that is *significantly faster*
   (``Verdict.significantly_faster``) is the answer, else the baseline: the search
   never answers with a program it measured as slower. Like every strategy's answer,
   it is then re-checked afresh (``strategies.confirm_best``) before it counts.

``budget`` (``--budget``) is CPU seconds per problem, the checks after the search
included: compile time (wall, a single-threaded upper bound) plus what the service
reports each verdict cost. Once a screen's cost is known, ``AFTER_CHECKS`` screens of
it (at most ``RESERVE_MOST`` of the budget) are kept for the checks after the search
(the baseline's, the answer's fresh re-check: each runs every test once), and the
search's stages plan within the rest (``CpuBudget.search_total``): building and
screening stop at ``SCREEN_SHARE`` of it (a build is not started where the costliest
so far would not fit), halving at ``HALVING_SHARE``; the re-measure takes what is left
(at least ``MIN_FINAL_SECONDS`` per finalist). Each stage is planned before it spends: the first ``FIRST_SCREEN``
builds screened price one screen (``Job.screen_cost``), and later screens, halving
rungs and re-measures take only the builds the budget has room for (``_room``), so a
slow program (one check costing a large part of the budget) screens and re-measures
fewer builds instead of spending a multiple of its budget; the best is always
re-measured. The checks after the search (the baseline's, the fresh re-check) are
timed within what the budget left (``_after_search``). Builds the budget never reached
are said (``SearchResult.budget_note``: ``budget spent: 1 screened, not re-measured,
18 unscreened, 42 unbuilt; rerun with --budget N``), in the answer's header, its
``search`` record and what ``optimize``/``eval`` print.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from supercoder.runs.buildsearch.records import (
    FAILED,
    HALVING_SHARE,
    MIN_FINAL_SECONDS,
    SCREEN_SHARE,
    CpuBudget,
    SearchConfig,
    SearchResult,
    Trial,
)
from supercoder.runs.strategies import ServiceVerifier, make_verifier
from supercoder.toolchain.flagspace import Build, Tools, combine, find_tools, search_space
from supercoder.toolchain.gcc import asm_digest
from supercoder.toolchain.pgo import build_asm, training_inputs
from supercoder.types import Candidate, Problem, Verdict


@dataclass
class Job:
    """One problem's search: what every stage needs."""

    problem: Problem
    config: SearchConfig
    tools: Tools
    budget: CpuBudget
    verify: ServiceVerifier
    inputs: list[bytes]
    seen: dict[str, str]
    isolation: bool = True
    # CPU seconds one build's screen cost (correctness on every test and one round of
    # timing; the costliest seen): later stages are planned with it before they spend
    screen_cost: float | None = None


def search_builds(
    problem: Problem,
    baseline: str,
    config: SearchConfig | None = None,
    verify: ServiceVerifier | None = None,
    tools: Tools | None = None,
    builds: list[Build] | None = None,
) -> SearchResult:
    """Steps 1-4 of the module docstring. ``baseline`` is the problem's -O3 assembly
    (with its cflags); ``builds`` replaces the search space (and its crosses)."""
    config = config or SearchConfig()
    tools = tools or find_tools()
    service = verify or make_verifier()
    job = Job(
        problem,
        config,
        tools,
        CpuBudget(config.budget),
        service,
        training_inputs(problem),
        {asm_digest(baseline): "baseline"},
        service.config.eval.sandbox,
    )
    space = search_space(tools, config.target) if builds is None else builds
    space = space[: config.max_builds]
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
    return SearchResult(
        chosen,
        tuple(trials),
        tuple(tools.skipped()),
        job.budget.spent,
        budget=config.budget,
        screen_cost=job.screen_cost,
    )


def _build_all(job: Job, builds: list[Build], share: float) -> list[Trial]:
    """Each build compiled while the budget's ``share`` has room for one more (the
    costliest build so far: a PGO build trains on the visible tests, seconds each on a
    slow program), the first always."""
    out = []
    costliest = 0.0
    for b in builds:
        trial = Trial(b)
        out.append(trial)
        room = share * job.budget.search_total - job.budget.spent
        if room <= 0 or (out[:-1] and costliest > room):
            trial.status = "unbuilt"
            continue
        before = job.budget.spent
        asm = compile_build(job, b)
        costliest = max(costliest, job.budget.spent - before)
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


def compile_build(job: Job, build: Build) -> str | None:
    """The build's assembly, its compile time charged to the budget."""
    start = time.perf_counter()
    p = job.problem
    asm = build_asm(
        build,
        p.source,
        job.inputs,
        job.tools,
        job.isolation,
        p.compile_flags,
        p.link_flags,
        p.units,
    )
    job.budget.charge(time.perf_counter() - start)
    return asm


def _ranked(trials: list[Trial], key: str) -> list[Trial]:
    ok = [t for t in trials if getattr(t, key) is not None and t.status not in FAILED]
    return sorted(ok, key=lambda t: -getattr(t, key))


def _verify(job: Job, trials: Sequence[Trial], service: ServiceVerifier) -> list[Verdict]:
    """The service's verdict on each trial's program, its cost charged to the budget; a
    failure (wrong, crashed, too slow) is recorded on the trial."""
    verdicts: list[Verdict | None] = [None] * len(trials)
    for checked in service(job.problem, [Candidate(t.asm) for t in trials]):
        verdicts[checked.index] = checked.verdict
    out = []
    for trial, verdict in zip(trials, verdicts, strict=True):
        assert verdict is not None
        job.budget.charge(verdict.cpu_seconds_spent)
        trial.verdict = verdict
        if not verdict.correct:
            first = next((r for r in verdict.tests if r.status.value != "ok"), None)
            trial.status = verdict.status.value
            trial.detail = f"test {first.name}: {first.detail}" if first else verdict.message
        out.append(verdict)
    return out


# --- screening ----------------------------------------------------------------------


def _screen(job: Job, trials: list[Trial]) -> None:
    """Correctness on every test and one round of timing, ``screen_group`` builds per
    call of the service (one timing session), while the screening share lasts. The
    first call screens ``FIRST_SCREEN`` builds and measures what one costs
    (``Job.screen_cost``); each later call takes only the builds the share has left
    room for, so a program whose every check is long screens fewer builds instead of
    spending a multiple of its budget (the rest are ``unscreened``, and said)."""
    todo = [t for t in trials if t.status == "built"]
    size = max(job.config.screen_group, 1)
    cheap = job.verify.staged(rounds=1, group_size=size)
    k = 0
    while k < len(todo):
        n = min(size, FIRST_SCREEN) if job.screen_cost is None else _room(job, SCREEN_SHARE, 1)
        if n < 1 or not job.budget.within(SCREEN_SHARE):
            for t in todo[k:]:
                t.status = "unscreened"
            return
        group = todo[k : k + min(n, size)]
        k += len(group)
        verdicts = _verify(job, group, cheap)
        job.screen_cost = max(job.screen_cost or 0.0, *(v.cpu_seconds_spent for v in verdicts))
        job.budget.keep_for_after(job.screen_cost)
        for t, verdict in zip(group, verdicts, strict=True):
            if verdict.correct:
                t.status = "screened"
                t.screen = verdict.speedup.value if verdict.speedup else None


# builds screened by the first call of the service: enough to learn what a screen costs
FIRST_SCREEN = 2
# what one build costs in a later stage, in screens: a halving rung of r rounds about
# (1 + r) / 2 (the correctness pass is not repeated), the fresh re-measure
# (the service's own stop rule, 4 rounds at least) about
FINAL_SCREENS = 2.5


def _room(job: Job, share: float, screens: float) -> int:
    """How many builds the budget's ``share`` has room for, at ``screens`` screens each
    (unbounded before anything was screened)."""
    if not job.screen_cost:
        return 1 << 30
    left = share * job.budget.search_total - job.budget.spent
    return max(0, int(left // (screens * job.screen_cost)))


# --- successive halving and the fresh re-measure ---------------------------------------


def _halve(job: Job, survivors: list[Trial]) -> list[Trial]:
    """Rungs of 2, 4, 8... rounds of timing; the better half goes on each rung (a rung's
    builds in one call of the service: timed together, one baseline stream)."""
    alive = [t for t in survivors if (t.screen or 0) > 0.9]
    rounds = 2
    while len(alive) > job.config.finalists and job.budget.within(HALVING_SHARE):
        if _room(job, HALVING_SHARE, (1 + rounds) / 2) < len(alive):
            break  # the rung would not fit: the best screened go on as they stand
        rung = job.verify.staged(
            rounds=rounds, max_cpu_seconds=max(0.0, job.budget.search_left) / len(alive)
        )
        for t, verdict in zip(alive, _verify(job, alive, rung), strict=True):
            if verdict.correct and verdict.speedup is not None:
                t.pool(verdict.speedup.value, _pairs(verdict))
                t.status = "measured"
        measured = [t for t in alive if t.estimate is not None and t.status not in FAILED]
        measured.sort(key=lambda t: -(t.estimate or 0.0))
        winners = measured[: max(job.config.finalists, -(-len(measured) // 2))]
        for t in alive:
            if t not in winners and t.status not in FAILED:
                t.status = "pruned"
        alive, rounds = winners, rounds * 2
    if len(alive) > job.config.finalists:  # the budget ended the halving
        alive.sort(key=lambda t: -(t.estimate or t.screen or 0.0))
        for t in alive[job.config.finalists :]:
            t.status = "unmeasured"
        alive = alive[: job.config.finalists]
    return alive


def _pairs(verdict: Verdict) -> int:
    """Timed pairs behind the verdict's speedup (its measurement's ``pairs``)."""
    return verdict.context.measurement.pairs or 1


def _final(job: Job, finalists: list[Trial]) -> Trial | None:
    """Verify the finalists once more, timed with the service's own stop rule; the
    fastest significantly faster one wins (none: the baseline)."""
    contenders = [t for t in finalists if (t.estimate or t.screen or 0) > 1.0]
    if not contenders:
        return None
    contenders.sort(key=lambda t: -(t.estimate or t.screen or 0.0))
    # the best one is always re-measured (nothing is chosen unmeasured); the others
    # while the budget has room for them
    fit = max(1, _room(job, 1.0, FINAL_SCREENS))
    for t in contenders[fit:]:
        t.status = "unmeasured"
    contenders = contenders[:fit]
    share = max(job.budget.search_left / len(contenders), MIN_FINAL_SECONDS)
    fresh = job.verify.staged(max_cpu_seconds=share)
    for t, verdict in zip(contenders, _verify(job, contenders, fresh), strict=True):
        if verdict.correct:
            t.fresh = verdict.speedup
            t.status = "faster" if verdict.significantly_faster else "not_significant"
    winners = [t for t in contenders if t.status == "faster"]
    chosen = max(winners, key=lambda t: t.fresh.value if t.fresh else 0.0, default=None)
    if chosen is not None:
        chosen.status = "chosen"
    return chosen
