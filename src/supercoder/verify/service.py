"""The one verification service: candidates on problems -> verdicts, through an executor.

``verify_stream(problems, candidates, config, executor)`` yields a ``Checked`` (index,
verdict, seconds, tries) for each candidate as it is final; ``verify_candidates(...)`` collects
them in order; ``verify_answers`` first turns model replies into programs (whole, or
SEARCH/REPLACE diffs against the baseline). Every caller goes through here: the search
strategies and eval runs (streaming, so each answer is journaled as it finishes), the
TRL and verl rewards (batches).

The cascade (cheapest stage first; each stage only sees what passed the last one):

1. extract (``verify_answers``) -> refuse (``asmcheck``) -> build -> correctness on
   every test, hidden ones too: one job per distinct (problem, assembly), in parallel on
   every worker, holding no timing slot (``evaluate.check_candidate``). A failure is
   final here and yielded at once.
2. timing, only for correct programs that are worth a figure: distinct programs
   (one timing per exact program: the executable's bytes, so copies whose text differs
   only in comments share it, and nothing a normalization of the text might conflate
   does) and, unless ``VerifyConfig.time_copies``, not a copy of the baseline (the reward
   pays a copy ``baseline_copy`` whatever it measures). The candidates of one problem
   are timed together (``evaluate.time_group``: one sandbox, one baseline stream, one
   pinned timing slot), in groups of at most ``VerifyConfig.group_size``; the groups of
   several problems run in parallel, each in its own slot. Where fewer sessions than
   this machine's free slots would leave cores idle (one problem's programs, a
   ``check`` of several), a session of 4 or more is halved until they fill them.

- Identical (problem, assembly) pairs in one call are verified once; each copy gets
  the verdict and the seconds it took.
- Jobs run through an ``Executor`` (``map_unordered``); ``executor=None`` runs a lone
  job inline and a batch in one local process pool per process (one worker per core).
  Problems loaded from a folder travel to other processes as their path and are loaded
  once per worker process (generated test inputs are never pickled).
- ``run_job``/``run_group_job`` (top-level, picklable) never raise: a bug or a broken
  machine becomes a ``Status.INFRA_ERROR`` verdict naming the exception. Infrastructure
  failures are retried ``VerifyConfig.infra_retries`` times (default 1) at the stage
  they happened in, then reported as they are: the caller drops them, never scores
  them as wrong; only the final try is yielded.
- A broken *problem* (``UserError`` from the evaluator: its baseline does not build, its
  folder cannot be loaded) is not retried: it is raised in the caller, as ``evaluate``
  raises it, with the same message.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from supercoder.dataset.records import restore_problem
from supercoder.engine import current
from supercoder.errors import UserError
from supercoder.problems.loading import load_problem
from supercoder.prompting.answers import failure_verdict, resolve_answer
from supercoder.sandbox.elf import run_image_digest
from supercoder.timing.slots import free_slot_count
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import Candidate, Problem, Status, Verdict
from supercoder.verify import evaluate as ev  # looked up per call: tests replace it
from supercoder.verify.evaluate import CheckConfig, Untimed
from supercoder.verify.executors import InlineExecutor, LocalExecutor, ThreadExecutor

if TYPE_CHECKING:
    from supercoder.verify.executors import Executor

INFRA_RETRIES = 1
GROUP_SIZE = 8


@dataclass(frozen=True)
class VerifyConfig:
    """How candidates are verified, and how often an infrastructure failure is retried.

    Fields:
        eval: the evaluator's configuration (``CheckConfig``: sandbox, limits, meter,
            whether to time at all).
        infra_retries: evaluations repeated after an infrastructure failure before it is
            given up, per stage (the one retry policy of every caller).
        time_copies: time a correct copy of the baseline too (reward-only callers say no:
            its reward does not depend on it).
        group_size: at most this many candidates of one problem timed in one session.
    """

    eval: CheckConfig = field(default_factory=CheckConfig)
    infra_retries: int = INFRA_RETRIES
    time_copies: bool = True
    group_size: int = GROUP_SIZE

    def __post_init__(self) -> None:
        if self.infra_retries < 0:
            raise ValueError(f"infra_retries must be >= 0 (got {self.infra_retries})")
        if self.group_size < 1:
            raise ValueError(f"group_size must be >= 1 (got {self.group_size})")


def staged(
    config: VerifyConfig,
    rounds: int | None = None,
    max_cpu_seconds: float | None = None,
    group_size: int | None = None,
) -> VerifyConfig:
    """``config`` with its timing bounded for a search that measures candidates again
    later (the build search's screen and halving rungs): exactly ``rounds`` rounds of
    the same protocol on the same kind of timed inputs, at most ``max_cpu_seconds`` of
    timing per candidate, up to ``group_size`` candidates per session (one baseline
    stream, one draw of inputs); correctness is checked in full, and ``time`` is kept."""
    if group_size is not None:
        config = replace(config, group_size=group_size)
    meter = config.eval.meter
    if rounds is not None:
        meter = replace(meter, min_pairs=rounds, max_pairs=rounds)
    if max_cpu_seconds is not None:
        meter = replace(meter, max_cpu_seconds=min(meter.max_cpu_seconds, max_cpu_seconds))
    return replace(config, eval=replace(config.eval, meter=meter))


class Checked(NamedTuple):
    """One candidate's final verdict; ``seconds`` over all its tries."""

    index: int
    verdict: Verdict
    seconds: float
    tries: int = 1


@dataclass(frozen=True)
class Job:
    """One correctness check: the problem itself, or (``problem=None``) its folder ``path``."""

    name: str
    problem: Problem | None
    path: str | None
    asm: str | None
    config: CheckConfig


@dataclass(frozen=True)
class GroupJob:
    """One timing session: correct candidates (``Untimed``) of one problem."""

    name: str
    problem: Problem | None
    path: str | None
    checked: tuple[Untimed, ...]
    config: CheckConfig


@dataclass(frozen=True)
class JobResult:
    verdict: Verdict
    seconds: float
    problem_error: str | None = None  # a UserError's message: the problem is broken
    binary: bytes | None = field(default=None, repr=False)  # a correct candidate's executable


@dataclass(frozen=True)
class GroupResult:
    verdicts: tuple[Verdict, ...]
    seconds: float
    problem_error: str | None = None


def run_job(job: Job) -> JobResult:
    """Executor work item: check one program (no timing); never raises (see module docstring)."""
    start = time.perf_counter()
    broken: str | None = None
    binary = None
    try:
        problem = _here(job.problem) if job.problem else load_cached(str(job.path))
        checked = ev.check_candidate(problem, Candidate(job.asm), job.config)
        verdict, binary = checked.verdict, checked.binary
    except UserError as e:  # the problem's fault, not the candidate's nor the machine's
        verdict, broken = infra_verdict(job.name, e), str(e)
    except Exception as e:  # a bug or a broken machine: never the candidate's fault
        verdict = infra_verdict(job.name, e)
    return JobResult(verdict, time.perf_counter() - start, broken, binary)


def run_group_job(job: GroupJob) -> GroupResult:
    """Executor work item: time correct programs of one problem together; never raises."""
    start = time.perf_counter()
    try:
        problem = _here(job.problem) if job.problem else load_cached(str(job.path))
        verdicts = tuple(ev.time_group(problem, list(job.checked), job.config))
        return GroupResult(verdicts, time.perf_counter() - start)
    except UserError as e:
        broken: str | None = str(e)
        failure = infra_verdict(job.name, e)
    except Exception as e:
        broken, failure = None, infra_verdict(job.name, e)
    verdicts = tuple(failure for _ in job.checked)
    return GroupResult(verdicts, time.perf_counter() - start, broken)


def infra_verdict(problem: str, error: BaseException) -> Verdict:
    return Verdict(problem, Status.INFRA_ERROR, message=f"{type(error).__name__}: {error}")


_PROBLEMS: dict[str, Problem] = {}


def load_cached(path: str) -> Problem:
    """The problem in folder ``path``, loaded once per process."""
    if path not in _PROBLEMS:
        _PROBLEMS[path] = load_problem(path)
    return _PROBLEMS[path]


def verify_stream(
    problems: Problem | Sequence[Problem],
    candidates: Sequence[Candidate | str | None],
    config: VerifyConfig = VerifyConfig(),
    executor: Executor | None = None,
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
    groups = list(owners.values())
    where = executor or (_inline() if len(groups) == 1 else shared_pool())
    remote = not getattr(where, "inline", False)
    # the check stage never times; with config.eval.time it also runs the generated
    # tests timing will use (verify/unseen.py), so every verdict lists them
    jobs = [_job(targets[g[0]], asms[g[0]], config.eval, remote) for g in groups]
    spent = [0.0] * len(jobs)
    tries = [1] * len(jobs)
    to_time: list[tuple[int, Untimed]] = []  # correct and worth a timing
    for j, result in _with_retries(where, run_job, jobs, config.infra_retries, spent, tries):
        verdict = result.verdict
        worth = config.time_copies or not verdict.identical_to_baseline
        if config.eval.time and result.binary is not None and verdict.correct and worth:
            to_time.append((j, Untimed(verdict, result.binary)))
            continue
        for i in groups[j]:
            yield Checked(i, verdict, spent[j], tries[j])
    if not to_time:
        return
    sessions = _sessions(to_time, targets, groups, config.group_size, _free_slots(executor))
    group_jobs = [
        _group_job(targets[groups[m[0].job][0]], [x.untimed for x in m], config.eval, remote)
        for m in sessions
    ]
    timing_where = executor or (shared_pool() if len(group_jobs) > 1 else _inline())
    s_spent = [0.0] * len(group_jobs)
    s_tries = [1] * len(group_jobs)
    for k, result in _with_retries(
        timing_where, run_group_job, group_jobs, config.infra_retries, s_spent, s_tries
    ):
        share = s_spent[k] / len(sessions[k])
        for member, verdict in zip(sessions[k], result.verdicts, strict=True):
            for j in member.jobs:
                for i in groups[j]:
                    yield Checked(i, verdict, spent[j] + share, tries[j] + s_tries[k] - 1)


class _Member(NamedTuple):
    """One program in a timing session: its job, its check, and every job (itself
    first) whose executable is the same, byte for byte."""

    job: int
    untimed: Untimed
    jobs: list[int]


_Work = TypeVar("_Work", Job, GroupJob)
_Result = TypeVar("_Result", JobResult, GroupResult)


def _with_retries(
    where: Executor,
    fn: Callable[[_Work], _Result],
    jobs: list[_Work],
    retries: int,
    spent: list[float],
    tries: list[int],
) -> Iterator[tuple[int, _Result]]:
    """``(job index, result)`` of ``fn`` over ``jobs`` through ``where``, each final
    result once: an infrastructure failure (any verdict of a group) is run again up to
    ``retries`` times; a broken problem raises its ``UserError``."""
    todo = list(range(len(jobs)))
    for attempt in range(1, retries + 2):
        again = []
        for k, result in where.map_unordered(fn, [jobs[j] for j in todo]):
            j = todo[k]
            if result.problem_error is not None:
                raise UserError(result.problem_error)
            spent[j] += result.seconds
            tries[j] = attempt
            verdicts = result.verdicts if isinstance(result, GroupResult) else (result.verdict,)
            if any(v.is_infra_failure for v in verdicts) and attempt <= retries:
                again.append(j)
                continue
            yield j, result
        todo = again
        if not todo:
            break


def _sessions(
    to_time: list[tuple[int, Untimed]],
    targets: list[Problem],
    groups: list[list[int]],
    size: int,
    slots: int = 1,
) -> list[list[_Member]]:
    """The timing sessions: per problem, one member per distinct executable (every
    byte it loads and runs, ``sandbox.elf.run_image_digest``: never a normalized text,
    which may conflate two programs),
    at most ``size`` members a session; while there are fewer sessions than ``slots``
    (timing slots that would stand idle), the largest session of 4 or more is halved
    (each half keeps a group's saving, on a core of its own); the costliest first."""
    by_problem: dict[int, dict[str, _Member]] = {}
    for j, untimed in to_time:
        first = groups[j][0]
        distinct = by_problem.setdefault(id(targets[first]), {})
        key = run_image_digest(untimed.binary or b"")  # every byte it loads counts
        if key in distinct:
            distinct[key].jobs.append(j)
        else:
            distinct[key] = _Member(j, untimed, [j])
    out = []
    for distinct in by_problem.values():
        members = list(distinct.values())
        out.extend(members[k : k + size] for k in range(0, len(members), size))
    while len(out) < slots:
        largest = max(out, key=len, default=[])
        if len(largest) < 4:
            break
        out.remove(largest)
        half = (len(largest) + 1) // 2
        out.extend([largest[:half], largest[half:]])
    # longest first (a session's cost grows with its programs' run time and count): the
    # slots finish together instead of one long session running on alone at the end
    return sorted(out, key=lambda m: -sum(x.untimed.verdict.cpu_seconds_spent for x in m))


def _free_slots(executor: Executor | None) -> int:
    """Timing sessions that may start at once here: this machine's timing slots that no
    process holds now (``timing.slots.free_slot_count``: another eval's timing keeps
    its own), at most the local executor's workers (the default: the engine's); 1
    for an executor of another kind (a cluster's nodes have slots of their own, and a
    batch there has sessions enough)."""
    if executor is None:
        executor = shared_pool()
    if isinstance(executor, InlineExecutor):
        return 1
    if isinstance(executor, LocalExecutor | ThreadExecutor):
        return min(free_slot_count(), executor.workers)
    return 1


def verify_candidates(
    problems: Problem | Sequence[Problem],
    candidates: Sequence[Candidate | str | None],
    config: VerifyConfig = VerifyConfig(),
    executor: Executor | None = None,
) -> list[Verdict]:
    """The verdicts of ``verify_stream``, in the candidates' order."""
    verdicts: list[Verdict | None] = [None] * len(candidates)
    for checked in verify_stream(problems, candidates, config, executor):
        verdicts[checked.index] = checked.verdict
    return [v for v in verdicts if v is not None]


def verify_together(
    problem: Problem, programs: Sequence[str], config: CheckConfig
) -> list[Verdict]:
    """Several programs of one problem, as ``supercoder check`` takes them: checked in
    parallel (a thread each, as many as there are cores) and the correct ones timed
    together in one session against one stream of baseline runs; verdicts in order."""
    workers = max(1, min(len(programs), os.cpu_count() or 1))
    together = VerifyConfig(config, group_size=len(programs))  # one timing session
    return verify_candidates(problem, programs, together, ThreadExecutor(workers))


def verify_answers(
    problems: Sequence[Problem],
    answers: Sequence[str],
    config: VerifyConfig = VerifyConfig(),
    executor: Executor | None = None,
) -> list[Verdict]:
    """Verdicts for the model reply ``answers[i]`` on ``problems[i]``: the program is
    extracted first (a whole program, or SEARCH/REPLACE diffs against the baseline);
    a reply with none gets its failure verdict without running anything."""
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


def _job(problem: Problem, asm: str | None, config: CheckConfig, remote: bool) -> Job:
    """Problems loaded from a folder go to other processes as their path; a problem
    restored from a record (its folder in this machine's cache) goes whole, and a worker
    on another machine restores its folder there (``_here``)."""
    path = problem.path if remote else None
    if path and Path(path).is_dir() and not problem.settings.problem_files:
        return Job(problem.name, None, str(path), asm, config)
    return Job(problem.name, problem, None, asm, config)


def _here(problem: Problem) -> Problem:
    """``problem`` on this machine: one restored from a record whose folder is not here
    (a worker on another node) is restored again from the files it carries."""
    path, files = problem.path, problem.settings.problem_files
    if not files or not path or Path(path).is_dir():
        return problem

    return restore_problem(problem, files, f"{problem.name} (restored on this machine)")


def _group_job(
    problem: Problem, checked: list[Untimed], config: CheckConfig, remote: bool
) -> GroupJob:
    job = _job(problem, None, config, remote)
    return GroupJob(job.name, job.problem, job.path, tuple(checked), config)


def _inline() -> Executor:
    return InlineExecutor()


def shared_pool() -> Executor:
    """The engine's verification workers as processes (``engine.processes_pool()``: one
    process pool per process, started on first use)."""
    return current().processes_pool()


def discard_shared_pool() -> None:
    """Close and drop the engine's pool (one of its workers died: ``BrokenProcessPool``;
    or the process is stopping); the next ``shared_pool()`` starts a fresh one."""
    current().discard_pool()
