"""Rewards: the paper's and the variants on verdicts, and the batched, verified path.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_reward.py."""

from __future__ import annotations

import math

import pytest

from supercoder.types import Speedup, Status, Verdict
from supercoder.verify.reward import (
    DEFAULT_REWARD,
    RewardConfig,
    completion_text,
    default_reward,
    paper_reward,
    score_verdict,
)


def _ok(value: float, low: float, high: float, identical: bool = False) -> Verdict:
    sp = Speedup(value, low, high, samples=10, tests_timed=1)
    return Verdict("p", Status.OK, speedup=sp, identical_to_baseline=identical)


def test_kinds_on_verdicts():
    faster, noise = _ok(2.0, 1.8, 2.2), _ok(1.01, 0.97, 1.05)
    wrong = Verdict("p", Status.WRONG_OUTPUT)
    infra = Verdict("p", Status.INFRA_ERROR)
    assert paper_reward(faster) == 2.0 and paper_reward(wrong) == 0.0
    assert paper_reward(noise) == 1.01 and score_verdict(noise, RewardConfig("paper")) == 1.01
    # the default (gated) pays an unproven gain what a copy of the baseline earns
    assert RewardConfig().kind == "gated" == DEFAULT_REWARD
    assert score_verdict(faster) == 2.0 and score_verdict(noise) == 0.0
    assert default_reward(noise) == default_reward(_ok(1.0, 0.99, 1.01, identical=True)) == 0.0
    slower = _ok(0.5, 0.45, 0.55)
    assert score_verdict(slower, RewardConfig(baseline_copy=-0.5)) == -0.5
    log = RewardConfig("log", failure=-1.0)
    assert score_verdict(faster, log) == pytest.approx(math.log(2.0))
    assert score_verdict(wrong, log) == -1.0
    gated = RewardConfig("gated")
    assert score_verdict(faster, gated) == 2.0
    assert score_verdict(noise, gated) == 0.0  # CI straddles 1: no proven gain
    copy = _ok(1.0, 0.99, 1.01, identical=True)
    assert score_verdict(copy) == 0.0
    assert score_verdict(copy, RewardConfig(baseline_copy=-0.5)) == -0.5
    for config in (RewardConfig(), log, gated):
        assert score_verdict(infra, config) is None  # no reward, never 0
    with pytest.raises(ValueError):
        RewardConfig("linear")


def test_completion_text_accepts_plain_and_chat():
    assert completion_text("abc") == "abc"
    assert completion_text([{"role": "assistant", "content": "xyz"}]) == "xyz"
    assert completion_text([]) == ""
