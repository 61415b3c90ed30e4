"""Rewards for RL: the paper's (0 unless correct, else the speedup) and variants."""

from __future__ import annotations

from supercoder.types import Verdict


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
