"""Issue 42 items 2 and 7: a program whose visible inputs each run for a while (an
interpreter running a benchmark script: clox's fib(35) runs 3.7 s) gets a domain whose
draws aim at the time budget, found cheaply.

Before: the domain search judged its first draws at the visible sizes (-O3 twice, -O0,
a sanitizer build: minutes of CPU), spent its budget there and kept the visible span, so
every check then ran draws of seconds each. Now the sizes are shrunk first, each script
on its own (a literal whose cost is exponential, fib's, and one whose cost is linear, a
loop count, need different factors), probed cheap sizes first with each probe's runs
stopped past what it needs. Real init, the real sandbox, a small interpreter written
here (``fixtures/slow_interp``: visible scripts of 0.3-0.4 s)."""

from __future__ import annotations

import random
import time
from pathlib import Path

from supercoder.problems import domain as domain_mod
from supercoder.problems.domain import TOP_SECONDS, Judge, _Calibration, describe
from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.inputmodel import infer
from supercoder.problems.loading import load_problem
from tests.conftest import sandbox_or_skip

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "slow_interp"


def test_slow_scripts_are_drawn_near_the_budget_each_on_its_own(tmp_path):
    sandbox_or_skip()
    folder = create_problem(
        HERE / "slow.c", HERE / "scripts", tmp_path / "p", InitConfig(calibrate=False)
    ).folder
    problem = load_problem(folder)
    model = infer([t.run_input() for t in problem.tests])
    assert model.spec.get("script")
    cal = _Calibration(problem, model, random.Random(7))
    found = cal.run()
    visible = cal.visible_cpu
    assert visible > domain_mod.SLOW_SECONDS, visible  # the class this is about
    # every script scaled on its own: fib's literal barely (its cost is exponential in
    # it), the loop count by far more (linear)
    picks = found.get("pick_grow")
    assert picks and len(picks) == 2 and found.get("shrunk"), found
    scripts = [node for node in model.spec["body"][0]["pick"]]
    fib = next(i for i, s in enumerate(scripts) if "fib(n);" in str(s))
    assert picks[fib] > 3 * picks[1 - fib], picks
    # and fib's draws start higher up its span (below, they run under the floor)
    assert found["pick_low"][fib] >= found["pick_low"][1 - fib], found
    assert not found.get("refused") and float(found["top_seconds"]) <= 4 * TOP_SECONDS, found
    # the search stayed within its budget, and far under what judging draws at the
    # visible sizes costs (-O3 twice, -O0, a sanitizer run of each)
    assert cal.used() < domain_mod.SEARCH_SECONDS + domain_mod.FINAL_SECONDS
    # draws at the top of the domain run near the budget, far under the visible inputs
    drawn = model.with_domain(found).draw(random.Random(3), 6, strata=[1.0] * 6)
    runs = Judge(problem).judge([d.encode() for d in drawn], full=False)
    assert all(r.ok for r in runs), runs
    assert max(r.cpu for r in runs) < visible / 4, (runs, visible)
    line = describe(model.with_domain(found))
    assert "drawn smaller than seen" in line and "visible span only" not in line, line


def test_a_spent_budget_keeps_the_sizes_shrunk_not_the_visible_span(tmp_path, monkeypatch):
    """Out of budget before the final check: the sizes found first (cheap, -O3-clean)
    are kept, never the visible span whose draws run for seconds each."""
    sandbox_or_skip()
    folder = create_problem(
        HERE / "slow.c", HERE / "scripts", tmp_path / "p", InitConfig(calibrate=False)
    ).folder
    problem = load_problem(folder)
    model = infer([t.run_input() for t in problem.tests])
    cal = _Calibration(problem, model, random.Random(8))
    cal.limit()
    shrunk = cal.shrink({})
    assert shrunk.get("pick_grow"), shrunk
    monkeypatch.setattr(domain_mod, "SEARCH_SECONDS", 0.0)
    monkeypatch.setattr(domain_mod, "FINAL_SECONDS", 0.0)
    started = time.monotonic()
    found = cal.final(dict(shrunk))
    assert time.monotonic() - started < 30
    assert found.get("pick_grow") == shrunk["pick_grow"], found
    assert any("the sizes shrunk to the budget kept" in n for n in found.get("notes", [])), found


VALUE = r"""
#include <stdio.h>
int main(int argc, char **argv) {
    long n;
    if (argc < 2 || scanf("%ld", &n) != 1) return 1;
    unsigned long x = 1;
    for (long i = 0; i < n * 130; i++) x = x * 6364136223846793005UL + (unsigned long)i;
    printf("%s %lu\n", argv[1], x);
    return 0;
}
"""


def test_a_value_that_sets_the_work_is_not_widened_past_the_budget(tmp_path):
    """A number that sets the work (bf_factor's number to factor: widened 4x it ran
    337 ms on the top stratum): a widening whose draws run past the budget is not taken,
    the narrower one that runs within it is (here 64x runs up to ~0.9 s, within the
    1 s a draw may take, 4x up to ~55 ms; three draws of 64x all under 0.1 s: 0.14%)."""
    sandbox_or_skip()
    (tmp_path / "v.c").write_text(VALUE)
    inputs = tmp_path / "in"
    inputs.mkdir()
    for k, n in enumerate((1000, 40000, 100000)):
        (inputs / f"t{k}").write_text(f"{n}\n")
    opts = InitConfig(args=("go",), calibrate=False)
    folder = create_problem(tmp_path / "v.c", inputs, tmp_path / "p", opts).folder
    problem = load_problem(folder)
    model = infer([t.run_input() for t in problem.tests])
    from supercoder.problems.domain import _widenable

    assert _widenable(model), model.spec  # a value, not a size
    found = _Calibration(problem, model, random.Random(9)).run()
    assert float(found.get("widen", 1)) == 4.0, found
    assert float(found["top_seconds"]) <= 4 * TOP_SECONDS, found
