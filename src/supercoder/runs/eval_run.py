"""Eval runs: every problem of a benchmark optimized and verified, kept in SQLite.

``run_eval`` overlaps generation (the engine's threads, one per in-flight problem:
``--requests`` of them) with verification (an ``Executor``: the engine's workers). Each verified attempt is
committed as soon as it finishes, and each finished problem is marked, so a crash
loses only in-flight work: re-running the same run name skips finished problems and
re-uses every stored attempt (nothing is verified twice; stored infrastructure
failures are retried). A run's identity (model and options) is fixed at creation; a
resume with different ones is refused.

Infrastructure failures are never final: a problem with an attempt dropped for machine
trouble, or with no attempt to score, is not finished (the run reports it, with the
cause, and a rerun retries it); a problem counts as done only with a stored scored
attempt. The summary divides by the benchmark's size, lists the problems it could not
score (``complete`` is false while there are any) and the run is marked finished only
when every problem is scored.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from supercoder.engine import current
from supercoder.models.deadline import Deadline
from supercoder.paths import cache_dir
from supercoder.runs.dispatch import search
from supercoder.runs.identity import RunConfig
from supercoder.runs.metrics import summarize
from supercoder.runs.store import RunJournal, Store
from supercoder.runs.strategies import Outcome, OutcomeMeta, Verifier, make_verifier
from supercoder.runs.summary import RunSummary
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import machine_context
from supercoder.types import Problem
from supercoder.verify.evaluate import check_config
from supercoder.verify.executors import make_executor
from supercoder.verify.reward import RewardKind, parse_reward, reward_pools, timing_budget
from supercoder.verify.service import VerifyConfig

if TYPE_CHECKING:
    from supercoder.models.base import Model
    from supercoder.runs.strategies import ProgressStep


@dataclass(frozen=True)
class EvalRunResult:
    """What one ``run_eval`` call did: the run's summary and outcomes, what could not finish."""

    name: str
    summary: RunSummary
    outcomes: tuple[Outcome, ...]
    failed: dict[str, str]  # problem -> why it could not finish (model or machine trouble)
    resumed: bool
    skipped: int  # problems already finished in an earlier invocation


def run_context(run_config: RunConfig, problems: Sequence[Problem]) -> dict[str, Any]:
    return {
        **machine_context(),
        "model": run_config.model,
        "benchmark": run_config.benchmark,
        "problems_in_benchmark": len(problems),
        "samples": run_config.strategy.samples,
        "rounds": run_config.strategy.rounds,
        "strategy": str(run_config.strategy.strategy),
        "temperature": run_config.strategy.sampling.temperature,
        "timed": run_config.time,
        "sandbox": run_config.sandbox,
        "target": run_config.target,
        "executor": run_config.executor,
        "workers": current().workers,
        "reward": run_config.reward,
    }


def run_eval(
    problems: Sequence[Problem],
    model: Model | Sequence[Model],
    run_config: RunConfig,
    store: Store,
    *,
    on_start: Callable[[int, int], None] | None = None,
    on_begin: Callable[[str], None] | None = None,
    on_problem: Callable[[str, Outcome | None], None] | None = None,
    verify: Verifier | None = None,
    on_progress: Callable[[ProgressStep], None] | None = None,
) -> EvalRunResult:
    """Evaluate every problem (resuming a run of the same name); see module docstring.
    ``on_start(todo, skipped)`` once, ``on_begin(problem)`` when a problem starts,
    ``on_problem(problem, outcome or None)`` when it ends."""
    name, context = run_config.run_name, run_context(run_config, problems)
    resumed = store.open_run(run_config, context)
    done = set(store.finished_problems(name))
    todo = [p for p in problems if p.name not in done]
    if on_start:
        on_start(len(todo), len(problems) - len(todo))
    journal = RunJournal(store, name)
    executor = make_executor(run_config.executor) if verify is None else None
    paying = parse_reward(run_config.reward)
    checks = VerifyConfig(  # one infra retry; the reward's timing budget, when it fixes one
        timing_budget(
            check_config(
                sandbox=run_config.sandbox, time=run_config.time, target=run_config.target
            ),
            paying.rounds,
        )
    )
    verify = verify or make_verifier(checks, executor)
    failed: dict[str, str] = {}
    walls: dict[str, OutcomeMeta] = {}  # this invocation's wall times per problem

    def on_done(problem: Problem, result) -> None:
        outcome = _collect(result, problem, failed)
        if outcome is not None and (outcome.dropped or outcome.best is None):
            failed[problem.name] = dropped_reason(outcome)
            outcome = None
        if outcome is not None:
            store.finish_problem(name, outcome)
            walls[problem.name] = outcome.meta
        if on_problem:
            on_problem(problem.name, outcome)

    try:
        _drive(
            todo,
            lambda p: _solve_one(p, model, run_config, verify, journal, on_progress, on_begin),
            run_config.concurrency,
            on_done,
        )
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C, SIGTERM: the workers' jobs not awaited
        if executor is not None:
            getattr(executor, "abandon", executor.close)()
        raise
    finally:
        if executor is not None:
            executor.close()
    names = {p.name for p in problems}
    memorizable = {p.name: p.memorizable for p in problems}  # resumed attempts too
    outcomes = tuple(
        replace(o, meta=_timed(o.meta, walls.get(o.problem), memorizable[o.problem]))
        for o in store.outcomes(name)
        if o.problem in names
    )
    unscored = sorted(names - {o.problem for o in outcomes if o.best is not None})
    for problem in unscored:  # whatever has no score is unfinished, whyever it lacks one
        failed.setdefault(problem, "not scored (no verdict stored): rerun to retry")
    config = parse_reward(run_config.reward, checks.eval)
    by_name = {p.name: p for p in problems}
    best = [(by_name[o.problem], o.best.verdict) for o in outcomes if o.best is not None]
    pools = reward_pools([p for p, _ in best], [v for _, v in best], config)
    if config.kind == RewardKind.PERCENTILE:  # a recomputed summary pays as this one
        store.keep_pools(name, pools)
    summary = summarize(
        outcomes,
        {**context, "unfinished": len(failed), "run": name},
        total=len(problems),
        pools=pools if config.kind == RewardKind.PERCENTILE else None,
    ).with_unscored(unscored)
    if not failed:
        store.finish_run(name, summary)
    return EvalRunResult(name, summary, outcomes, failed, resumed, len(done & names))


def _drive(problems: Sequence[Problem], work: Callable, width: int, on_done: Callable) -> None:
    """Run ``work`` over problems on the engine's threads (``width`` problems in flight);
    on interrupt, start nothing new and return without waiting for the problems in
    flight (their finished attempts are stored)."""

    def guarded(problem: Problem) -> tuple[Outcome | None, Exception | None]:
        try:
            return work(problem), None
        except Exception as e:  # model or machine trouble: the problem stays unfinished
            return None, e

    for i, result in current().threads(guarded, problems, max(1, width)):
        on_done(problems[i], result)


def _solve_one(
    problem: Problem,
    model: Model | Sequence[Model],
    run_config: RunConfig,
    verify: Verifier,
    journal: RunJournal,
    on_progress: Callable[[ProgressStep], None] | None = None,
    on_begin: Callable[[str], None] | None = None,
) -> Outcome:
    if on_begin is not None:
        on_begin(problem.name)
    started = time.time()
    journal.baseline(problem.name, baseline_asm(problem))
    models = list(model) if isinstance(model, list | tuple) else [model]
    if run_config.deadline is not None:
        models = [Deadline(m, run_config.deadline) for m in models]
    outcome = search(
        problem,
        models,
        run_config.strategy,
        verify=verify,
        journal=journal,
        on_progress=on_progress,
    )
    meta = replace(outcome.meta, started=started, ended=time.time())
    return replace(outcome, meta=replace(meta, memorizable=problem.memorizable))


def _timed(meta: OutcomeMeta, wall: OutcomeMeta | None, memorizable: bool) -> OutcomeMeta:
    """A stored outcome's record with this invocation's wall times (when it ran the
    problem) and whether the problem is memorizable."""
    if wall is not None:
        meta = replace(meta, started=wall.started, ended=wall.ended)
    return replace(meta, memorizable=memorizable)


def dropped_reason(outcome: Outcome) -> str:
    """Why a problem with dropped attempts is not finished: the first cause, and how much
    room is left where supercoder writes (a full disk is the usual culprit)."""
    lost = [a for a in outcome.attempts if a.dropped]
    if not lost:
        return "no attempt to score (the model gave no answer): not scored; rerun to retry"
    first = (lost[0].verdict.message or "no message").strip().splitlines()
    cause = next((ln for ln in first if "No space left" in ln), first[0] if first else "")
    hint = disk_hint()
    return (
        f"{len(lost)} of {len(outcome.attempts)} attempt(s) lost to machine trouble "
        f"(not scored; rerun to retry): {cause[:300]}" + (f" [{hint}]" if hint else "")
    )


def disk_hint(low: int = 64 << 20) -> str:
    """'only N MiB free in DIR' for the temp and cache folders when nearly full, else ''."""
    notes = []
    for where in sorted({tempfile.gettempdir(), str(cache_dir())}):
        try:
            free = shutil.disk_usage(where).free
        except OSError:
            continue
        if free < low:
            notes.append(f"No space left on device? only {free >> 20} MiB free in {where}")
    return "; ".join(notes)


def _collect(
    result: tuple[Outcome | None, Exception | None], problem: Problem, failed: dict[str, str]
) -> Outcome | None:
    outcome, error = result
    if error is not None:  # model or machine trouble: leave unfinished, a rerun retries
        failed[problem.name] = f"{type(error).__name__}: {error}"
    return outcome


ANSWERS_INDEX = "answers.json"


def answer_file_name(problem: str) -> str:
    """A problem's answer file in an answers folder: its name made a plain file name."""
    import re

    safe = re.sub(r"[^A-Za-z0-9_.+-]+", "_", problem).strip(".") or "problem"
    return f"{safe}.s"


def write_answers(outcomes: Sequence[Outcome], folder: Path) -> list[dict[str, Any]]:
    """Each problem's answer (``Outcome.best``: what the run reports) as
    ``folder/PROBLEM.s``, exactly as verified (``supercoder check`` takes it back), and
    ``folder/answers.json`` indexing them: problem, file (None: no answer), status,
    speedup and its interval, how many checks measured it, the load each ran at.
    Returns the index's entries."""
    from supercoder.paths import atomic_write_text

    folder.mkdir(parents=True, exist_ok=True)
    index: list[dict[str, Any]] = []
    for outcome in sorted(outcomes, key=lambda o: o.problem):
        best = outcome.best
        entry: dict[str, Any] = {"problem": outcome.problem, "file": None}
        if best is None or not best.candidate.has_answer or best.verdict is None:
            entry["status"] = "no_answer"
            index.append(entry)
            continue
        verdict = best.verdict
        name = answer_file_name(outcome.problem)
        atomic_write_text(folder / name, str(best.candidate.asm))
        sp = verdict.speedup
        entry |= {
            "file": name,
            "status": verdict.status.value,
            "speedup": sp.value if sp else None,
            "speedup_ci": [sp.low, sp.high] if sp else None,
            "checks": verdict.context.measurement.checks,
            "load": verdict.context.measurement.load,
            "sample": best.sample,
            "round": best.round,
        }
        index.append(entry)
    atomic_write_text(folder / ANSWERS_INDEX, json.dumps(index, indent=2) + "\n")
    return index
