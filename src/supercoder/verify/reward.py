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
- ``binary`` a collapsed event ("Making Execution Time a Trainable Reward", ICML 2026):
  1 when the program is correct, proven faster (as ``gated`` pays) and the lower end of
  its 95% CI reaches ``threshold`` (default 1.05: at least 5% faster, for sure), else
  ``baseline_copy`` (0).
- ``percentile`` graded against a reference pool: the share of the problem's pool
  (``verify.pools``: its reference solutions where the folder has several, else the
  build search's compiler builds of the source, -O0 to PGO) the program is
  significantly faster than (``beats``: the log-ratio's interval, both intervals'
  widths in quadrature, lies above ``1 + margin``), paid only when it is proven faster
  than the baseline as ``gated`` pays (else ``baseline_copy``): a program as fast as
  the baseline would otherwise be paid for beating -O0. The pool's speedups are
  measured once per problem and machine and cached (``verify.pools.reward_pool``), so a
  check costs what it costs under ``gated``.

Every form and its options is one ``RewardConfig``, written as one spec text
(``RewardConfig.spec``: ``binary:threshold=1.1``, ``percentile:pool=builds``,
``gated:rounds=6``; ``parse_reward`` reads it back), the same text on every path:
``check --reward``, ``eval --reward`` (stored in the run's identity, its summary's
``reward`` figure), ``train grpo``/``train verl`` (``SUPERCODER_REWARD``), ``serve``'s
``/v1/score`` and the environments. ``rounds`` is the timing budget: the meter's rounds
of pairs per completion, fixed (None: the meter's adaptive 4-15).

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

import numpy as np

from supercoder.errors import UserError
from supercoder.types import MIN_PRACTICAL_MARGIN, Problem, Speedup, Verdict
from supercoder.verify.evaluate import check_config
from supercoder.verify.pools import reward_pool
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
    BINARY = "binary"
    PERCENTILE = "percentile"


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


DEFAULT_THRESHOLD = 1.05  # binary: the CI's lower end must reach it
POOL_SOURCES = ("auto", "builds", "references")
MAX_ROUNDS = 200


@dataclass(frozen=True)
class RewardConfig:
    """Which reward, its options, the timing budget, and how candidates are verified.

    Fields:
        kind: ``gated`` (the default, ``DEFAULT_REWARD``: the speedup if significantly
            faster, else what a copy of the baseline earns), ``paper`` (the speedup),
            ``log`` (its logarithm), ``binary`` (1 when proven faster with the CI's
            lower end at ``threshold`` or above) or ``percentile`` (the share of the
            problem's reference pool it is significantly faster than): see the module
            docstring and ``score_verdict``.
        failure: the reward of a wrong answer or no answer.
        baseline_copy: the reward of a copy of the baseline (and, under ``gated``,
            ``binary`` and ``percentile``, of any correct program not proven faster, or
            whose speedup does not hold past the cut the time budget makes in the domain:
            ``holds_past_cut``).
        pay_tables: False: a correct answer that adds a lookup table (``added_tables``:
            a data object indexed at run time, of any size) earns ``baseline_copy``
            under every kind, however fast it reads; True (the default): tables are
            named in the verdict and paid like any code.
        threshold: ``binary``: the speedup the 95% CI's lower end must reach.
        pool: ``percentile``: the reference pool (``auto``: the problem's reference
            solutions where its folder has several, else ``builds``, the build search's
            compiler builds of the source; ``verify.pools``).
        rounds: the timing budget: rounds of pairs timed per completion, fixed (each
            round a pair on every timed input); None: the meter's adaptive 4-15.
        eval_config: how candidates are verified (an ``CheckConfig``; None: the default).
    """

    kind: RewardKind = DEFAULT_REWARD
    failure: float = 0.0
    baseline_copy: float = 0.0
    pay_tables: bool = True
    threshold: float = DEFAULT_THRESHOLD
    pool: str = "auto"
    rounds: int | None = None
    eval_config: CheckConfig | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in REWARD_KINDS:
            raise ValueError(f"unknown reward kind {self.kind!r}: use one of {REWARD_KINDS}")
        object.__setattr__(self, "kind", RewardKind(self.kind))
        if not (math.isfinite(self.threshold) and 0 < self.threshold <= 1000):
            raise ValueError(f"threshold must be a speedup in (0, 1000], got {self.threshold}")
        if self.pool not in POOL_SOURCES:
            raise ValueError(f"unknown pool {self.pool!r}: use one of {', '.join(POOL_SOURCES)}")
        if self.rounds is not None and not 2 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(f"rounds must be 2-{MAX_ROUNDS} (got {self.rounds})")

    @property
    def spec(self) -> str:
        """The form and its options as one text (``parse_reward`` reads it back): the
        kind, then only the options that apply to it or differ from the default, then
        ``rounds`` when fixed."""
        opts: list[str] = []
        if self.kind == RewardKind.BINARY:
            opts.append(f"threshold={self.threshold:g}")
        if self.kind == RewardKind.PERCENTILE:
            opts.append(f"pool={self.pool}")
        if self.failure:
            opts.append(f"failure={self.failure:g}")
        if self.baseline_copy:
            opts.append(f"baseline_copy={self.baseline_copy:g}")
        if not self.pay_tables:
            opts.append("pay_tables=0")
        if self.rounds is not None:
            opts.append(f"rounds={self.rounds}")
        return self.kind.value + (":" + ",".join(opts) if opts else "")

    def evaluation(self) -> CheckConfig:
        if self.eval_config is not None:
            return self.eval_config

        return check_config()

    def with_evaluation(self, eval_config: CheckConfig | None) -> RewardConfig:
        return replace(self, eval_config=eval_config)


_SPEC_KEYS = {
    "threshold": float,
    "pool": str,
    "rounds": int,
    "failure": float,
    "baseline_copy": float,
    "pay_tables": lambda v: v.strip().lower() not in ("0", "false", "no", "off"),
}


def parse_reward(
    text: str, eval_config: CheckConfig | None = None, **defaults: Any
) -> RewardConfig:
    """A ``RewardConfig`` from its spec text, ``KIND[:KEY=VALUE,...]`` (``binary``,
    ``binary:threshold=1.1``, ``percentile:pool=builds,rounds=6``); ``defaults`` are
    options the text does not name (``baseline_copy=...`` from a flag). A bad text is a
    ``UserError`` in one line naming what is wrong."""
    kind, _, rest = str(text or DEFAULT_REWARD.value).strip().partition(":")
    values: dict[str, Any] = {k: v for k, v in defaults.items() if v is not None}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or key not in _SPEC_KEYS:
            raise UserError(
                f"reward {text!r}: {part!r} is not KEY=VALUE with KEY one of "
                f"{', '.join(_SPEC_KEYS)}"
            )
        try:
            values[key] = _SPEC_KEYS[key](value.strip())
        except ValueError:
            raise UserError(f"reward {text!r}: {key} must be a number, got {value!r}") from None
    try:
        return RewardConfig(kind.strip(), eval_config=eval_config, **values)
    except ValueError as e:
        raise UserError(f"reward {text!r}: {e}") from None


def proven_faster(verdict: Verdict) -> bool:
    """Whether a correct verdict earns pay for speed under the forms that pay only a
    proven gain (``gated``, ``binary``, ``percentile``): significantly faster than the
    baseline, not a copy, not on a problem whose output can be memorized, and holding
    past the cut the time budget makes in the domain (``holds_past_cut``)."""
    return bool(
        verdict.significantly_faster and not verdict.memorizable and holds_past_cut(verdict)
    )


def beats(answer: Speedup, member: Speedup, margin: float | None = None) -> bool:
    """Whether ``answer`` is significantly faster than ``member`` (both speedups over the
    same baseline): the log-ratio's lower end (the answer's lower half-width and the
    member's upper one in quadrature) lies above ``log(1 + margin)`` (the answer's
    practical margin, at least ``MIN_PRACTICAL_MARGIN``)."""
    m = answer.margin if margin is None else margin
    pool = [member]
    return bool(_shares(np.array([answer.value]), np.array([answer.low]), m, pool)[0] > 0)


def _shares(
    value: np.ndarray, low: np.ndarray, margin: float, pool: Sequence[Speedup]
) -> np.ndarray:
    """Per answer (``value``, ``low``: arrays), the share of ``pool`` it beats (``beats``)."""
    if not pool:
        return np.zeros_like(value, dtype=float)
    m = math.log1p(max(margin, MIN_PRACTICAL_MARGIN))
    v = np.log(np.maximum(value, 1e-300))
    down = v - np.log(np.maximum(low, 1e-300))
    count = np.zeros_like(v, dtype=float)
    for p in pool:
        if p.value <= 0:
            continue
        up = max(0.0, math.log(max(p.high, p.value)) - math.log(p.value))
        count += (v - math.log(p.value) - np.hypot(down, up)) > m
    return count / len(pool)


def percentile(answer: Speedup, pool: Sequence[Speedup]) -> float:
    """The share of ``pool`` that ``answer`` is significantly faster than (``beats``)."""
    return float(_shares(np.array([answer.value]), np.array([answer.low]), answer.margin, pool)[0])


def pay_for_speed(
    config: RewardConfig,
    value: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    margin: float,
    pool: Sequence[Speedup] = (),
) -> np.ndarray:
    """THE speed part of every form, over arrays of measurements of correct programs that
    are not a copy of the baseline (``score_verdict`` applies it to one verdict, the
    reward study to thousands of simulated ones): ``paper`` the speedup, ``log`` its
    logarithm; the gated forms pay only a proven gain (the CI above ``1 + margin``,
    ``types.practical_significance``), else ``baseline_copy``: ``gated`` the speedup,
    ``binary`` 1 when the CI's lower end reaches ``threshold``, ``percentile`` the share
    of ``pool`` beaten."""
    value, low, high = (np.asarray(x, dtype=float) for x in (value, low, high))
    if config.kind == RewardKind.PAPER:
        return value
    if config.kind == RewardKind.LOG:
        return np.log(np.maximum(value, 1e-300))
    proven = low > 1.0 + max(float(margin), MIN_PRACTICAL_MARGIN)
    copy = config.baseline_copy
    if config.kind == RewardKind.BINARY:
        return np.where(proven & (low >= config.threshold), 1.0, copy)
    if config.kind == RewardKind.PERCENTILE:
        return np.where(proven, _shares(value, low, margin, pool), copy)
    return np.where(proven, value, copy)


def score_verdict(
    verdict: Verdict,
    config: RewardConfig = RewardConfig(),
    pool: Sequence[Speedup] | None = None,
) -> float | None:
    """The reward of one verdict under ``config`` (None = infrastructure failure);
    ``pool``: the problem's reference pool's speedups, which ``percentile`` needs
    (``score_verdicts`` finds it: every caller with problems should use that)."""
    if verdict.is_infra_failure:
        return None
    if not verdict.correct:
        return config.failure
    gate = config.kind in (RewardKind.GATED, RewardKind.BINARY, RewardKind.PERCENTILE)
    if gate and verdict.memorizable:
        return 0.0  # it reads no input: a precomputed output would pass (module docstring)
    if verdict.identical_to_baseline:
        return config.baseline_copy
    if not config.pay_tables and added_tables(verdict):
        return config.baseline_copy  # the trainer chose not to pay tables
    sp = verdict.speedup
    if sp is None:  # correct, untimed: the baseline's 1.0x (paper), else not proven
        return {RewardKind.PAPER: 1.0, RewardKind.LOG: 0.0}.get(config.kind, config.baseline_copy)
    if config.kind == RewardKind.PERCENTILE and pool is None:
        raise ValueError("the percentile reward needs the problem's pool: score_verdicts")
    if gate and not proven_faster(verdict):
        return config.baseline_copy
    paid = pay_for_speed(config, [sp.value], [sp.low], [sp.high], sp.margin, pool or ())
    return float(paid[0])


def score_verdicts(
    problems: Sequence[Problem] | None,
    verdicts: Sequence[Verdict],
    config: RewardConfig = RewardConfig(),
) -> list[float | None]:
    """The rewards of ``verdicts[i]`` on ``problems[i]``: ``score_verdict`` with each
    problem's reference pool where the form needs one (``percentile``: measured once per
    problem and machine, then read from the cache: ``verify.pools.reward_pool``; the
    other forms need no problem: ``problems`` may be None). Every path that pays (check,
    eval, TRL, verl, serve, the environments) calls this."""
    if config.kind != RewardKind.PERCENTILE:
        return [score_verdict(v, config) for v in verdicts]
    if problems is None or len(problems) != len(verdicts):
        raise ValueError("the percentile reward needs each verdict's problem")
    pools = reward_pools(problems, verdicts, config)
    return [
        score_verdict(v, config, pools.get(p.name, ()))
        for p, v in zip(problems, verdicts, strict=True)
    ]


def reward_pools(
    problems: Sequence[Problem], verdicts: Sequence[Verdict], config: RewardConfig
) -> dict[str, tuple[Speedup, ...]]:
    """The pools ``percentile`` needs to pay ``verdicts`` (by problem name): only those
    of problems where a verdict is proven faster (nothing else is ranked)."""
    if config.kind != RewardKind.PERCENTILE:
        return {}
    needed = {p.name: p for p, v in zip(problems, verdicts, strict=True) if proven_faster(v)}
    return {
        name: reward_pool(problem, config.pool, config.evaluation()).speedups
        for name, problem in needed.items()
    }


def default_reward(verdict: Verdict) -> float | None:
    """The reward training uses by default (``DEFAULT_REWARD``, ``RewardConfig()``):
    what ``check --json`` reports as ``reward``, beside ``paper_reward``."""
    return score_verdict(verdict, RewardConfig())


def verdict_json(
    verdict: Verdict, reward: float | None = None, config: RewardConfig | None = None
) -> dict[str, Any]:
    """The verdict's JSON (``Verdict.to_json``) plus its rewards, as ``check --json`` and
    the verification server show it: ``reward`` the training reward (``config``'s, its
    value ``reward`` from ``score_verdicts``; else the default, ``gated``), ``reward_form``
    its spec, ``paper_reward`` the paper's (None for an infrastructure failure, and both
    None for a correct candidate checked without timing: what was not measured has no
    figure)."""
    form = (config or RewardConfig()).spec
    if verdict.correct and verdict.speedup is None and not verdict.identical_to_baseline:
        return {**verdict.to_json(), "reward": None, "reward_form": form, "paper_reward": None}
    return {
        **verdict.to_json(),
        "reward": default_reward(verdict) if config is None else reward,
        "reward_form": form,
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
    evaluation = timing_budget(config.evaluation(), config.rounds)
    if not evaluation.time or config.rounds is not None:
        return evaluation
    if config.kind in (RewardKind.GATED, RewardKind.BINARY, RewardKind.PERCENTILE):
        meter = replace(evaluation.meter, stop_when_not_faster=True)
        return replace(evaluation, meter=meter)
    return evaluation


def timing_budget(evaluation: CheckConfig, rounds: int | None) -> CheckConfig:
    """``evaluation`` with the reward's timing budget (``RewardConfig.rounds``): exactly
    ``rounds`` rounds of pairs per completion; None (or untimed): unchanged, the meter's
    adaptive rounds. Every path that times for a reward (check --reward, eval --reward,
    the TRL and verl rewards, the service, the environments) times through this."""
    if rounds is None or not evaluation.time:
        return evaluation
    meter = replace(evaluation.meter, min_pairs=rounds, max_pairs=rounds)
    return replace(evaluation, meter=meter)


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
    return score_verdicts(problems, verdicts, config)
