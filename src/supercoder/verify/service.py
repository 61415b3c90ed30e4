"""The one verification service: candidates on problems -> verdicts, through an executor.

``verify_stream(problems, candidates, config, executor)`` yields a ``Checked`` (index,
verdict, seconds, tries) for each candidate as it is final; ``verify_candidates(...)`` collects
them in order; ``verify_answers`` first turns model replies into programs (whole, or
SEARCH/REPLACE diffs against the baseline). Every caller goes through here: the search
strategies and eval runs (streaming, so each answer is journaled as it finishes), the
TRL and verl rewards (batches).

- Identical (problem, assembly) pairs in one call are verified once; each copy gets
  the verdict and the seconds it took.
- Jobs run through an ``Executor`` (``map_unordered``); ``executor=None`` runs a lone
  job inline and a batch in one local process pool per process (one worker per core).
  Problems loaded from a folder travel to other processes as their path and are loaded
  once per worker process (generated test inputs are never pickled).
- ``run_job`` (top-level, picklable) never raises: a bug or a broken machine becomes a
  ``Status.INFRA_ERROR`` verdict naming the exception. Infrastructure failures are
  retried ``VerifyConfig.infra_retries`` times (default 1), then reported as they are:
  the caller drops them, never scores them as wrong; only the final try is yielded.
- A broken *problem* (``UserError`` from the evaluator: its baseline does not build, its
  folder cannot be loaded) is not retried: it is raised in the caller, as ``evaluate``
  raises it, with the same message.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from supercoder.errors import UserError
from supercoder.types import Candidate, Problem, Status, Verdict
from supercoder.verify.evaluate import EvalConfig

INFRA_RETRIES = 1


@dataclass(frozen=True)
class VerifyConfig:
    """How candidates are evaluated, and how often an infrastructure failure is retried.

    Fields:
        eval: the evaluator's configuration (``EvalConfig``).
        infra_retries: evaluations repeated after an infrastructure failure before
            it is given up (the one retry policy of every caller).
    """

    eval: EvalConfig = field(default_factory=EvalConfig)
    infra_retries: int = INFRA_RETRIES

    def __post_init__(self) -> None:
        if self.infra_retries < 0:
            raise ValueError(f"infra_retries must be >= 0 (got {self.infra_retries})")


class Checked(NamedTuple):
    """One candidate's final verdict; ``seconds`` over all its tries."""

    index: int
    verdict: Verdict
    seconds: float
    tries: int = 1


@dataclass(frozen=True)
class Job:
    """One evaluation: the problem itself, or (``problem=None``) its folder ``path``."""

    name: str
    problem: Problem | None
    path: str | None
    asm: str | None
    config: Any


@dataclass(frozen=True)
class JobResult:
    verdict: Verdict
    seconds: float
    problem_error: str | None = None  # a UserError's message: the problem is broken


def run_job(job: Job) -> JobResult:
    """Executor work item: evaluate one program; never raises (see module docstring)."""
    from supercoder.verify.evaluate import evaluate  # looked up per call: tests replace it

    start = time.perf_counter()
    broken: str | None = None
    try:
        problem = job.problem or load_cached(str(job.path))
        verdict = evaluate(problem, Candidate(job.asm), job.config)
    except UserError as e:  # the problem's fault, not the candidate's nor the machine's
        verdict, broken = infra_verdict(job.name, e), str(e)
    except Exception as e:  # a bug or a broken machine: never the candidate's fault
        verdict = infra_verdict(job.name, e)
    return JobResult(verdict, time.perf_counter() - start, broken)


def infra_verdict(problem: str, error: BaseException) -> Verdict:
    return Verdict(problem, Status.INFRA_ERROR, message=f"{type(error).__name__}: {error}")


_PROBLEMS: dict[str, Problem] = {}


def load_cached(path: str) -> Problem:
    """The problem in folder ``path``, loaded once per process."""
    if path not in _PROBLEMS:
        from supercoder.problems.loading import load_problem

        _PROBLEMS[path] = load_problem(path)
    return _PROBLEMS[path]


def verify_stream(
    problems: Problem | Sequence[Problem],
    candidates: Sequence[Candidate | str | None],
    config: VerifyConfig = VerifyConfig(),
    executor: Any = None,
) -> Iterator[Checked]:
    """``Checked`` for ``candidates[i]`` on ``problems[i]`` (or on the one ``problems``),
    in completion order, each once it is final (see module docstring)."""
    targets = [problems] * len(candidates) if isinstance(problems, Problem) else list(problems)
    if len(targets) != len(candidates):
        raise ValueError(f"{len(targets)} problems but {len(candidates)} candidates")
    asms = [c.asm if isinstance(c, Candidate) else c for c in candidates]
    owners: dict[tuple[int, str], list[int]] = {}
    for i, (problem, asm) in enumerate(zip(targets, asms, strict=True)):
        owners.setdefault((id(problem), asm or ""), []).append(i)
    if not owners:
        return
    where = executor or (_inline() if len(owners) == 1 else shared_pool())
    remote = not getattr(where, "inline", False)
    groups = list(owners.values())
    jobs = [_job(targets[g[0]], asms[g[0]], config.eval, remote) for g in groups]
    spent = [0.0] * len(jobs)
    todo = list(range(len(jobs)))
    for tries in range(1, config.infra_retries + 2):
        again = []
        for k, result in where.map_unordered(run_job, [jobs[j] for j in todo]):
            j = todo[k]
            if result.problem_error is not None:
                raise UserError(result.problem_error)
            spent[j] += result.seconds
            if result.verdict.is_infra_failure and tries <= config.infra_retries:
                again.append(j)
                continue
            for i in groups[j]:
                yield Checked(i, result.verdict, spent[j], tries)
        todo = again
        if not todo:
            break


def verify_candidates(
    problems: Problem | Sequence[Problem],
    candidates: Sequence[Candidate | str | None],
    config: VerifyConfig = VerifyConfig(),
    executor: Any = None,
) -> list[Verdict]:
    """The verdicts of ``verify_stream``, in the candidates' order."""
    verdicts: list[Verdict | None] = [None] * len(candidates)
    for checked in verify_stream(problems, candidates, config, executor):
        verdicts[checked.index] = checked.verdict
    return [v for v in verdicts if v is not None]


def verify_answers(
    problems: Sequence[Problem],
    answers: Sequence[str],
    config: VerifyConfig = VerifyConfig(),
    executor: Any = None,
) -> list[Verdict]:
    """Verdicts for the model reply ``answers[i]`` on ``problems[i]``: the program is
    extracted first (a whole program, or SEARCH/REPLACE diffs against the baseline);
    a reply with none gets its failure verdict without running anything."""
    from supercoder.build.baseline import baseline_asm
    from supercoder.prompting.answers import failure_verdict, resolve_answer

    if len(problems) != len(answers):
        raise ValueError(f"{len(problems)} problems but {len(answers)} completions")
    resolved = [resolve_answer(a, baseline_asm(p)) for p, a in zip(problems, answers, strict=True)]
    verdicts = [
        None if r.asm else failure_verdict(p.name, r)
        for p, r in zip(problems, resolved, strict=True)
    ]
    built = [i for i, r in enumerate(resolved) if r.asm]
    checked = verify_candidates(
        [problems[i] for i in built], [resolved[i].asm for i in built], config, executor
    )
    for i, verdict in zip(built, checked, strict=True):
        verdicts[i] = verdict
    return [v for v in verdicts if v is not None]


def _job(problem: Problem, asm: str | None, config: Any, remote: bool) -> Job:
    """Problems loaded from a folder go to other processes as their path."""
    path = problem.meta.get("path") if remote else None
    if path and Path(path).is_dir():
        return Job(problem.name, None, str(path), asm, config)
    return Job(problem.name, problem, None, asm, config)


def _inline() -> Any:
    from supercoder.verify.executors import InlineExecutor

    return InlineExecutor()


_POOL: list[Any] = []
_POOL_LOCK = threading.Lock()


def shared_pool() -> Any:
    """One local process pool per process (one worker per core), started on first use."""
    with _POOL_LOCK:
        if not _POOL:
            from supercoder.verify.executors import LocalExecutor

            _POOL.append(LocalExecutor(max(2, os.cpu_count() or 2)))
        return _POOL[0]
