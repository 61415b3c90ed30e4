"""A check times ``DRAWS`` drawn inputs, never every spare its source made: the fuzzer
makes twice as many mutations as it is asked for, and a check that ran the reference on
and timed all of them paid for each (a program whose mutations run for seconds doubled
every round). The spares stand in only for draws the reference refuses."""

from __future__ import annotations

from supercoder.types import Problem, TestCase
from supercoder.verify.unseen import _reference_up_to
from tests.conftest import sandbox_or_skip

SOURCE = r"""
#include <stdio.h>
int main(void) {
    long n;
    if (scanf("%ld", &n) != 1 || n < 0) return 3;  /* refused: a draw the reference rejects */
    printf("%ld\n", 2 * n);
    return 0;
}
"""


def _problem() -> Problem:
    return Problem("double", SOURCE, (TestCase("a", b"6\n", b"3\n"),))


def test_only_count_draws_are_run_when_the_reference_takes_them_all() -> None:
    sandbox_or_skip()
    inputs = [f"{k}\n".encode() for k in range(10)]
    ran, outputs, took = _reference_up_to(_problem(), inputs, 5)
    assert ran == inputs[:5] and len(outputs) == len(took) == 5
    assert outputs == [f"{2 * k}\n".encode() for k in range(5)]


def test_spares_stand_in_for_refused_draws_in_order() -> None:
    sandbox_or_skip()
    inputs = [b"1\n", b"-1\n", b"2\n", b"-2\n", b"3\n", b"4\n", b"-5\n", b"6\n", b"7\n"]
    ran, outputs, _ = _reference_up_to(_problem(), inputs, 5)
    kept = [d for d, o in zip(ran, outputs, strict=True) if o is not None]
    assert kept == [b"1\n", b"2\n", b"3\n", b"4\n", b"6\n"]  # the first five it takes
    assert ran == inputs[:8]  # the ninth was never needed
    few = _reference_up_to(_problem(), [b"-1\n", b"5\n"], 5)
    assert few[0] == [b"-1\n", b"5\n"] and few[1] == [None, b"10\n"]
