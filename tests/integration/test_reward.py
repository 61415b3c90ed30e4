"""Rewards: the paper's and the variants on verdicts, and the batched, verified path."""

from __future__ import annotations

import pytest

from supercoder.runs.metrics import batch_stats
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.executors import InlineExecutor
from supercoder.verify.reward import (
    RewardConfig,
    reward_evaluation,
    score_batch,
    score_verdict,
    verify_batch,
)
from tests.fakes.executors import watched
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm


def fenced(asm: str) -> str:
    return f"Here you go:\n```assembly\n{asm}```\n"


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    return tiny_problem(tmp_path_factory.mktemp("tiny") / "tiny_sum")


def test_score_batch_real_candidates(problem):
    completions = [
        fenced(faster_asm()),
        fenced(wrong_asm()),
        "I cannot do that.",
        fenced(baseline_asm(problem)),
    ]
    config = RewardConfig(baseline_copy=-0.25)
    verdicts = verify_batch([problem] * 4, completions, config)
    assert [v.status for v in verdicts] == [
        Status.OK,
        Status.WRONG_OUTPUT,
        Status.NO_ANSWER,
        Status.OK,
    ]
    rewards = [score_verdict(v, config) for v in verdicts]
    assert rewards[0] > 1.5, verdicts[0].speedup  # closed form vs a volatile loop
    assert rewards[1:] == [0.0, 0.0, -0.25]
    stats = batch_stats(verdicts)
    assert stats.correct_rate == 0.5 and stats.answer_rate == 0.75
    assert stats.mean_speedup is not None and stats.mean_speedup > 1.0


def test_identical_completions_are_verified_once(problem):
    machine = watched(InlineExecutor())
    config = RewardConfig(eval_config=CheckConfig(time=False))
    text = fenced(wrong_asm())
    rewards = score_batch([problem] * 3, [text, text, text], config, machine)
    assert rewards == [0.0, 0.0, 0.0]
    assert len(machine.checks) == 1


def test_infra_failure_is_no_reward(problem):
    machine = watched(InlineExecutor(), fail_first=100)  # no check finds a sandbox
    rewards = score_batch([problem] * 2, [fenced(faster_asm()), "no code"], executor=machine)
    assert rewards == [None, 0.0]
    assert len(machine.checks) == 2  # the one program: its try and one retry


def test_only_the_gated_reward_stops_timing_what_it_will_not_pay_for(problem):
    """Under ``gated`` a correct program not proven faster earns a copy's reward, so its
    timing stops once it cannot be proven faster; ``paper`` pays the figure itself."""
    assert reward_evaluation(RewardConfig()).meter.stop_when_not_faster
    assert not reward_evaluation(RewardConfig(kind="paper")).meter.stop_when_not_faster
    untimed = reward_evaluation(RewardConfig(eval_config=CheckConfig(time=False)))
    assert not untimed.meter.stop_when_not_faster
    verdicts = verify_batch([problem], [fenced(faster_asm())], RewardConfig())
    assert verdicts[0].context.provenance.stop == "precise, or not significantly faster"
