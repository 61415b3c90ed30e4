"""Issue 42 item 2: an interpreter's scripts are each scaled on their own (``pick_grow``):
fib's literal and a loop count follow different cost laws, so one factor for all of them
draws one script at the budget and the other far from it. Drawing only (no reference)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from supercoder.problems.domain import describe
from supercoder.problems.inputmodel import infer

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "slow_interp" / "scripts"


def _model():
    return infer([(HERE / name).read_bytes() for name in ("fib", "spin")])


def _n(text: str) -> int:
    return int(re.search(r"set\(n, (\d+)\)", text)[1])


def test_each_script_is_scaled_by_its_own_factor():
    model = _model().with_domain({"version": 1, "pick_grow": [0.5, 0.001]})
    drawn = model.draw(random.Random(1), 40, strata=[1.0] * 40)
    fib = [_n(d) for d in drawn if "fib(n)" in d]
    spin = [_n(d) for d in drawn if "spin(n)" in d]
    assert fib and spin
    assert max(fib) <= 21 and min(fib) >= 5, fib  # 41 halved, the span's proportions kept
    assert max(spin) <= 300_000 and min(spin) >= 100_000, spin  # 3e8 a thousandth


def test_the_search_can_draw_one_script_only():
    model = _model()
    for i in range(2):
        drawn = model.with_domain({"version": 1, "pick": i}).draw(random.Random(2), 8)
        assert len({"fib(n)" in d for d in drawn}) == 1, drawn


def test_a_stored_factor_is_held_within_sense():
    # a stored model is untrusted: a factor of 1e300 draws no literal past 2^20 times seen
    model = _model().with_domain({"version": 1, "pick_grow": [1e300, 1e300]})
    for d in model.draw(random.Random(3), 4):
        assert _n(d) <= 300_000_000 * (1 << 20)


def test_the_domain_line_says_drawn_smaller_than_seen():
    d = {"version": 1, "pick_grow": [0.73, 0.004], "top_seconds": 0.023, "shrunk": 3.98}
    line = describe(_model().with_domain(d))
    assert "drawn smaller than seen" in line and "0.73x, 0.004x" in line, line
    assert "visible scripts run up to 3.98 s" in line and "visible span only" not in line


def test_each_script_starts_where_its_own_draws_are_long_enough():
    """``pick_low``: a script whose cost falls off fast below its top (fib) is drawn
    from near the top only, the others over their whole span."""
    d = {"version": 1, "pick_grow": [1.0, 1.0], "pick_low": [0.9, 0.0], "low": 0.0}
    drawn = _model().with_domain(d).draw(random.Random(4), 60)
    fib = [_n(x) for x in drawn if "fib(n)" in x]
    spin = [_n(x) for x in drawn if "spin(n)" in x]
    assert fib and min(fib) >= 39, fib  # 31-41 seen: from 0.9 of the way up only
    assert min(spin) < 250_000_000, spin  # 225-300 million: the whole span
