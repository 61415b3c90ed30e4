"""Verification: the evaluator (one candidate -> Verdict), the one verification service,
the reward, and the executors that run verification jobs. (The evaluator itself is
``supercoder.verify.evaluate.evaluate``; ``supercoder.evaluate`` re-exports it.)"""

from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.reward import (
    RewardConfig,
    default_reward,
    paper_reward,
    score_batch,
    verify_batch,
)
from supercoder.verify.service import (
    Checked,
    VerifyConfig,
    verify_answers,
    verify_candidates,
    verify_stream,
)

__all__ = [
    "Checked",
    "CheckConfig",
    "RewardConfig",
    "VerifyConfig",
    "default_reward",
    "paper_reward",
    "score_batch",
    "verify_answers",
    "verify_batch",
    "verify_candidates",
    "verify_stream",
]
