"""The meter's round budget priced from the baseline's first pass: a round that costs
seconds gets ``min_pairs`` rounds, a cheap one is not held down (the sandboxed check is
in tests/integration/test_round_cap.py)."""

from __future__ import annotations

from supercoder.timing.meter import Meter, MeterConfig


def _cap(first: dict[str, float], repeats: int = 1, budget: float | None = 3.0):
    plan = [(name, b"", b"") for name in first for _ in range(repeats)]
    return Meter(MeterConfig(round_budget=budget))._round_cap(first, plan, 4)


def test_a_round_of_seconds_gets_the_minimum_rounds_and_says_so():
    most, said = _cap({"run": 2.8})  # almabench: 2.8 s a run, 5.6 s a round
    assert most == 4 and "timed in 4 rounds" in said and "5.6 CPU s" in said


def test_rounds_fill_the_budget_between_the_minimum_and_the_maximum():
    most, said = _cap({"a": 0.05, "b": 0.05})  # 0.2 s a round: 15 fit, the maximum
    assert (most, said) == (15, "")
    most, _ = _cap({"a": 0.1}, repeats=2)  # 0.4 s a round: 7 fit
    assert most == 7


def test_no_budget_no_cap():
    assert _cap({"run": 30.0}, budget=None) == (15, "")
