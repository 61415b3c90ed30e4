"""Output the program does not control (its own clock, pointer values): rules declared
once per problem leave lines, masked text or fields out of every comparison, or compare
a field within a tolerance; ``diagnose`` says how two runs differ and which rule fixes
it. These are the one comparison (``problems/outputs.py``)."""

from __future__ import annotations

import pickle

import pytest

from supercoder.codec import decode
from supercoder.errors import UserError
from supercoder.problems.outputs import (
    Rule,
    RuleKind,
    diagnose,
    expected_output,
    outputs_match,
    parse_field_spec,
    parse_mode,
    problem_mode,
)
from supercoder.problems.schema import check_fields
from supercoder.settings import ProblemSettings

RUN1 = b"Result: 42\nTime: 12 ms\nPtr_Comp: 134520840\n"
RUN2 = b"Result: 42\nTime: 13 ms\nPtr_Comp: 134529999\n"


def _mode(*rules: dict, base: str = "exact"):
    return parse_mode(base, list(rules))


def test_an_ignored_line_is_left_out_and_every_other_line_still_counts():
    mode = _mode({"ignore_line": "Time:"}, {"ignore_line": "Ptr_Comp"})
    assert outputs_match(RUN1, expected_output(RUN2, mode))
    wrong = RUN1.replace(b"42", b"43")
    assert not outputs_match(wrong, expected_output(RUN2, mode))
    # a missing or extra ignored line is fine; a missing result line is not
    assert outputs_match(b"Result: 42\n", expected_output(RUN2, mode))
    assert not outputs_match(b"Time: 1 ms\n", expected_output(RUN2, mode))


def test_a_mask_replaces_matches_or_only_their_groups():
    hexes = _mode({"mask": "0x[0-9a-f]+"})
    assert outputs_match(b"p=0xdeadbeef q=1\n", expected_output(b"p=0x1234 q=1\n", hexes))
    assert not outputs_match(b"p=0xdeadbeef q=2\n", expected_output(b"p=0x1234 q=1\n", hexes))
    group = _mode({"mask": r"took (\d+) ms"})
    assert outputs_match(b"took 5 ms, 3 found\n", expected_output(b"took 9 ms, 3 found\n", group))
    assert not outputs_match(
        b"took 5 s, 3 found\n", expected_output(b"took 9 ms, 3 found\n", group)
    )


def test_a_field_is_ignored_or_compared_within_its_tolerance_on_the_lines_named():
    ignore = _mode({"field": 2, "line": "^Ptr"})
    assert outputs_match(b"Ptr 1 x\nVal 5\n", expected_output(b"Ptr 2 x\nVal 5\n", ignore))
    assert not outputs_match(b"Ptr 1 x\nVal 6\n", expected_output(b"Ptr 2 x\nVal 5\n", ignore))
    tol = _mode({"field": 2, "line": "Result", "tolerance": 1e-6})
    assert outputs_match(b"Result 1.0000001\n", expected_output(b"Result 1.0\n", tol))
    assert not outputs_match(b"Result 1.1\n", expected_output(b"Result 1.0\n", tol))
    assert not outputs_match(b"Result abc\n", expected_output(b"Result 1.0\n", tol))
    # every line, no regex: the first field of each
    first = _mode({"field": 1})
    assert outputs_match(b"9 a\n8 b\n", expected_output(b"1 a\n2 b\n", first))


def test_rules_apply_before_the_base_rule_and_the_expected_side_is_prepared_once():
    mode = _mode({"ignore_line": "^#"}, base="float:1e-3")
    expected = expected_output(b"# run at 12:00\n1.0 2.0\n", mode)
    assert outputs_match(b"# run at 12:07\n1.0001 2.0\n", expected)
    assert expected.prepared() is expected.prepared()  # computed once, reused per run
    again = pickle.loads(pickle.dumps(expected))  # process pools carry the rules
    assert again.mode == mode and outputs_match(b"1.0 2.0\n", again)


def test_problem_json_rules_read_check_and_write_back_and_old_files_still_read():
    meta = {"compare": "tokens", "compare_rules": [{"ignore_line": "Time"}, {"field": 3}]}
    check_fields(meta, "problem.json")
    settings = decode(ProblemSettings, meta)
    mode = problem_mode(settings)
    assert [r.to_json() for r in mode.rules] == meta["compare_rules"]
    assert str(mode) == "tokens" and "--ignore-line Time" in mode.describe()
    assert settings.stored()["compare_rules"] == meta["compare_rules"]  # written back
    old = decode(ProblemSettings, {"compare": "exact"})  # a file from before the rules
    assert problem_mode(old).rules == () and str(problem_mode(old)) == "exact"
    for bad, why in [
        ([{"ignore_line": "("}], "regex"),
        ([{"field": 0}], "field"),
        ([{"colour": "x"}], "unknown rule keys"),
        ("Time", "list"),
    ]:
        with pytest.raises(UserError, match="compare_rules") as e:
            check_fields({"compare_rules": bad}, "problem.json")
        assert why in str(e.value)


def test_the_init_options_field_forms_parse_and_say_the_form_when_wrong():
    assert parse_field_spec("Ptr_Comp@2", False) == Rule(RuleKind.FIELD, "Ptr_Comp", 2)
    assert parse_field_spec("3", False) == Rule(RuleKind.FIELD, "", 3)
    rule = parse_field_spec("a@b@2:1e-6", True)  # the regex may hold '@'
    assert (rule.regex, rule.field, rule.tolerance) == ("a@b", 2, 1e-6)
    with pytest.raises(ValueError, match=r"\[REGEX@\]N:TOL"):
        parse_field_spec("Result@2", True)
    with pytest.raises(ValueError, match="field number"):
        parse_field_spec("Result@x", False)


def test_diagnose_shows_both_runs_lines_names_the_cause_and_a_rule_that_fixes_it():
    d = diagnose(RUN1, RUN2)
    text = d.message()
    assert "run 1, line 2: 'Time: 12 ms'" in text and "run 2, line 2: 'Time: 13 ms'" in text
    assert "run 2, line 3: 'Ptr_Comp: 134529999'" in text
    assert "a clock" in d.cause and "an address" in d.cause
    assert [r.describe() for r in d.rules] == ["--ignore-line Time:", "--ignore-line Ptr_Comp:"]
    assert outputs_match(RUN1, expected_output(RUN2, _mode(*[r.to_json() for r in d.rules])))


def test_diagnose_masks_hex_pointers_and_proposes_nothing_when_results_differ():
    d = diagnose(b"node at 0x55d0c0a01260\nsum 3\n", b"node at 0x5611e2b7f260\nsum 3\n")
    assert "an address" in d.cause and [r.kind for r in d.rules] == [RuleKind.MASK]
    # a result that differs is no clock: no rule is offered, the lines are shown
    d = diagnose(b"answer 17\n", b"answer 18\n")
    assert d.rules == () and d.cause == "" and "run 2, line 1: 'answer 18'" in d.message()
    # different line counts: said, with the first differing line
    d = diagnose(b"a\nb\n", b"a\n")
    assert "run 1 printed 2 lines, run 2 1" in d.message()


BITCOUNT = b"""Bit counter algorithm benchmark
Optimized 1 bit/loop counter        > Time:   0.123 sec.; Bits: 11254
Ratko's mystery algorithm           > Time:   0.045 sec.; Bits: 11254
"""


def test_a_time_beside_a_result_is_masked_so_the_result_is_still_compared():
    """MiBench bitcount prints each method's time and its result on one line: the rule
    init suggests masks the time only, so a wrong bit count still fails."""
    other = BITCOUNT.replace(b"0.123", b"0.131").replace(b"0.045", b"0.051")
    d = diagnose(BITCOUNT, other)
    assert [r.describe() for r in d.rules] == ["--mask 'Time:\\s+(\\S+)'"]
    mode = _mode(*[r.to_json() for r in d.rules])
    assert outputs_match(BITCOUNT.replace(b"0.123", b"9.999"), expected_output(other, mode))
    wrong = BITCOUNT.replace(b"11254\nRatko", b"11255\nRatko")
    assert not outputs_match(wrong, expected_output(other, mode))


def test_a_choice_made_from_the_clock_goes_by_its_label_found_over_more_runs():
    """bitcount's last lines name its fastest and slowest methods, which the clock picks:
    beside a timed line, a labelled line that differs goes whole by its label; further
    runs find the labels two runs did not show (``Worst``)."""
    run = BITCOUNT + b"\nBest  > Ratko's mystery algorithm\nWorst > Optimized 1 bit/loop counter\n"
    other = run.replace(b"0.045", b"0.051").replace(
        b"Best  > Ratko's mystery algorithm", b"Best  > Optimized 1 bit/loop counter"
    )
    third = run.replace(b"Worst > Optimized 1 bit/loop counter", b"Worst > Ratko's mystery")
    d = diagnose(run, other, None, [third])
    described = [r.describe() for r in d.rules]
    assert described == [
        "--mask 'Time:\\s+(\\S+)'",
        "--ignore-line '^\\s*Best\\s+>'",
        "--ignore-line '^\\s*Worst\\s+>'",
    ]
    assert "line(s) 5: what the program chose" in d.message() and "a clock" in d.cause
    mode = _mode(*[r.to_json() for r in d.rules])
    assert outputs_match(third, expected_output(other, mode))
    # with no clock anywhere, a labelled result that differs is no choice to leave out
    assert diagnose(b"Best > a\n", b"Best > b\n").rules == ()


def test_a_number_alone_on_its_line_with_a_fraction_is_a_measured_time():
    """An interpreter's benchmark script prints ``clock() - start`` alone on a line: the
    rule leaves such lines out, while a whole number or a word is still compared."""
    d = diagnose(b"true\n0.83855\n-0.8\n", b"true\n0.83517\n-0.7\n")
    assert "a clock" in d.cause and [r.kind for r in d.rules] == [RuleKind.IGNORE_LINE]
    mode = _mode(*[r.to_json() for r in d.rules])
    assert outputs_match(b"true\n1.5\n2.0e-3\n", expected_output(b"true\n0.1\n.5\n", mode))
    # as %g prints a short run's clock: an exponent without a fraction, or a lone 0
    assert outputs_match(b"true\n0\n2e-05\n", expected_output(b"true\n0.0034\n.5\n", mode))
    assert not outputs_match(b"true\n1.5\n7\n", expected_output(b"true\n0.1\n.5\n", mode))
    assert not outputs_match(b"false\n1.5\n", expected_output(b"true\n0.1\n", mode))
    assert not outputs_match(b"832041\n", expected_output(b"832040\n", mode))
    assert diagnose(b"12\n", b"13\n").rules == ()
