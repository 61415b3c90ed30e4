"""Rewards: the paper's and the variants on verdicts, and the batched, verified path."""

from __future__ import annotations

import math

import pytest

from supercoder.errors import InfraError
from supercoder.runs.metrics import batch_stats
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import Speedup, Status, Verdict
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.executors import InlineExecutor
from supercoder.verify.reward import (
    DEFAULT_REWARD,
    RewardConfig,
    completion_text,
    default_reward,
    paper_reward,
    reward_evaluation,
    score_batch,
    score_verdict,
    verify_batch,
)
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm


def _ok(value: float, low: float, high: float, identical: bool = False) -> Verdict:
    sp = Speedup(value, low, high, samples=10, tests_timed=1)
    return Verdict("p", Status.OK, speedup=sp, identical_to_baseline=identical)


def fenced(asm: str) -> str:
    return f"Here you go:\n```assembly\n{asm}```\n"


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


def test_identical_completions_are_verified_once(problem, monkeypatch):
    import supercoder.verify.evaluate as ev

    calls = []
    real = ev.check_candidate

    def counting(p, candidate, config):
        calls.append(candidate.asm)
        return real(p, candidate, config)

    monkeypatch.setattr(ev, "check_candidate", counting)
    config = RewardConfig(eval_config=CheckConfig(time=False))
    text = fenced(wrong_asm())
    rewards = score_batch([problem] * 3, [text, text, text], config, InlineExecutor())
    assert rewards == [0.0, 0.0, 0.0]
    assert len(calls) == 1


def test_infra_failure_is_no_reward(problem, monkeypatch):
    import supercoder.verify.evaluate as ev

    def broken(*args, **kwargs):
        raise InfraError("sandbox could not start")

    monkeypatch.setattr(ev, "check_candidate", broken)
    rewards = score_batch(
        [problem] * 2, [fenced(faster_asm()), "no code"], executor=InlineExecutor()
    )
    assert rewards == [None, 0.0]


def test_only_the_gated_reward_stops_timing_what_it_will_not_pay_for(problem):
    """Under ``gated`` a correct program not proven faster earns a copy's reward, so its
    timing stops once it cannot be proven faster; ``paper`` pays the figure itself."""
    assert reward_evaluation(RewardConfig()).meter.stop_when_not_faster
    assert not reward_evaluation(RewardConfig(kind="paper")).meter.stop_when_not_faster
    untimed = reward_evaluation(RewardConfig(eval_config=CheckConfig(time=False)))
    assert not untimed.meter.stop_when_not_faster
    verdicts = verify_batch([problem], [fenced(faster_asm())], RewardConfig())
    assert verdicts[0].context.provenance.stop == "precise, or not significantly faster"
