"""The ``compiler`` model's build search: builds are proposed here and judged by the
verification service (``verify/service.py``), like every other candidate.

``build_search(problem, model, settings, verify=...)``:

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

``budget`` (``compiler:budget=S``, ``--budget``) is CPU seconds per problem: compile
time (wall, a single-threaded upper bound) plus what the service reports each verdict
cost. Building and screening stop at ``SCREEN_SHARE`` of it, halving at
``HALVING_SHARE``; the re-measure takes what is left (at least ``MIN_FINAL_SECONDS``
per finalist). Builds the budget never reached are said (``SearchResult.budget_note``:
``budget spent: 18 unscreened, 42 unbuilt; rerun with --budget N``), in the answer's
header, its ``search`` record and what ``optimize``/``eval`` print.

With ``--no-time`` (the verifier times nothing) nothing is screened or measured: the
builds are checked in order until one is correct, as any untimed strategy stops at its
first correct answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from supercoder.runs.strategies import (
    Attempt,
    Journal,
    Outcome,
    OutcomeMeta,
    ServiceVerifier,
    StrategyConfig,
    Verifier,
    _attempt,
    _finish,
    confirm_best,
    make_verifier,
)
from supercoder.runs.trials import (
    FAILED,
    HALVING_SHARE,
    MIN_FINAL_SECONDS,
    SCREEN_SHARE,
    Budget,
    SearchConfig,
    SearchResult,
    Trial,
)
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.flagspace import Build, Tools, combine, find_tools, search_space
from supercoder.toolchain.gcc import asm_digest
from supercoder.toolchain.pgo import build_asm, training_inputs
from supercoder.types import Candidate, Origin, Problem, Verdict

if TYPE_CHECKING:
    from supercoder.models.base import Completion
    from supercoder.models.compiler import CompilerModel

Record = Callable[[Attempt], None]
"""Where each finished attempt goes (the run's journal, or nowhere)."""


def searches_builds(model: object) -> bool:
    """Is ``model`` a build proposer whose answers this search chooses (the ``compiler``
    model, not in its ``legacy`` mode)?"""
    return bool(getattr(model, "searches_builds", False))


@dataclass
class _Job:
    """One problem's search: what every stage needs."""

    problem: Problem
    config: SearchConfig
    tools: Tools
    budget: Budget
    verify: ServiceVerifier
    inputs: list[bytes]
    seen: dict[str, str]
    isolation: bool = True


def build_search(
    problem: Problem,
    model: CompilerModel,
    settings: StrategyConfig,
    *,
    verify: Verifier | None = None,
    journal: Journal | None = None,
) -> Outcome:
    """The answer of a build-proposing ``model`` (see module docstring)."""
    service = verify if isinstance(verify, ServiceVerifier) else make_verifier()
    base = baseline_asm(problem)
    stored = journal.stored(problem.name) if journal else {}
    record: Record = (lambda a: journal.record(problem.name, a)) if journal else (lambda a: None)
    config = SearchConfig(
        budget=model.budget,
        max_builds=max(settings.samples, 1),
        target=getattr(model, "target", SearchConfig.target),
    )
    if not service.timed:
        attempts = _first_correct(problem, base, config, service, record, stored)
        return Outcome(problem.name, tuple(attempts), OutcomeMeta(baseline_asm=base))
    if (0, 0) in stored:  # a resumed run: the search ended and chose; finish what it left
        attempts = _resume_answers(problem, base, stored, service, record)
    else:
        result = search_builds(problem, base, config, service)
        attempts = _answers(problem, base, result, service, record)
    attempts = confirm_best(problem, attempts, service, record)
    return Outcome(problem.name, tuple(attempts), OutcomeMeta(baseline_asm=base))


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
    job = _Job(
        problem,
        config,
        tools,
        Budget(config.budget),
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
        chosen, tuple(trials), tuple(tools.skipped()), job.budget.spent, budget=config.budget
    )


def _build_all(job: _Job, builds: list[Build], share: float) -> list[Trial]:
    out = []
    for b in builds:
        trial = Trial(b)
        out.append(trial)
        if not job.budget.within(share):
            trial.status = "unbuilt"
            continue
        asm = _compile(job, b)
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


def _compile(job: _Job, build: Build) -> str | None:
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


def _verify(job: _Job, trials: Sequence[Trial], service: ServiceVerifier) -> list[Verdict]:
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


def _screen(job: _Job, trials: list[Trial]) -> None:
    """Correctness on every test and one round of timing, ``screen_group`` builds per
    call of the service (one timing session), while the screening share lasts."""
    todo = [t for t in trials if t.status == "built"]
    size = max(job.config.screen_group, 1)
    cheap = job.verify.staged(rounds=1, group_size=size)
    for k in range(0, len(todo), size):
        group = todo[k : k + size]
        if not job.budget.within(SCREEN_SHARE):
            for t in group:
                t.status = "unscreened"
            continue
        for t, verdict in zip(group, _verify(job, group, cheap), strict=True):
            if verdict.correct:
                t.status = "screened"
                t.screen = verdict.speedup.value if verdict.speedup else None


# --- successive halving and the fresh re-measure ---------------------------------------


def _halve(job: _Job, survivors: list[Trial]) -> list[Trial]:
    """Rungs of 2, 4, 8... rounds of timing; the better half goes on each rung (a rung's
    builds in one call of the service: timed together, one baseline stream)."""
    alive = [t for t in survivors if (t.screen or 0) > 0.9]
    rounds = 2
    while len(alive) > job.config.finalists and job.budget.within(HALVING_SHARE):
        rung = job.verify.staged(rounds=rounds, max_cpu_seconds=job.budget.left / len(alive))
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
    return alive


def _pairs(verdict: Verdict) -> int:
    """Timed pairs behind the verdict's speedup (its measurement's ``pairs``)."""
    return verdict.context.measurement.pairs or 1


def _final(job: _Job, finalists: list[Trial]) -> Trial | None:
    """Verify the finalists once more, timed with the service's own stop rule; the
    fastest significantly faster one wins (none: the baseline)."""
    contenders = [t for t in finalists if (t.estimate or t.screen or 0) > 1.0]
    if not contenders:
        return None
    share = max(job.budget.left / len(contenders), MIN_FINAL_SECONDS)
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


# --- the answers -----------------------------------------------------------------------


def _answers(
    problem: Problem, base: str, result: SearchResult, verify: ServiceVerifier, record: Record
) -> list[Attempt]:
    """The chosen build (its verdict the re-measure's) and the baseline as a fallback,
    or the baseline alone; the search's record rides on the first."""
    note = result.budget_note
    search = result.record()
    chosen = result.chosen
    if chosen is None or chosen.asm is None or chosen.verdict is None:
        why = "gcc -O3, the baseline: no build was significantly faster"
        origin = Origin(build="gcc -O3", family="baseline", search=search)
        completion = _completion(base, why, note, "compiler:gcc -O3 (baseline)", origin)
        return _verified(problem, base, [completion], verify, record)
    sp = chosen.fresh
    why = f"{sp.value:.3f}x [{sp.low:.3f}, {sp.high:.3f}] in the search's re-measure" if sp else ""
    if chosen.verdict.isa is not None:  # which CPUs the answer runs on
        why = "; ".join(filter(None, (why, chosen.verdict.isa.summary())))
    b = chosen.build
    origin = Origin(build=b.label, family=b.family, flags=b.flags, search=search)
    best = _completion(chosen.asm, f"{b.label} ({why})", note, f"compiler:{b.label}", origin)
    answer = _finish(_attempt(0, 0, best, 0.0, base), chosen.verdict, 1, 0.0)
    record(answer)
    return [answer, *_verified(problem, base, [_fallback(base)], verify, record, first=1)]


def _resume_answers(
    problem: Problem,
    base: str,
    stored: dict[tuple[int, int], Attempt],
    verify: ServiceVerifier,
    record: Record,
) -> list[Attempt]:
    """The answers of a search that a kill stopped after it chose (its answer, attempt
    0, is stored): the stored ones, and the baseline fallback verified now when the
    answer is a build and the fallback was never stored. ``confirm_best`` then re-checks
    an answer the kill left unconfirmed, so the run ends as an uninterrupted one."""
    answer = stored[(0, 0)]
    if answer.origin.family == "baseline":
        return [answer]
    if (1, 0) in stored:
        return [answer, stored[(1, 0)]]
    return [answer, *_verified(problem, base, [_fallback(base)], verify, record, first=1)]


def _fallback(base: str) -> Completion:
    """The -O3 baseline as the answer's fallback (attempt 1)."""
    return _completion(
        base,
        "gcc -O3, the baseline: a fallback",
        "",
        "compiler:gcc -O3 (baseline)",
        Origin(build="gcc -O3", family="baseline"),
    )


def _completion(asm: str, label: str, note: str, model: str, origin: Origin) -> Completion:
    from supercoder.models.base import Completion

    head = f"# supercoder compiler: {label}\n" + (
        f"# supercoder compiler: {note}\n" if note else ""
    )
    return Completion(f"```assembly\n{head}{asm.rstrip()}\n```", model, origin=origin)


def _verified(
    problem: Problem,
    base: str,
    completions: list[Completion],
    verify: Verifier,
    record: Record,
    first: int = 0,
) -> list[Attempt]:
    """Attempts ``first``, ``first + 1``... for ``completions``, each through ``verify``."""
    from supercoder.runs.strategies import _verify_all

    pending = [_attempt(first + i, 0, c, 0.0, base) for i, c in enumerate(completions)]
    return _verify_all(problem, pending, verify, record)


def _first_correct(
    problem: Problem,
    base: str,
    config: SearchConfig,
    verify: ServiceVerifier,
    record: Record,
    stored: dict[tuple[int, int], Attempt] | None = None,
) -> list[Attempt]:
    """Untimed: the builds in order, two per call of the service, until one is correct
    (at most ``max_builds``); nothing is timed, so nothing is screened or chosen by speed.
    A resumed run (``stored``: the attempts a kill left) takes each stored attempt in
    its place, neither built nor verified again, and goes on from there: it ends with
    the attempts an uninterrupted search has."""
    stored = stored or {}
    tools = find_tools()
    job = _Job(problem, config, tools, Budget(config.budget), verify, training_inputs(problem), {})
    job.seen[asm_digest(base)] = "baseline"
    attempts: list[Attempt] = []
    pending: list[Attempt] = []
    space = iter(search_space(tools, config.target))
    while len(attempts) + len(pending) < config.max_builds:
        b = next(space, None)
        if b is None:
            break
        index = len(attempts) + len(pending)
        kept = stored.get((index, 0))
        if kept is not None and kept.origin.build == b.label:
            asm: str | None = kept.candidate.asm
        else:
            kept, asm = None, _compile(job, b)
        if asm is None or asm_digest(asm) in job.seen:
            continue
        job.seen[asm_digest(asm)] = b.label
        if kept is None:
            origin = Origin(build=b.label, family=b.family, flags=b.flags)
            label = f"{b.label} (not timed)"
            made = _completion(asm, label, "", f"compiler:{b.label}", origin)
            kept = _attempt(index, 0, made, 0.0, base)
        pending.append(kept)
        if len(pending) == 2:
            attempts += _check_pending(problem, pending, stored, verify, record)
            pending = []
            if any(a.verdict.correct for a in attempts):
                return attempts
    if pending:
        attempts += _check_pending(problem, pending, stored, verify, record)
    return attempts


def _check_pending(
    problem: Problem,
    pending: list[Attempt],
    stored: dict[tuple[int, int], Attempt],
    verify: Verifier,
    record: Record,
) -> list[Attempt]:
    """``pending`` verified, each stored one as it was (only the others are checked)."""
    from supercoder.runs.strategies import _verify_all

    kept = [stored.get((a.sample, a.round)) is a for a in pending]
    fresh = [a for a, old in zip(pending, kept, strict=True) if not old]
    verified = iter(_verify_all(problem, fresh, verify, record))
    return [a if old else next(verified) for a, old in zip(pending, kept, strict=True)]


__all__ = [
    "SearchConfig",
    "SearchResult",
    "Trial",
    "build_search",
    "search_builds",
    "searches_builds",
]
