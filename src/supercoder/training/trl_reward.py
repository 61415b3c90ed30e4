"""The speedup reward as a TRL reward function.

TRL's GRPOTrainer calls each reward function as
``f(prompts=..., completions=..., completion_ids=..., **columns)`` where ``columns`` are
the dataset's other columns (one value per completion) plus ``trainer_state``,
``log_extra`` and ``log_metric``. The problem is found by the ``problem`` column (a
problem name, for datasets built by ``supercoder train grpo``) or else rebuilt from a
SuperCoder-schema ``extra_info`` column (any dataset in that schema, as a dict or JSON
text; a record supercoder wrote carries the problem whole in ``problem_files``, so
either column judges the problem ``check`` judges).

Infrastructure failures, after the verification service's retry (``verify.py``, one
by default), return ``None``: TRL (>= 1.0) treats a completion for which
every reward function returned None as unscorable (excluded from the group baseline,
advantage 0). They are also counted in the ``supercoder/infra_failures`` metric and
logged as a warning. With ``SUPERCODER_SERVER=URL`` (and ``SUPERCODER_TOKEN``) the
completions are verified by that ``supercoder serve`` (``verify/client.py``): the same
verdicts and rewards, and the training machine needs no sandbox, gcc or root. Per batch it logs ``supercoder/correct_rate``, ``compile_rate``,
``answer_rate`` and ``mean_speedup`` (of the correct ones) through ``log_metric``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from supercoder.errors import UserError
from supercoder.runs.metrics import batch_stats
from supercoder.training.verl_reward import record_problem
from supercoder.types import Problem
from supercoder.verify.client import ServiceClient
from supercoder.verify.reward import Reply, RewardConfig, score_verdicts, verify_batch

if TYPE_CHECKING:
    from supercoder.verify.executors import Executor

log = logging.getLogger(__name__)


def make_trl_reward(
    problems: Iterable[Problem] = (),
    config: RewardConfig | None = None,
    executor: Executor | None = None,
    name: str = "speedup",
) -> Callable[..., list[float | None]]:
    """A TRL reward function over ``problems`` (looked up by the ``problem`` column)."""
    by_name = {p.name: p for p in problems}
    config = config or RewardConfig()
    remote = ServiceClient.from_env()  # SUPERCODER_SERVER: it verifies, not the executor

    def reward(
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Reply] = (),
        problem: Sequence[str] | None = None,
        extra_info: Sequence[Any] | None = None,
        log_metric: Callable[[str, float], None] | None = None,
        **_columns: Any,
    ) -> list[float | None]:
        targets = _targets(len(completions), problem, extra_info, by_name)
        if remote is not None:
            verdicts = remote.score(targets, list(completions), config)
        else:
            verdicts = verify_batch(targets, list(completions), config, executor)
        stats = batch_stats(verdicts)
        if stats.infra_failures:
            log.warning(
                "%d of %d completions hit an infrastructure failure: no reward",
                stats.infra_failures,
                stats.count,
            )
        if log_metric is not None:
            for key, value in stats.to_metrics().items():
                log_metric(key, value)
        return score_verdicts(targets, verdicts, config)

    reward.__name__ = name
    return reward


def _targets(
    n: int,
    names: Sequence[str] | None,
    extra_info: Sequence[Any] | None,
    by_name: dict[str, Problem],
) -> list[Problem]:
    if names is not None:
        missing = sorted({str(x) for x in names} - by_name.keys())
        if missing:
            raise UserError(f"reward: unknown problem(s) in the 'problem' column: {missing[:5]}")
        return [by_name[str(x)] for x in names]
    if extra_info is not None:
        return [record_problem(info) for info in extra_info]
    if n:
        raise UserError("reward: the dataset needs a 'problem' column or an 'extra_info' column")
    return []
