"""The speedup reward as verl's custom reward function.

verl loads a file named by ``custom_reward_function.path`` and calls the function named
by ``custom_reward_function.name`` once per response::

    compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)

The problem is rebuilt from the record itself (SuperCoder schema, see ``records.py``):
``extra_info`` carries ``c_code`` and the tests (``inputs``/``outputs``, plus our
``hidden_inputs``/``hidden_outputs``), so any Ray worker can score it without the
problem folders. The baseline is rebuilt from ``c_code`` with ``gcc -O3 -S`` (the
record's ``ground_truth`` may be ``-O0`` in the published dataset); problems are cached
per process.

Returns a dict (verl logs every key; ``score`` is the reward): 0 for a wrong or missing
program, about the speedup for a correct one (``SUPERCODER_REWARD=paper|log|gated``).
An infrastructure failure is retried (``SUPERCODER_INFRA_RETRIES``, default 2) and then
gives ``None``: no reward. verl has no way to skip one response, so a ``None`` stops the
step with an error (a machine that keeps failing should stop the run, not train it on
zeros). To keep going instead, set ``SUPERCODER_INFRA_SCORE`` to a neutral value: the
response then gets that score and ``infra_failure: 1`` in verl's reward metrics.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from supercoder.reward import RewardConfig, score_verdict, verify_batch
from supercoder.types import Problem, Verdict


def compute_score(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Any = None,
    **_: Any,
) -> dict[str, float] | None:
    """verl's per-response entry point (``reward_model.reward_manager=naive``)."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Any],
    **_: Any,
) -> list[dict[str, float] | None]:
    """verl's batched entry point (``reward_model.reward_manager=batch``): correctness
    checks of the whole batch run in parallel (local process pool)."""
    config = _config_from_env()
    problems = [record_problem(info) for info in extra_infos]
    verdicts = verify_batch(problems, list(solution_strs), config)
    for _attempt in range(_env_int("SUPERCODER_INFRA_RETRIES", 2)):
        retry = [i for i, v in enumerate(verdicts) if v.is_infra_failure]
        if not retry:
            break
        again = verify_batch(
            [problems[i] for i in retry], [solution_strs[i] for i in retry], config
        )
        for i, verdict in zip(retry, again, strict=True):
            verdicts[i] = verdict
    return [_result(v, config) for v in verdicts]


def _result(verdict: Verdict, config: RewardConfig) -> dict[str, float] | None:
    score = score_verdict(verdict, config)
    infra = score is None
    if infra:
        neutral = os.environ.get("SUPERCODER_INFRA_SCORE")
        if neutral is None:
            return None
        score = float(neutral)
    return {
        "score": float(score),
        "correct": float(verdict.correct),
        "speedup": verdict.speedup.value if verdict.correct and verdict.speedup else 0.0,
        "compiled": float(verdict.status.value not in ("no_answer", "compile_error")),
        "infra_failure": float(infra),
    }


def _config_from_env() -> RewardConfig:
    return RewardConfig(
        kind=os.environ.get("SUPERCODER_REWARD", "paper"),
        baseline_copy=float(os.environ.get("SUPERCODER_BASELINE_COPY", "0")),
    )


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, str(default)))


def record_problem(extra_info: Any) -> Problem:
    """The problem described by a record's ``extra_info`` (cached by content)."""
    info = _plain(extra_info)
    if isinstance(info, str):
        info = json.loads(info)
    key = json.dumps(info, sort_keys=True, default=str)
    return _problem_for(hashlib.sha256(key.encode()).hexdigest(), key)


@lru_cache(maxsize=4096)
def _problem_for(_digest: str, info_json: str) -> Problem:
    from supercoder.records import problem_from_record

    return problem_from_record({"extra_info": json.loads(info_json)}, where="verl record")


def _plain(value: Any) -> Any:
    """numpy arrays and scalars (as verl hands them over) -> plain Python values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, str | bytes):
        return _plain(value.tolist())
    return value
