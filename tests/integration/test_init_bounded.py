"""Issue 42 item 7: ``problem init`` of a program with one visible argument (a loop count
that prints its own clock) must finish: the domain search is bounded.

Before: widening the one visible count drew counts up to 2^31; every such draw ran to
the reference's CPU limit, then ran again (the determinism run, -O0) and again for each
trial, so init spent minutes finding the domain. Now a draw that times out runs once and
the search stops at ``SEARCH_SECONDS`` (its final check still runs), saying so."""

from __future__ import annotations

from supercoder.problems import domain as domain_mod
from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.inputmodel import model_for
from supercoder.problems.loading import load_problem
from supercoder.problems.outputs import Rule, RuleKind
from supercoder.types import with_args
from tests.conftest import sandbox_or_skip

CLOCK = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 10;
    clock_t t0 = clock();
    volatile unsigned long s = 0;
    for (long i = 0; i < n * 20000; i++) s = s * 31 + i;
    printf("loops %ld: %lu\n", n, (unsigned long)s);
    printf("clock %ld\n", (long)(clock() - t0));
    return 0;
}
"""


def test_a_spent_search_budget_ends_the_search_and_says_so(tmp_path, monkeypatch):
    sandbox_or_skip()
    monkeypatch.setattr(domain_mod, "SEARCH_SECONDS", 0.0)  # spent before the first draw
    (tmp_path / "clock2.c").write_text(CLOCK)
    opts = InitConfig(
        args=("50",), compare_rules=(Rule(RuleKind.IGNORE_LINE, "^clock "),), calibrate=True
    )
    folder = create_problem(tmp_path / "clock2.c", None, tmp_path / "p", opts).folder
    found = model_for(load_problem(folder)).domain
    assert any("budget is spent" in n for n in found.get("notes", [])), found
    assert not found.get("refused"), found  # the final check still ran on what was found


def test_one_visible_count_finds_a_domain_around_it(tmp_path):
    sandbox_or_skip()
    (tmp_path / "clock2.c").write_text(CLOCK)
    said: list[str] = []
    opts = InitConfig(
        args=("50",),
        compare_rules=(Rule(RuleKind.IGNORE_LINE, "^clock "),),
        calibrate=True,
        progress=said.append,
    )
    folder = create_problem(tmp_path / "clock2.c", None, tmp_path / "p", opts).folder
    found = model_for(load_problem(folder)).domain
    assert not found.get("refused"), found
    assert float(found.get("grow", 1.0)) > 1.0, found  # counts beyond the visible one
    # each stage of the search is said as it starts (init is never silent for long)
    assert any("domain: checking the domain found" in line for line in said), said


def test_a_spent_check_budget_keeps_the_visible_span_and_says_so(tmp_path, monkeypatch):
    """The final check is bounded too (``FINAL_SECONDS``): a program whose draws take
    minutes to judge (-O3 twice, -O0, a sanitizer build) ends init with the visible span
    (nothing beyond it was checked), saying why; and a judge past its deadline stops
    before a draw's sanitizer run instead of calling the draw a failure."""
    sandbox_or_skip()
    monkeypatch.setattr(domain_mod, "SEARCH_SECONDS", 0.0)
    monkeypatch.setattr(domain_mod, "FINAL_SECONDS", 0.0)
    (tmp_path / "clock2.c").write_text(CLOCK)
    opts = InitConfig(
        args=("50",), compare_rules=(Rule(RuleKind.IGNORE_LINE, "^clock "),), calibrate=True
    )
    folder = create_problem(tmp_path / "clock2.c", None, tmp_path / "p", opts).folder
    model = model_for(load_problem(folder))
    found = model.domain
    assert not found.get("refused") and float(found.get("grow", 1.0)) == 1.0, found
    assert any(n.endswith("the visible span kept") for n in found.get("notes", [])), found
    assert "visible span only (the domain search's 0 s CPU budget is spent before its check" in (
        domain_mod.describe(model)
    )
    judge = domain_mod.Judge(load_problem(folder))
    if judge._sanitizer() is not None:
        import time

        import pytest

        with pytest.raises(domain_mod.Spent):
            judge.judge([with_args(("7",), b"")], deadline=time.monotonic() - 1)
