"""One set of definitions: the HTML report shows exactly the figures `eval --json` wrote,
a stored summary reads back unchanged, and an infrastructure failure is never "compiled".

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_metrics.py."""

from __future__ import annotations

from supercoder.runs.metrics import long_enough
from supercoder.types import Status, TestResult, Verdict


def test_long_enough_follows_the_meters_timed_tests():
    # the meter timed t1 (its median baseline run reached 5 ms) and left t2 out; the
    # fastest t1 run is under 5 ms, so the old rule on stored minimums would say untimed
    tests = (
        TestResult("t1", Status.OK, baseline_seconds=0.004, timed=True),
        TestResult("t2", Status.OK, baseline_seconds=0.001),
    )
    assert long_enough(Verdict("p", Status.OK, tests))
    old = tuple(TestResult(t.name, t.status, baseline_seconds=t.baseline_seconds) for t in tests)
    assert not long_enough(Verdict("p", Status.OK, old))  # stored before tests said timed
    every = tuple(TestResult(t.name, t.status, baseline_seconds=0.001, timed=True) for t in tests)
    assert not long_enough(Verdict("p", Status.OK, every))  # the meter's none-is-long fallback
