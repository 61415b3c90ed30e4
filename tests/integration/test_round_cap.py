"""A check of a program whose every run is long (a benchmark that runs for seconds, timed
on its visible tests) holds its rounds to the meter's round budget, at least
``min_pairs``, and its verdict says so: the check finishes in about that budget
instead of up to 15 rounds, and its interval is the one those rounds give."""

from __future__ import annotations

import json
from pathlib import Path

from supercoder.problems.loading import load_problem
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.baseline import baseline_asm
from supercoder.verify.evaluate import CheckConfig, evaluate
from tests.conftest import make_sum_problem, sandbox_or_skip


def test_a_long_programs_rounds_are_held_to_the_round_budget(tmp_path: Path) -> None:
    sandbox_or_skip()
    folder = make_sum_problem(tmp_path / "noin", hidden=False)
    (folder / "problem.json").write_text(json.dumps({"reads_input": False}))
    problem = load_problem(folder)
    # a round budget far below one round's cost stands for a program whose round costs
    # seconds: the meter takes its minimum rounds (4) and stops there
    tight = CheckConfig(meter=MeterConfig(round_budget=1e-6, target_halfwidth=1e-9))
    verdict = evaluate(problem, baseline_asm(problem), tight)
    assert verdict.correct and verdict.speedup is not None
    timing = verdict.context.measurement.timing
    assert "timed in 4 rounds" in timing and "one round of its timed tests costs" in timing
    assert {r for t in verdict.tests for r in t.sample_rounds} <= {0, 1, 2, 3}
    # a round that costs little is not held down, and nothing is said
    roomy = CheckConfig(meter=MeterConfig(round_budget=1e6, max_pairs=6, target_halfwidth=1e-9))
    free = evaluate(problem, baseline_asm(problem), roomy)
    assert "timed in" not in free.context.measurement.timing
    assert max(r for t in free.tests for r in t.sample_rounds) == 5


def test_a_spent_cpu_budget_never_cuts_a_check_below_its_minimum_rounds(tmp_path: Path) -> None:
    sandbox_or_skip()
    folder = make_sum_problem(tmp_path / "noin", hidden=False)
    (folder / "problem.json").write_text(json.dumps({"reads_input": False}))
    problem = load_problem(folder)
    # a budget spent by the first pass (what a search's last stages may hand a slow
    # program): the comparison still takes its 4 rounds, then stops
    spent = CheckConfig(meter=MeterConfig(max_cpu_seconds=1e-9, target_halfwidth=1e-9))
    verdict = evaluate(problem, baseline_asm(problem), spent)
    assert verdict.correct and verdict.speedup is not None
    assert {r for t in verdict.tests for r in t.sample_rounds} == {0, 1, 2, 3}
