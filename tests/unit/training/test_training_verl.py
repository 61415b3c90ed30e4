"""verl 0.9.x with verl's own code: the exported launch scripts compose with verl's Hydra
config, verl's loader finds our reward, verl's naive reward manager scores a bundled
problem's fast and wrong answers, and verl's RLHFDataset with a real Qwen2.5 tokenizer
keeps enough problems for training steps. Plus the reward's infrastructure-failure rule
and the export's length budgeting.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_training_verl.py."""

from __future__ import annotations

import pytest

from supercoder.errors import UserError
from supercoder.training import budget as budgets
from tests.integration.test_training_verl import _verl_or_skip  # noqa: F401


def test_budget_plan_limits_and_refusal():
    sizes = [budgets.Measured("a", 1500, 900), budgets.Measured("b", 5000, 7000)]
    chosen = budgets.choose_limits(sizes)
    assert (chosen.prompt, chosen.response) == (5120, 7168)  # rounded up to 256
    assert not budgets.fit(sizes, chosen).dropped
    given = budgets.choose_limits(sizes, max_prompt=2000)
    plan = budgets.fit(sizes, given)
    assert [m.name for m in plan.fits] == ["a"]
    assert plan.dropped[0][1] == "prompt 5000 > 2000 tokens"
    assert budgets.report(plan, "train")[0] == "train: 1 of 2 problems fit"
    with pytest.raises(UserError, match="0 steps"):
        budgets.require_batch(1, 16, "train", "raise the limits")
    with pytest.raises(UserError, match="positive"):
        budgets.choose_limits(sizes, max_response=0)
