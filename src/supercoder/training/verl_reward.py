"""The speedup reward as verl's custom reward function (verl 0.9.x).

verl's ``main_ppo`` loads the file named by ``reward.custom_reward_function.path`` and
the function named by ``reward.custom_reward_function.name``; its reward manager
(``reward.reward_manager.name=naive``, the default) calls it once per response, in a
thread of each reward-loop worker::

    compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)

The problem is rebuilt from the record itself (SuperCoder schema, see ``records.py``):
``extra_info`` carries ``c_code`` and the tests (``inputs``/``outputs``, plus our
``hidden_inputs``/``hidden_outputs``) and, in records supercoder wrote, the problem
whole (``problem_files``: restored as its folder under the cache, so the worker judges
the problem ``check`` judges: its generator, input model, marks, settings), so any Ray
worker can score it without the problem folders. The baseline is rebuilt from ``c_code`` with ``gcc -O3 -S`` (the
record's ``ground_truth`` may be ``-O0`` in the published dataset); problems are cached
per process.

Returns a dict, always (verl logs every key as a reward metric; ``score`` is the
reward): 0 for a wrong or missing program, about the speedup for a correct one
(``SUPERCODER_REWARD``: a reward spec, ``gated`` by default, or ``paper``, ``log``,
``binary[:threshold=1.05]``, ``percentile[:pool=auto]``: ``verify.reward.parse_reward``;
``SUPERCODER_TIMING_ROUNDS``: the timing budget, rounds of pairs per response;
``SUPERCODER_PAY_TABLES=0``: an answer that adds a lookup table earns ``baseline_copy``) for the ISA target
``SUPERCODER_TARGET`` (``native`` by default, or an x86-64 level: ``toolchain/isa.py``). verl cannot skip a response and a ``None``
crashes its reward assembly, so an infrastructure failure (the sandbox could not start,
a runner was lost; never the candidate's own failure) is retried
``SUPERCODER_INFRA_RETRIES`` times (default 2, the verification service's
``VerifyConfig.infra_retries``) and then gets the neutral score
``SUPERCODER_INFRA_SCORE`` (default 0.0) with ``infra_failure: 1`` in its dict.

With ``SUPERCODER_SERVER=URL`` (and ``SUPERCODER_TOKEN``) the records and responses go
to that ``supercoder serve`` (``verify/client.py``), which verifies them as this module
would: a GPU node then needs no sandbox, gcc or root; a server that cannot answer is an
infrastructure failure (the neutral score), never a wrong answer.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from supercoder.dataset.records import problem_from_record
from supercoder.errors import UserError
from supercoder.toolchain.isa import parse_target
from supercoder.types import Problem, Verdict
from supercoder.verify.client import ServiceClient
from supercoder.verify.evaluate import check_config
from supercoder.verify.executors import Executor
from supercoder.verify.reward import (
    DEFAULT_REWARD,
    RewardConfig,
    RewardKind,
    added_tables,
    holds_past_cut,
    parse_reward,
    score_verdicts,
    verify_batch,
)

INFRA_RETRIES = 2
INFRA_SCORE = 0.0
_CONTEXT_KEYS = ("num_turns", "rollout_reward_scores", "tool_extra_fields")  # added by verl


def compute_score(
    data_source: Any = None,
    solution_str: str = "",
    ground_truth: Any = None,
    extra_info: Any = None,
    executor: Executor | None = None,
    **_: Any,
) -> dict[str, float]:
    """verl's per-response entry point: a dict with ``score`` and metrics, never None
    (``executor``: where checks run, default the engine's workers)."""
    return score_responses([solution_str], [extra_info], executor)[0]


def score_responses(
    solution_strs: Sequence[str], extra_infos: Sequence[Any], executor: Executor | None = None
) -> list[dict]:
    """Scores for many responses at once (correctness checks in parallel, on
    ``executor``), with the infrastructure-failure retries; each a dict as
    ``compute_score`` returns."""
    config = _config_from_env()
    retries = _env_int("SUPERCODER_INFRA_RETRIES", INFRA_RETRIES)
    remote = _remote()
    problems = None
    if remote is not None:  # SUPERCODER_SERVER: the records go as they are
        records = [{"extra_info": _record_info(info)} for info in extra_infos]
        verdicts = remote.score(records, list(solution_strs), config, infra_retries=retries)
        if config.kind == RewardKind.PERCENTILE:  # its pools are measured here
            problems = [record_problem(info) for info in extra_infos]
    else:
        problems = [record_problem(info) for info in extra_infos]
        verdicts = verify_batch(
            problems, list(solution_strs), config, executor, infra_retries=retries
        )
    scores = score_verdicts(problems, verdicts, config)
    neutral = _infra_score()
    return [_result(v, s, neutral) for v, s in zip(verdicts, scores, strict=True)]


def _result(verdict: Verdict, score: float | None, neutral: float) -> dict[str, float]:
    infra = score is None
    return {
        "score": neutral if score is None else float(score),
        "correct": float(verdict.correct),
        "speedup": _speedup(verdict),
        "compiled": float(verdict.assembled),
        "infra_failure": float(infra),
        "tables": float(len(added_tables(verdict))),
        "holds_past_cut": float(holds_past_cut(verdict)),
    }


def _speedup(verdict: Verdict) -> float:
    """The measured speedup; a correct copy of the baseline (not timed: its reward does
    not depend on it) is the baseline: 1.0; a wrong program 0.0."""
    if not verdict.correct:
        return 0.0
    return verdict.speedup.value if verdict.speedup else 1.0


def _infra_score() -> float:
    text = os.environ.get("SUPERCODER_INFRA_SCORE", str(INFRA_SCORE))
    try:
        return float(text)
    except ValueError:
        raise UserError(f"SUPERCODER_INFRA_SCORE must be a number, got {text!r}") from None


def _config_from_env() -> RewardConfig:
    try:
        target = parse_target(os.environ.get("SUPERCODER_TARGET", "native"))
    except ValueError as e:
        raise UserError(f"SUPERCODER_TARGET: {e}") from None
    rounds = os.environ.get("SUPERCODER_TIMING_ROUNDS") or None
    return parse_reward(
        os.environ.get("SUPERCODER_REWARD", DEFAULT_REWARD.value),
        check_config(target=target),
        baseline_copy=float(os.environ.get("SUPERCODER_BASELINE_COPY", "0")) or None,
        rounds=None if rounds is None else _env_int("SUPERCODER_TIMING_ROUNDS", 0),
        pay_tables=os.environ.get("SUPERCODER_PAY_TABLES", "1").strip().lower()
        not in ("0", "false", "no", "off"),
    )


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name, str(default))
    try:
        return max(0, int(text))
    except ValueError:
        raise UserError(f"{name} must be a whole number, got {text!r}") from None


def _remote():
    """The verification server of ``SUPERCODER_SERVER`` (one client per process), or None."""
    url = os.environ.get("SUPERCODER_SERVER", "").strip()
    return _client(url, os.environ.get("SUPERCODER_TOKEN") or None) if url else None


@lru_cache(maxsize=4)
def _client(url: str, token: str | None):
    return ServiceClient(url, token)


def _record_info(extra_info: Any) -> Any:
    """A record's ``extra_info`` as plain JSON values, without what verl adds to it."""
    info = _plain(extra_info)
    if isinstance(info, str):
        info = json.loads(info)
    if isinstance(info, dict):
        info = {k: v for k, v in info.items() if k not in _CONTEXT_KEYS}
    return info


def record_problem(extra_info: Any) -> Problem:
    """The problem described by a record's ``extra_info`` (cached by content)."""
    info = _record_info(extra_info)
    key = json.dumps(info, sort_keys=True, default=str)
    return _problem_for(hashlib.sha256(key.encode()).hexdigest(), key)


@lru_cache(maxsize=4096)
def _problem_for(_digest: str, info_json: str) -> Problem:
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
