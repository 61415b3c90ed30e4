"""The binary and percentile forms, the reward spec, and the pool comparison."""

from __future__ import annotations

import pytest

from supercoder.errors import UserError
from supercoder.types import Speedup, Status, Verdict
from supercoder.verify.reward import (
    RewardConfig,
    RewardKind,
    beats,
    parse_reward,
    pay_for_speed,
    percentile,
    reward_evaluation,
    score_verdict,
    score_verdicts,
)

FORMS = ("gated", "paper", "log", "binary", "percentile")
POOL = (
    Speedup(0.4, 0.39, 0.41, 10, 1),  # -O0
    Speedup(1.0, 1.0, 1.0, 0, 0),  # the baseline's own assembly
    Speedup(1.3, 1.28, 1.32, 10, 1),  # native
    Speedup(2.5, 2.4, 2.6, 10, 1),  # PGO
)


def _ok(value, low, high, identical=False, memorizable=False) -> Verdict:
    sp = Speedup(value, low, high, samples=10, tests_timed=1, margin=0.01)
    return Verdict(
        "p", Status.OK, speedup=sp, identical_to_baseline=identical, memorizable=memorizable
    )


def test_binary_pays_one_only_for_a_proven_gain_past_the_threshold():
    binary = RewardConfig("binary")  # threshold 1.05: the CI's lower end must reach it
    assert score_verdict(_ok(2.0, 1.8, 2.2), binary) == 1.0
    assert score_verdict(_ok(1.06, 1.03, 1.09), binary) == 0.0  # proven, but low < 1.05
    assert score_verdict(_ok(1.06, 1.03, 1.09), RewardConfig("binary", threshold=1.02)) == 1.0
    assert score_verdict(_ok(1.5, 0.9, 2.5), binary) == 0.0  # not proven
    assert score_verdict(Verdict("p", Status.WRONG_OUTPUT), binary) == 0.0
    assert score_verdict(Verdict("p", Status.INFRA_ERROR), binary) is None


def test_percentile_is_the_share_of_the_pool_beaten_and_gated():
    assert percentile(Speedup(3.0, 2.9, 3.1, 10, 1), POOL) == 1.0
    assert percentile(Speedup(1.6, 1.55, 1.65, 10, 1), POOL) == 0.75
    # beaten means significantly: 1.32x against the 1.30x build is not
    assert not beats(Speedup(1.32, 1.30, 1.34, 10, 1), POOL[2])
    assert beats(Speedup(1.32, 1.30, 1.34, 10, 1), POOL[1])
    pct = RewardConfig("percentile")
    assert score_verdict(_ok(1.6, 1.55, 1.65), pct, POOL) == 0.75
    # as fast as the baseline: it beats -O0, yet is paid what a copy earns (not proven)
    assert score_verdict(_ok(1.0, 0.98, 1.02), pct, POOL) == 0.0
    with pytest.raises(ValueError):
        score_verdict(_ok(1.6, 1.55, 1.65), pct)  # no pool: score_verdicts finds it


def test_a_copy_of_the_baseline_earns_zero_under_every_form():
    copy = _ok(1.7, 1.6, 1.8, identical=True)  # whatever it measured
    memo = _ok(3.0, 2.9, 3.1, memorizable=True)
    for form in FORMS:
        config = parse_reward(form)
        assert score_verdicts(None if form != "percentile" else [], [], config) == []
        assert score_verdict(copy, config, POOL) == 0.0, form
        if form not in ("paper", "log"):
            assert score_verdict(memo, config, POOL) == 0.0, form
    # percentile: no problem needs a pool when nothing is proven faster
    from supercoder.types import Problem

    problem = Problem("p", "int main(){}", ())
    assert score_verdicts([problem], [copy], parse_reward("percentile")) == [0.0]


def test_pay_for_speed_is_what_score_verdict_pays():
    for form in FORMS:
        config = parse_reward(form)
        for v, lo, hi in ((2.0, 1.8, 2.2), (1.02, 1.0, 1.04), (0.7, 0.6, 0.8), (1.2, 1.1, 1.3)):
            one = score_verdict(_ok(v, lo, hi), config, POOL)
            many = pay_for_speed(config, [v, v], [lo, lo], [hi, hi], 0.01, POOL)
            assert list(many) == pytest.approx([one, one]), form


def test_the_spec_round_trips_and_refuses_bad_text_in_one_line():
    for text in ("gated", "paper", "binary:threshold=1.1", "percentile:pool=builds,rounds=6"):
        assert parse_reward(text).spec == text
    assert parse_reward("binary").spec == "binary:threshold=1.05"
    assert parse_reward("gated", baseline_copy=-0.5).baseline_copy == -0.5
    # every option travels in the spec (the service client sends it): tables too
    unpaid = RewardConfig(RewardKind.BINARY, pay_tables=False)
    assert unpaid.spec == "binary:threshold=1.05,pay_tables=0"
    assert parse_reward(unpaid.spec) == unpaid
    for bad in (
        "linear",
        "binary:threshold=x",
        "binary:speed=2",
        "percentile:pool=web",
        "gated:rounds=1",
    ):
        with pytest.raises(UserError) as e:
            parse_reward(bad)
        assert "\n" not in str(e.value)


def test_the_timing_budget_fixes_the_meters_rounds():
    meter = reward_evaluation(parse_reward("binary:rounds=6")).meter
    assert (meter.min_pairs, meter.max_pairs) == (6, 6)
    assert reward_evaluation(parse_reward("binary")).meter.stop_when_not_faster
    assert not reward_evaluation(parse_reward("paper")).meter.stop_when_not_faster
