"""Rewards for RL: the paper's (0 unless correct, else the speedup) and variants.

Every reward maps a ``Verdict`` to a float, or to ``None`` for an infrastructure failure
("no reward": the sample is skipped, never scored 0). Kinds (``RewardConfig.kind``):

- ``gated``  **the default** (``DEFAULT_REWARD``): the speedup only when the program is
  significantly faster (``Speedup.significantly_faster``: the whole 95% CI lies above
  the practical band ``[1 - m, 1 + m]``, ``m`` >= 1%) and that speedup holds past the
  cut the reference's time budget makes in the input domain (``holds_past_cut``: a
  table of answers up to a predictable cut is fast only below it); a correct program
  that is not proven faster earns exactly what a copy of the baseline earns
  (``baseline_copy``).
  Why the default: a copy of the -O3 program padded with a ``nop`` reads ~1.0, and
  under ``paper`` it would earn ~1.0 against 0 for a failed attempt, so a policy learns
  to copy and pad; gated, padding is worth nothing unless it really is faster. No-ops
  are not normalised away: code alignment is a real effect (one ``nop`` at the start
  of ``main`` measured 1.46x on a matrix multiply), and a real, proven gain is paid.
- ``paper``  the paper's "design 2" (``paper_reward``): 0 if it fails to assemble or any
  test, otherwise the measured speedup (no clamping; an unchanged program reads ~1.0);
- ``log``    ln(speedup) for a correct program (0 = as fast as gcc -O3, symmetric for
  faster/slower), ``failure`` otherwise.

Memorizable problems (``Problem.memorizable``: the program reads no input, so an answer
may print the expected output without computing it) pay nothing under ``gated``, the
default: a correct answer there earns 0 however fast it reads (a wrong one still earns
``failure``), so a policy cannot learn to precompute outputs. ``paper`` and ``log``,
asked for by name, pay them as usual.

Tables: every lookup table an answer adds is named in its verdict (``DataSize.tables``,
``added_tables``) whatever its size; ``RewardConfig(pay_tables=False)`` pays an answer
that adds one ``baseline_copy`` under every kind (a trainer's choice; off by default).

In every kind a program that is textually the baseline (``identical_to_baseline``)
gets ``baseline_copy`` (0 by default, set it negative to penalise copying) and a wrong
one gets ``failure`` (0 by default, the paper's value).

``score_batch`` scores model completions through the verification service's cascade
(``verify.service``): the assembly is extracted, correctness checks fan out over an
executor (a local process pool by default, Ray with ``verify.ray.RayExecutor``) with
no timing lock; only correct, distinct programs that are not a copy of the baseline
(a copy's reward is ``baseline_copy`` whatever it measures) are timed, those of one
problem together in one session (group timing), the sessions in parallel, one per
pinned timing slot (``timing.slots``: about one per physical core); under ``gated``
a program stops being timed once it cannot be proven faster (``reward_evaluation``).
Identical (problem, assembly) pairs in a batch are verified once; an infrastructure
failure is retried ``infra_retries`` times (default 1), then gets None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from supercoder.types import Problem, Speedup, Verdict
from supercoder.verify.evaluate import check_config
from supercoder.verify.service import INFRA_RETRIES, VerifyConfig, verify_answers

if TYPE_CHECKING:
    from supercoder.verify.evaluate import CheckConfig
    from supercoder.verify.executors import Executor

Reply = str | Mapping[str, Any] | Sequence[Mapping[str, Any]]
"""A model's reply as trainers hand it over: the text, a chat message
(``{"role": ..., "content": ...}``) or a conversation (its last message counts)."""

# --- what a verdict is worth: the one definition every strategy, database and trainer uses

BASELINE_SPEEDUP = Speedup(1.0, 1.0, 1.0, 0, 0, method="the gcc -O3 baseline itself")


def measured_speedup(verdict: Verdict) -> Speedup | None:
    """The speedup a verdict proves by itself: a correct program's, timed and not a copy
    of the baseline; None otherwise (wrong, a copy, untimed)."""
    if not verdict.correct or verdict.identical_to_baseline or verdict.speedup is None:
        return None
    return verdict.speedup


def credited_speedup(verdict: Verdict) -> Speedup | None:
    """What a correct program is credited with: its measured speedup, else (a copy of
    the baseline, or untimed) the baseline's 1.0x; None when it is not correct."""
    if not verdict.correct:
        return None
    return measured_speedup(verdict) or BASELINE_SPEEDUP


def holds_past_cut(verdict: Verdict) -> bool:
    """Whether the speedup holds past the cut the reference's time budget makes in the
    input domain (``Measurement.beyond_cut``: the draws past it, their own stratum):
    there the answer must keep at least half the gain it shows below the cut, in log
    space (a 4x below the cut needs 2x past it; a table of answers up to the cut reads
    ~1x there). True where nothing was drawn past a cut (no budget cuts the domain; or
    not timed)."""
    past = verdict.context.measurement.beyond_cut
    below = verdict.speedup
    if past is None or below is None:
        return True
    return past.value >= math.sqrt(max(below.value, 1.0))


def added_tables(verdict: Verdict) -> tuple[str, ...]:
    """The lookup tables the answer adds (``DataSize.tables``: each named with its size
    and whether its index derives from the input), whatever their size."""
    return verdict.data.tables if verdict.data is not None else ()


def effective_speedup(verdict: Verdict) -> float:
    """The speedup a verdict earns as a number: 0.0 when not correct, 1.0 for a copy of
    the baseline or when untimed, else its measured value."""
    credited = credited_speedup(verdict)
    return 0.0 if credited is None else credited.value


class RewardKind(StrEnum):
    """How a verdict becomes a reward (see ``score_verdict``)."""

    PAPER = "paper"
    LOG = "log"
    GATED = "gated"


REWARD_KINDS = tuple(k.value for k in RewardKind)
DEFAULT_REWARD = RewardKind.GATED  # see the module docstring: no reward for an unproven gain


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
    """Which reward, and how candidates are verified.

    Fields:
        kind: ``gated`` (the default, ``DEFAULT_REWARD``: the speedup if significantly
            faster, else what a copy of the baseline earns), ``paper`` (the speedup) or
            ``log`` (its logarithm): see the module docstring and ``score_verdict``.
        failure: the reward of a wrong answer or no answer.
        baseline_copy: the reward of a copy of the baseline (and, under ``gated``, of
            any correct program not proven faster, or whose speedup does not hold past
            the cut the time budget makes in the domain: ``holds_past_cut``).
        pay_tables: False: a correct answer that adds a lookup table (``added_tables``:
            a data object indexed at run time, of any size) earns ``baseline_copy``
            under every kind, however fast it reads; True (the default): tables are
            named in the verdict and paid like any code.
        eval_config: how candidates are verified (an ``CheckConfig``; None: the default).
    """

    kind: RewardKind = DEFAULT_REWARD
    failure: float = 0.0
    baseline_copy: float = 0.0
    pay_tables: bool = True
    eval_config: CheckConfig | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in REWARD_KINDS:
            raise ValueError(f"unknown reward kind {self.kind!r}: use one of {REWARD_KINDS}")

    def evaluation(self) -> CheckConfig:
        if self.eval_config is not None:
            return self.eval_config

        return check_config()


def score_verdict(verdict: Verdict, config: RewardConfig = RewardConfig()) -> float | None:
    """The reward of one verdict under ``config`` (None = infrastructure failure)."""
    if verdict.is_infra_failure:
        return None
    if not verdict.correct:
        return config.failure
    if config.kind == RewardKind.GATED and verdict.memorizable:
        return 0.0  # it reads no input: a precomputed output would pass (module docstring)
    if verdict.identical_to_baseline:
        return config.baseline_copy
    if not config.pay_tables and added_tables(verdict):
        return config.baseline_copy  # the trainer chose not to pay tables
    sp = verdict.speedup
    if config.kind == "paper":
        return sp.value if sp else 1.0
    if config.kind == "log":
        return math.log(sp.value) if sp and sp.value > 0 else 0.0
    if sp and verdict.significantly_faster and holds_past_cut(verdict):
        return sp.value
    return config.baseline_copy


def default_reward(verdict: Verdict) -> float | None:
    """The reward training uses by default (``DEFAULT_REWARD``, ``RewardConfig()``):
    what ``check --json`` reports as ``reward``, beside ``paper_reward``."""
    return score_verdict(verdict, RewardConfig())


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """The verdict's JSON (``Verdict.to_json``) plus its rewards, as ``check --json`` and
    the verification server show it: ``reward`` the default training reward (``gated``),
    ``paper_reward`` the paper's (None for an infrastructure failure, and both None for
    a correct candidate checked without timing: what was not measured has no figure)."""
    if verdict.correct and verdict.speedup is None and not verdict.identical_to_baseline:
        return {**verdict.to_json(), "reward": None, "paper_reward": None}
    return {
        **verdict.to_json(),
        "reward": default_reward(verdict),
        "paper_reward": paper_reward(verdict),
    }


def completion_text(completion: Reply) -> str:
    """Text of a completion: a plain string or a chat list (the last message's content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    if isinstance(completion, Sequence) and completion:
        return completion_text(completion[-1])
    return ""


def reward_evaluation(config: RewardConfig) -> CheckConfig:
    """How a reward-only caller verifies: ``config.evaluation()``, and under ``gated``
    (it pays a correct program only when significantly faster) the meter stops timing
    a program once it cannot be (``MeterConfig.stop_when_not_faster``): its reward is
    ``baseline_copy`` whatever more rounds would say."""
    evaluation = config.evaluation()
    if config.kind != RewardKind.GATED or not evaluation.time:
        return evaluation
    return replace(evaluation, meter=replace(evaluation.meter, stop_when_not_faster=True))


def verify_batch(
    problems: Sequence[Problem],
    completions: Sequence[Reply],
    config: RewardConfig = RewardConfig(),
    executor: Executor | None = None,
    infra_retries: int = INFRA_RETRIES,
) -> list[Verdict]:
    """Verdicts for ``completions[i]`` on ``problems[i]`` (``verify.verify_answers``:
    extraction first, identical pairs once, infrastructure failures retried)."""
    texts = [completion_text(c) for c in completions]
    # a reward-only caller times nothing it will not pay for: never a baseline copy, and
    # under ``gated`` no more rounds for a program that cannot be proven faster
    verification = VerifyConfig(reward_evaluation(config), infra_retries, time_copies=False)
    return verify_answers(problems, texts, verification, executor)


def score_batch(
    problems: Sequence[Problem],
    completions: Sequence[Reply],
    config: RewardConfig = RewardConfig(),
    executor: Executor | None = None,
    infra_retries: int = INFRA_RETRIES,
) -> list[float | None]:
    """Rewards for many completions at once (None = infrastructure failure, skip it)."""
    verdicts = verify_batch(problems, completions, config, executor, infra_retries)
    return [score_verdict(v, config) for v in verdicts]
