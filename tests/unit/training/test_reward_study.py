"""The reward study's statistics on synthetic samples whose answers are known."""

from __future__ import annotations

import numpy as np

from supercoder.training.reward_study import Group, StudyCompletion, recommend, reported, study
from supercoder.types import (
    Measurement,
    PairedSamples,
    Provenance,
    Speedup,
    Status,
    Verdict,
    VerdictContext,
)

RNG = np.random.default_rng(7)


def _completion(speed: float, rounds: int = 12, noise: float = 0.03, copy: bool = False):
    if copy:
        return StudyCompletion(True, True, label="copy")
    ratios = tuple(np.log(speed) + RNG.normal(0, noise, rounds) for _ in range(5))
    order = tuple(np.arange(rounds) for _ in range(5))
    base = (0.01,) * 5
    return StudyCompletion(True, False, ratios, order, base, tuple(b / speed for b in base), 0.005)


def _row(result, form, budget):
    return next(r for r in result.rows if r.form.split(":")[0] == form and r.budget == budget)


def test_two_programs_five_times_apart_agree_every_time():
    groups = [Group(f"p{i}", (_completion(5.0), _completion(1.0))) for i in range(6)]
    result = study(groups, ["paper", "log", "gated"], [4, 10], resamples=100)
    for form in ("paper", "log", "gated"):
        row = _row(result, form, 4)
        assert row.agreement is not None and row.agreement > 0.97, row
        assert row.sparsity < 0.05
    assert result.seconds < 30


def test_identical_programs_are_a_coin_under_paper_and_flat_under_gated():
    groups = [Group(f"q{i}", (_completion(1.0), _completion(1.0))) for i in range(12)]
    result = study(groups, ["paper", "gated", "binary"], [6], resamples=200)
    paper = _row(result, "paper", 6)
    assert paper.agreement is not None and 0.3 < paper.agreement < 0.75, paper
    assert paper.identical_paid == 1.0  # paper pays ~1.0 for a program that is the baseline
    gated = _row(result, "gated", 6)
    assert gated.sparsity > 0.9 and gated.identical_paid < 0.1, gated
    assert _row(result, "binary", 6).identical_paid < 0.1


def test_a_copy_is_never_paid_and_wrong_answers_are_constant():
    wrong = StudyCompletion(False, label="wrong")
    groups = [Group("c", (_completion(1.0, copy=True), wrong, _completion(2.0)))]
    result = study(groups, ["gated", "paper", "binary", "percentile"], [4], resamples=50)
    assert all(r.copy_paid == 0.0 for r in result.rows)
    ordered = [r for r in result.rows if not r.form.startswith("percentile")]
    assert all(r.agreement is not None and r.agreement > 0.9 for r in ordered)
    # percentile against the group's own timed programs: a program beats itself only
    # where a check's interval comes out narrow and its estimate high by chance
    assert _row(result, "percentile", 4).sparsity > 0.9


def test_more_rounds_cost_more_cpu_and_close_calls_need_them():
    groups = [
        Group(f"n{i}", (_completion(1.04, noise=0.08), _completion(1.0, noise=0.08)))
        for i in range(10)
    ]
    result = study(groups, ["paper"], [4, 15], resamples=300)
    few, many = _row(result, "paper", 4), _row(result, "paper", 15)
    assert many.cpu_s > 3 * few.cpu_s
    assert many.agreement >= few.agreement - 0.02


def test_it_recommends_a_form_that_does_not_pay_identical_programs():
    groups = [
        Group(f"p{i}", (_completion(3.0), _completion(1.0), _completion(1.5))) for i in range(4)
    ]
    result = study(groups, ["paper", "gated", "binary"], [4, 6], resamples=100)
    assert result.recommended is not None
    assert not result.recommended.form.startswith("paper")  # it pays identical programs
    assert "paper" in result.why
    assert recommend([])[0] is None


def test_it_says_where_it_cannot_predict():
    untimed = StudyCompletion(True, False, label="untimed")
    groups = [
        Group("u", (untimed, _completion(2.0, rounds=2))),
        Group("single", (_completion(2.0),)),
    ]
    result = study(groups, ["gated"], [4], resamples=20)
    text = " ".join(result.cannot_predict)
    assert "untimed" in text and "2 rounds" in text and "single" in text


def test_a_stored_verdicts_samples_are_what_it_reads():
    samples = tuple(PairedSamples((0.02,) * 8, (0.01,) * 8, tuple(range(8))) for _ in range(3))
    context = VerdictContext(
        provenance=Provenance(noise_floor=0.004), measurement=Measurement(samples=samples)
    )
    v = Verdict("p", Status.OK, speedup=Speedup(2.0, 1.9, 2.1, 24, 3), context=context)
    c = StudyCompletion.from_verdict(v)
    assert c.timed and c.rounds_seen == 8 and c.floor == 0.004
    assert np.allclose(c.ratios[0], np.log(2.0))


def test_a_binary_form_with_few_informative_groups_is_flagged():
    # one group, one completion whose lower end sits on the binary threshold: each check
    # pays it or not, and every sign of the group flips with it (all-or-nothing): the
    # agreement of one pair of checks scatters far beyond +-10 points
    global RNG
    RNG = np.random.default_rng(3)
    edge = _completion(1.3, noise=0.08)
    threshold = reported(edge, 4).low
    groups = [Group("edge", (edge, _completion(1.0), _completion(1.0)))]
    result = study(groups, [f"binary:threshold={threshold:.3f}"], [4], resamples=200)
    row = result.rows[0]
    assert row.half_width > 0.10 and row.uncertain, row


def test_a_clear_five_times_gap_is_not_flagged():
    groups = [Group(f"p{i}", (_completion(5.0), _completion(1.0))) for i in range(6)]
    result = study(groups, ["gated", "paper", "binary"], [4], resamples=200)
    for row in result.rows:
        assert row.half_width < 0.05 and not row.uncertain, row


def test_a_gain_that_does_not_hold_past_the_cut_is_not_paid_by_the_gated_forms():
    """The gated forms pay only a speedup that holds past the cut (``holds_past_cut``):
    the study draws each check's figure past the cut too, as ``score_verdict`` reads it."""
    from dataclasses import replace

    fast = _completion(2.0)
    held = Group("held", (replace(fast, past=np.log(2.0), past_sd=0.02), _completion(1.0)))
    lost = Group("lost", (replace(fast, past=np.log(1.0), past_sd=0.02), _completion(1.0)))
    coin = Group("coin", (replace(fast, past=np.log(2.0) / 2, past_sd=0.3), _completion(1.0)))
    rows = {}
    for g in (held, lost, coin):
        result = study([g], ["gated", "paper"], [6], resamples=200)
        rows[g.name] = (_row(result, "gated", 6), _row(result, "paper", 6))
    assert rows["held"][0].sparsity < 0.05  # paid in every check
    assert rows["lost"][0].sparsity > 0.95  # 1.0x past the cut: never paid
    assert rows["lost"][1].sparsity < 0.05  # paper pays the speedup whatever the cut
    assert rows["coin"][0].on_gate == 0.5  # on the rule's edge: a coin, and said so
    assert 0.2 < rows["coin"][0].sparsity < 0.8


def test_a_sessions_programs_share_the_baselines_runs():
    """Programs timed in one session are paired with the same baseline runs: their
    log-ratios share the baseline's noise round by round, so the ORDER of two of them is
    far steadier than either figure. The study draws a session's rounds together."""
    rng = np.random.default_rng(3)
    rounds = 8

    def pair() -> Group:
        base = [rng.normal(0, 0.2, rounds) for _ in range(5)]  # the baseline's runs
        progs = []
        for speed in (1.2, 1.0):
            ratios = tuple(np.log(speed) + b + rng.normal(0, 0.01, rounds) for b in base)
            order = tuple(np.arange(rounds) for _ in range(5))
            cpu = (0.01,) * 5
            progs.append(StudyCompletion(True, False, ratios, order, cpu, cpu, 0.005))
        return Group("s", tuple(progs))

    result = study([pair() for _ in range(8)], ["paper"], [4], resamples=200)
    assert _row(result, "paper", 4).agreement > 0.95  # drawn apart: about 0.8
