"""The build search plans each stage with what a screen of one build cost, so a slow
program (one check costing a large part of ``--budget``) screens and re-measures fewer
builds instead of spending a multiple of its budget, and says what it left undone.

The parts that start no process; the search through the real service is in
tests/integration/test_compiler_model.py."""

from __future__ import annotations

from supercoder.runs.buildsearch.halving import FINAL_SCREENS, Job, _room
from supercoder.runs.buildsearch.records import (
    HALVING_SHARE,
    SCREEN_SHARE,
    CpuBudget,
    SearchConfig,
    SearchResult,
    Trial,
)
from supercoder.toolchain.flagspace import make


def _job(budget: float, spent: float, screen_cost: float | None) -> Job:
    cpu = CpuBudget(budget)
    cpu.charge(spent)
    return Job(None, SearchConfig(budget=budget), None, cpu, None, [], {}, True, screen_cost)  # type: ignore[arg-type]


def test_before_anything_is_screened_the_room_is_unbounded():
    assert _room(_job(30, 0, None), SCREEN_SHARE, 1) > 1000


def test_a_slow_programs_screens_fill_the_share_and_no_more():
    # 30 s budget, 10 s spent building and screening the first two at 4 s each:
    # the screening share (15 s) has room for one more, a halving rung of 2 rounds
    # (1.5 screens each) for one, the re-measure (2.5 screens each) for two
    job = _job(30, 10, 4.0)
    assert _room(job, SCREEN_SHARE, 1) == 1
    assert _room(job, HALVING_SHARE, 1.5) == 2  # 24 - 10 = 14 s: two at 6 s
    assert _room(job, 1.0, FINAL_SCREENS) == 2  # 20 s left: two at 10 s
    spent = _job(30, 29, 4.0)
    assert _room(spent, SCREEN_SHARE, 1) == 0 and _room(spent, 1.0, FINAL_SCREENS) == 0


def test_a_fast_program_is_not_held_back():
    job = _job(120, 5, 0.05)
    assert _room(job, SCREEN_SHARE, 1) >= 64


def _trials(*statuses: str) -> tuple[Trial, ...]:
    out = []
    for i, status in enumerate(statuses):
        t = Trial(make("gcc", f"-O{1 + i % 3}"))
        t.status = status
        out.append(t)
    return tuple(out)


def test_the_note_names_builds_screened_but_not_re_measured_and_a_screens_cost():
    result = SearchResult(
        None,
        _trials("screened", "unmeasured", "unscreened", "unbuilt", "unbuilt"),
        (),
        31.0,
        budget=30,
        screen_cost=6.2,
    )
    assert result.unfinished == {"unmeasured": 1, "unscreened": 1, "unbuilt": 2}
    note = result.budget_note
    assert note.startswith("budget spent: 1 screened, not re-measured, 1 unscreened, 2 unbuilt")
    assert "one build's screen costs 6.2 CPU s here" in note
    advice = float(note.rsplit(" ", 1)[1])
    assert advice >= 30 * 5  # scaled by the builds it reached: 1 of 5
    # a screen that is a small part of the budget is not worth a word
    cheap = SearchResult(None, _trials("screened", "unbuilt"), (), 9.0, budget=30, screen_cost=0.2)
    assert "costs" not in cheap.budget_note and cheap.budget_note.startswith(
        "budget spent: 1 unbuilt"
    )
    done = SearchResult(None, _trials("screened", "chosen"), (), 9.0, budget=30, screen_cost=6.0)
    assert done.budget_note == "" and done.unfinished == {}


def test_the_checks_after_the_search_are_kept_out_of_its_stages():
    """``--budget`` covers the checks after the search (the baseline's, the answer's
    fresh re-check: every test once each): once a screen's cost is known, two screens
    of it are kept for them, at most half the budget, and the stages plan within the
    rest."""
    job = _job(30, 10, 4.0)
    job.budget.keep_for_after(4.0)
    assert job.budget.reserve == 8.0 and job.budget.search_total == 22.0
    assert _room(job, SCREEN_SHARE, 1) == 0  # 11 s of screening share, 10 spent
    assert _room(job, 1.0, FINAL_SCREENS) == 1  # 12 s left to the search: one at 10 s
    assert job.budget.left == 20.0  # what the checks after it are timed within
    slow = _job(30, 0, 40.0)  # one screen over the whole budget: half kept, not all
    slow.budget.keep_for_after(40.0)
    assert slow.budget.reserve == 15.0 and slow.budget.within(0.5)


def test_a_build_is_not_started_where_the_costliest_so_far_would_not_fit(monkeypatch):
    """PGO builds train on the visible tests (seconds each on a slow program): the
    build stage stops before a build that would take it past its share, not after."""
    from supercoder.runs.buildsearch import halving

    def compile_build(job, build):  # each build costs 6 s of the budget
        job.budget.charge(6.0)
        return f"; {build.label}\n"

    monkeypatch.setattr(halving, "compile_build", compile_build)
    builds = [make("gcc", f"-O{k}") for k in (1, 2, 3, "s")]
    job = _job(30, 0, None)
    trials = halving._build_all(job, builds, SCREEN_SHARE * 0.6)  # 9 s of building
    assert [t.status for t in trials] == ["built", "unbuilt", "unbuilt", "unbuilt"]
    assert job.budget.spent == 6.0  # not 12: the second would not fit in 9
    fast = _job(30, 0, None)
    monkeypatch.setattr(
        halving, "compile_build", lambda job, b: job.budget.charge(0.5) or f"; {b.label}\n"
    )
    assert all(t.status == "built" for t in halving._build_all(fast, builds, SCREEN_SHARE * 0.6))
