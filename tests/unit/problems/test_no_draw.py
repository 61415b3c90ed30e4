"""A fixed workload (``problem.json`` ``no_draw``): no input the model never saw can be
drawn and none is hidden, so it is timed on its visible tests like a memorizable problem,
every command says why, and no gain on it is counted as improved or paid."""

from __future__ import annotations

import json

import pytest

from supercoder.errors import UserError
from supercoder.problems.loading import load_problem
from supercoder.types import (
    MEMORIZABLE_WHY,
    NO_DRAW,
    NO_DRAW_NOTE,
    memorizable_note,
    memorizable_reason,
)
from supercoder.verify.unseen import domain_line, unseen_tests

WHY = "the reference refuses the input model's draws (it drew no new input)"


def _folder(tmp_path, meta: dict):
    folder = tmp_path / "p"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text("int main(void){return 0;}\n")
    (folder / "tests" / "a.in").write_text("go 7\n")
    (folder / "tests" / "a.out").write_text("42\n")
    (folder / "problem.json").write_text(json.dumps(meta))
    return folder


def test_a_problem_no_input_can_be_drawn_for_is_memorizable_and_says_why(tmp_path):
    problem = load_problem(_folder(tmp_path, {"no_draw": WHY}))
    assert problem.reads_input and problem.memorizable
    assert problem.memorizable_why == f"{NO_DRAW}: {WHY}"
    unseen = unseen_tests(problem)  # checks and eval: the visible tests, nothing drawn
    assert unseen.source == "memorizable" and [t[0] for t in unseen.tests] == ["a"]
    assert unseen.why.startswith(f"memorizable: {NO_DRAW}: {WHY}") and NO_DRAW_NOTE in unseen.why
    assert domain_line(problem) == f"none: {NO_DRAW}: {WHY} (memorizable)"
    # the verdict's domain line gives the reason back to eval and check
    assert memorizable_reason(f"memorizable: none: {NO_DRAW}: {WHY}") == f"{NO_DRAW}: {WHY}"
    assert memorizable_note(problem.memorizable_why).endswith(NO_DRAW_NOTE)
    assert "not counted as improved" in NO_DRAW_NOTE


def test_a_program_reading_no_input_keeps_its_own_wording(tmp_path):
    problem = load_problem(_folder(tmp_path, {"reads_input": False}))
    assert problem.memorizable and problem.memorizable_why == MEMORIZABLE_WHY
    assert memorizable_reason(f"memorizable: none: {MEMORIZABLE_WHY}") == MEMORIZABLE_WHY
    assert memorizable_reason("model: sizes 1-9") == MEMORIZABLE_WHY
    plain = load_problem(_folder(tmp_path / "x", {}))
    assert not plain.memorizable and plain.memorizable_why == ""


def test_a_hidden_test_given_since_is_timed_instead(tmp_path):
    folder = _folder(tmp_path, {"no_draw": WHY})
    (folder / "hidden").mkdir()
    (folder / "hidden" / "h.in").write_text("go 8\n")
    (folder / "hidden" / "h.out").write_text("42\n")
    problem = load_problem(folder)
    assert not problem.memorizable and problem.memorizable_why == ""  # checks draw again


def test_no_draw_must_be_words(tmp_path):
    with pytest.raises(UserError, match="no_draw"):
        load_problem(_folder(tmp_path, {"no_draw": 3}))


def test_init_marks_the_problem_only_when_no_source_draws(tmp_path):
    """init asks every source once (the command's ``undrawable``): a fuzzer that still
    draws leaves the problem as it is; none that does marks it, with each cause."""
    from supercoder.problems.init import InitConfig, _no_draw

    folder = _folder(tmp_path, {})
    assert _no_draw(folder, WHY, InitConfig(undrawable=lambda _: None)) == ""
    assert "no_draw" not in json.loads((folder / "problem.json").read_text())
    said = _no_draw(folder, WHY, InitConfig(undrawable=lambda _: "fuzzer: it drew no new input"))
    assert said == f"{WHY}; fuzzer: it drew no new input"
    assert load_problem(folder).memorizable_why == f"{NO_DRAW}: {said}"


def test_check_and_optimize_say_why_from_the_verdict_s_domain():
    """``check`` prints the reason the verdict carries (its domain line), and the gated
    reward it pays (0); ``optimize``'s figure says it too."""
    import io
    from dataclasses import replace

    from rich.console import Console

    from supercoder.commands.display import print_verdict
    from supercoder.commands.optimize import _speedup_text
    from supercoder.types import Measurement, Speedup, Status, Verdict, VerdictContext

    domain = f"memorizable: none: {NO_DRAW}: {WHY}"
    v = Verdict(
        "p",
        Status.OK,
        speedup=Speedup(40.0, 38.0, 42.0, 15, 1),
        context=VerdictContext(measurement=Measurement(domain=domain)),
        memorizable=True,
    )
    out = io.StringIO()
    print_verdict(v, Console(file=out, width=400))
    text = out.getvalue()
    assert f"memorizable: {NO_DRAW}: {WHY}; {NO_DRAW_NOTE}" in text
    assert "reward 0.000" in text
    assert f"(memorizable: {NO_DRAW}: {WHY}, timed on its visible tests)" in _speedup_text(v)
    plain = replace(
        v, context=VerdictContext(measurement=Measurement(domain="memorizable: none: x"))
    )
    out = io.StringIO()
    print_verdict(plain, Console(file=out, width=400))
    assert f"memorizable: {MEMORIZABLE_WHY}, so an answer may print" in out.getvalue()


def test_a_top_stratum_that_may_straddle_the_floor_is_drawn_again_before_too_small():
    """init's domain fit reads the checks' rule (``domain.REACH``): a top stratum fitted
    at 3.7 ms (heatshrink: two scripts, 42 KB at 3.7 ms and 80 KB at 5.6 ms, one drawn
    at random) is drawn again at the top, as a check would, before the domain is called
    too small; a top far under the floor or well over it costs no more draws."""
    from supercoder.problems.domain import REACH_OVER, REDRAWS, _Calibration

    cal = object.__new__(_Calibration)
    runs = iter([(5, 5, 0.0058, ""), (5, 5, 0.0061, "")])
    asked: list = []

    def batch(domain, strata, full):
        asked.append(list(strata))
        return next(runs)

    cal.batch = batch
    out = cal.confirm_top({"grow": 4.0, "top_seconds": 0.0037, "low": 0.5})
    assert out["top_seconds"] == 0.0061 >= REACH_OVER * 0.005 and out["grow"] == 4.0
    assert len(asked) == REDRAWS and all(s >= 0.9 for s in asked[0])
    assert cal.confirm_top({"top_seconds": 0.001}) == {"top_seconds": 0.001}
    assert len(asked) == REDRAWS


def test_a_top_stratum_read_off_an_outlier_is_what_its_clean_draws_run():
    """A top fitted on its longest draw may rest on a run stopped at its limit, or one
    draw on the slow path (freebench_analyzer: 967 ms, its clean draws ~1 ms): one batch
    at the top as a check draws it; fewer than ``REACH`` clean draws over the floor and
    the top is their median, so init tells the truth (too small, or timed as given);
    a top its clean draws do reach stays."""
    from supercoder.problems.domain import _Calibration

    cal = object.__new__(_Calibration)
    cal.notes = []
    batches = iter([[0.00087, 0.00097, 0.00105], [0.0009, 0.021, 0.034]])

    def batch(domain, strata, full):
        cal.cpus = next(batches)
        return len(cal.cpus), 5, 0.967, "timeout"

    cal.batch = batch
    out = cal.confirm_top({"grow": 1.0, "top_seconds": 0.967})
    assert out == {"grow": 1.0, "top_seconds": 0.001}
    assert "clean draws run 1.0 ms" in cal.notes[-1]
    kept = {"grow": 2.0, "top_seconds": 0.04}
    assert cal.confirm_top(kept) == kept
    steps = {"grow": 1.0, "steps": True, "top_seconds": 0.5}  # integer sizes: as measured
    assert cal.confirm_top(steps) == steps
