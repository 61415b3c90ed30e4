"""Rewards for RL: the paper's (0 unless correct, else the speedup) and variants.

Every reward maps a ``Verdict`` to a float, or to ``None`` for an infrastructure failure
("no reward": the sample is skipped, never scored 0). Kinds (``RewardConfig.kind``):

- ``paper``  the paper's "design 2": 0 if it fails to assemble or any test, otherwise
  the measured speedup (no clamping; an unchanged program reads ~1.0);
- ``log``    ln(speedup) for a correct program (0 = as fast as gcc -O3, symmetric for
  faster/slower), ``failure`` otherwise;
- ``gated``  significance-gated: the speedup only when it is significantly faster
  (``Speedup.significantly_faster``: the whole 95% CI lies above the practical band
  ``[1 - m, 1 + m]``, ``m`` >= 1%), else 0 ("no proven gain"): a correct program that is merely
  not slower earns nothing, so noise cannot be farmed.

In every kind a program that is textually the baseline (``identical_to_baseline``)
gets ``baseline_copy`` (0 by default, set it negative to penalise copying) and a wrong
one gets ``failure`` (0 by default, the paper's value).

``score_batch`` extracts the assembly from model completions and verifies them all at
once: correctness checks fan out over an executor (a local process pool by default,
Ray with ``executors_ray.RayExecutor``); timing stays serial per machine because the
evaluator serialises its timing phase with a file lock. Identical (problem, assembly)
pairs in a batch are verified once.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supercoder.types import Candidate, Problem, Status, Verdict

REWARD_KINDS = ("paper", "log", "gated")


def paper_reward(verdict: Verdict) -> float | None:
    """The paper's reward ("design 2").

    None for an infrastructure failure (no reward: skip the sample, never score it 0);
    0 if it fails to assemble, fails any test, or is the baseline copied; otherwise the
    measured speedup (our statistics: no clamping, noise reads as ~1.0).
    """
    if verdict.is_infra_failure:
        return None
    if not verdict.correct or verdict.identical_to_baseline:
        return 0.0
    return verdict.speedup.value if verdict.speedup else 1.0


@dataclass(frozen=True)
class RewardConfig:
    """Which reward, and how candidates are verified (``eval_config``: an EvalConfig)."""

    kind: str = "paper"
    failure: float = 0.0
    baseline_copy: float = 0.0
    eval_config: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in REWARD_KINDS:
            raise ValueError(f"unknown reward kind {self.kind!r}: use one of {REWARD_KINDS}")

    def evaluation(self) -> Any:
        if self.eval_config is not None:
            return self.eval_config
        from supercoder.evaluate import EvalConfig

        return EvalConfig()


def score_verdict(verdict: Verdict, config: RewardConfig = RewardConfig()) -> float | None:
    """The reward of one verdict under ``config`` (None = infrastructure failure)."""
    if verdict.is_infra_failure:
        return None
    if not verdict.correct:
        return config.failure
    if verdict.identical_to_baseline:
        return config.baseline_copy
    sp = verdict.speedup
    if config.kind == "paper":
        return sp.value if sp else 1.0
    if config.kind == "log":
        return math.log(sp.value) if sp and sp.value > 0 else 0.0
    return sp.value if sp and sp.significantly_faster else 0.0


def completion_text(completion: Any) -> str:
    """Text of a completion: a plain string or a chat list (the last message's content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    if isinstance(completion, Sequence) and completion:
        return completion_text(completion[-1])
    return ""


def no_answer_verdict(problem: Problem) -> Verdict:
    return Verdict(problem.name, Status.NO_ANSWER, message="no assembly program in the answer")


def infra_verdict(problem: Problem, error: BaseException) -> Verdict:
    return Verdict(problem.name, Status.INFRA_ERROR, message=f"{type(error).__name__}: {error}")


def verify_one(item: tuple[Any, str, Any]) -> Verdict:
    """Executor work item: (problem or problem folder path, assembly, EvalConfig).

    Top-level and picklable; an ``InfraError``/``OSError`` becomes an infra verdict.
    """
    from supercoder.errors import InfraError
    from supercoder.evaluate import evaluate

    ref, asm, eval_config = item
    problem = _load_cached(ref) if isinstance(ref, str) else ref
    try:
        return evaluate(problem, Candidate(asm, {"source": "reward"}), eval_config)
    except (InfraError, OSError) as e:
        return infra_verdict(problem, e)


_PROBLEMS: dict[str, Problem] = {}


def _load_cached(path: str) -> Problem:
    if path not in _PROBLEMS:
        from supercoder.problems import load_problem

        _PROBLEMS[path] = load_problem(path)
    return _PROBLEMS[path]


def _problem_ref(problem: Problem) -> Any:
    """A folder path when the problem came from one (cheap to ship, lazy inputs), else itself."""
    path = problem.meta.get("path")
    if path and Path(path).is_dir():
        return str(path)
    return problem


def verify_batch(
    problems: Sequence[Problem],
    completions: Sequence[Any],
    config: RewardConfig = RewardConfig(),
    executor: Any = None,
) -> list[Verdict]:
    """Verdicts for ``completions[i]`` on ``problems[i]``; extraction first, then the
    distinct (problem, assembly) pairs are verified in parallel by ``executor``."""
    from supercoder.answers import failure_verdict, resolve_answer
    from supercoder.evaluate import baseline_asm

    if len(problems) != len(completions):
        raise ValueError(f"{len(problems)} problems but {len(completions)} completions")
    # whole programs or SEARCH/REPLACE diffs against the baseline (--answer diff)
    resolved = [
        resolve_answer(completion_text(c), baseline_asm(p))
        for p, c in zip(problems, completions, strict=True)
    ]
    asms = [r.asm for r in resolved]
    verdicts: list[Verdict | None] = [
        None if r.asm else failure_verdict(p.name, r)
        for p, r in zip(problems, resolved, strict=True)
    ]
    keys: dict[tuple[int, str], int] = {}
    items: list[tuple[Any, str, Any]] = []
    for problem, asm in zip(problems, asms, strict=True):
        key = (id(problem), asm or "")
        if asm and key not in keys:
            keys[key] = len(items)
            items.append((_problem_ref(problem), asm, config.evaluation()))
    results = _run_items(items, executor)
    for i, (problem, asm) in enumerate(zip(problems, asms, strict=True)):
        if asm:
            verdicts[i] = results[keys[(id(problem), asm)]]
    return [v for v in verdicts if v is not None]


def _run_items(items: list[tuple[Any, str, Any]], executor: Any) -> list[Verdict]:
    if not items:
        return []
    if executor is None:
        if len(items) == 1:
            return [verify_one(items[0])]
        executor = _shared_pool()
    results: list[Verdict | None] = [None] * len(items)
    for index, verdict in executor.map_unordered(verify_one, items):
        results[index] = verdict
    return [v for v in results if v is not None]


_POOL: list[Any] = []


def _shared_pool() -> Any:
    """One local process pool per process (one worker per core), started on first use."""
    if not _POOL:
        from supercoder.executors import LocalExecutor

        _POOL.append(LocalExecutor(max(2, os.cpu_count() or 2)))
    return _POOL[0]


def score_batch(
    problems: Sequence[Problem],
    completions: Sequence[Any],
    config: RewardConfig = RewardConfig(),
    executor: Any = None,
) -> list[float | None]:
    """Rewards for many completions at once (None = infrastructure failure, skip it)."""
    verdicts = verify_batch(problems, completions, config, executor)
    return [score_verdict(v, config) for v in verdicts]


@dataclass(frozen=True)
class BatchStats:
    """What a batch of verdicts looked like: for per-step training logs."""

    count: int
    correct_rate: float
    compile_rate: float
    answer_rate: float
    mean_speedup: float | None
    infra_failures: int

    def to_metrics(self, prefix: str = "supercoder/") -> dict[str, float]:
        out = {
            "correct_rate": self.correct_rate,
            "compile_rate": self.compile_rate,
            "answer_rate": self.answer_rate,
            "infra_failures": float(self.infra_failures),
        }
        if self.mean_speedup is not None:
            out["mean_speedup"] = self.mean_speedup
        return {prefix + k: v for k, v in out.items()}


_NOT_COMPILED = (Status.NO_ANSWER, Status.COMPILE_ERROR, Status.INFRA_ERROR)


def batch_stats(verdicts: Sequence[Verdict]) -> BatchStats:
    """Correct rate, compile rate and mean speedup of the correct ones (infra excluded)."""
    scored = [v for v in verdicts if not v.is_infra_failure]
    n = max(len(scored), 1)
    speedups = [v.speedup.value for v in scored if v.correct and v.speedup]
    return BatchStats(
        count=len(verdicts),
        correct_rate=sum(v.correct for v in scored) / n,
        compile_rate=sum(v.status not in _NOT_COMPILED for v in scored) / n,
        answer_rate=sum(v.status is not Status.NO_ANSWER for v in scored) / n,
        mean_speedup=sum(speedups) / len(speedups) if speedups else None,
        infra_failures=len(verdicts) - len(scored),
    )
