"""Issue 36: programs that take arguments (``tests/NAME.args``, a fixed ``argv[0]``),
multi-file programs built as their repositories build them (separate translation
units, ``"../x.h"`` includes), and a timeout that says where and how long.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_args.py."""

from __future__ import annotations

import json
from dataclasses import replace

from supercoder.problems.loading import load_problem, write_problem
from supercoder.types import ARGS_MARK, Status, split_args, with_args


def test_arguments_travel_through_folders_and_supercoder_records(tmp_path):
    from supercoder.dataset.records import problem_from_record, problem_to_record
    from supercoder.types import Problem, TestCase

    problem = Problem(
        "p",
        "int main(int c, char **v) { return 0; }\n",
        (
            TestCase("a", b"x\n", input_bytes=b"1\n", args=("7", "two words")),
            TestCase("b", b"y\n", input_bytes=b"2\n"),
            TestCase("h", b"z\n", input_bytes=b"3\n", hidden=True, args=("--deep",)),
        ),
    )
    record = problem_to_record(problem, "val", 0, "main:\n\tret\n")
    assert record["extra_info"]["test_args"] == ["7 'two words'", ""]
    assert record["extra_info"]["hidden_test_args"] == ["--deep"]
    back = problem_from_record(json.loads(json.dumps(record)))
    assert [t.args for t in back.tests] == [("7", "two words"), (), ("--deep",)]
    assert [t.run_input() for t in back.tests] == [t.run_input() for t in problem.tests]
    loaded = load_problem(write_problem(back, tmp_path / "p"))
    assert (tmp_path / "p" / "tests" / "a.args").read_text() == "7 'two words'\n"
    assert [t.args for t in loaded.tests] == [("7", "two words"), (), ("--deep",)]
    from supercoder.verify.client import problem_record  # what a verification server gets

    served = problem_from_record({"extra_info": json.loads(json.dumps(problem_record(problem)))})
    assert [t.run_input() for t in served.tests] == [t.run_input() for t in problem.tests]
    plain = problem_to_record(replace(problem, tests=problem.tests[1:2]), "val", 0, "x")
    assert "test_args" not in plain["extra_info"]  # written only where a test has some
    from supercoder.dataset.records import read_raw, write_raw

    write_raw([record, plain], tmp_path / "both.parquet")  # one schema, with and without
    again = [problem_from_record(r) for r in read_raw(tmp_path / "both.parquet")]
    assert [[t.args for t in p.tests] for p in again] == [[t.args for t in back.tests], [()]]
    assert split_args(with_args(("a b", "c"), b"in")) == (("a b", "c"), b"in")
    assert with_args((), b"in") == b"in"
    # a drawn or mutated input whose argument line no run can take is all stdin
    odd = ARGS_MARK + b"a\0b\nrest"
    assert split_args(odd) == ((), odd)


def test_a_kattis_package_s_args_files_are_arguments_not_inputs(tmp_path):
    from supercoder.problems.layouts import discover

    sample = tmp_path / "pkg" / "data" / "sample"
    sample.mkdir(parents=True)
    (sample / "1.in").write_text("3\n")
    (sample / "1.ans").write_text("x\n")
    (sample / "1.args").write_text("-v 2\n")
    (sample / "2.in").write_text("4\n")
    (tests,) = [discover(tmp_path / "pkg").tests]
    assert [(t.name, t.args.name if t.args else None) for t in tests] == [
        ("1", "1.args"),
        ("2", None),
    ]


def test_a_timeout_while_timing_a_drawn_input_is_a_timeout_that_shows_nothing_of_it():
    from supercoder.commands.eval import _timeout_note
    from supercoder.sandbox.box import RunResult
    from supercoder.timing.meter import Comparison
    from supercoder.types import Problem, TestCase, TestResult, UnseenResult
    from supercoder.verify.evaluate import _timed_verdict

    late = RunResult("timeout", -1, 9, b"", b"", 10.02, 10.5, 1, 0, cpu_limit=10, wall_limit=20)
    assert late.describe().startswith("time limit exceeded (ran cpu 10.02s, wall 10.50s")
    assert "against limits of 10s cpu, 20s wall" in late.describe()
    # the meter's message for a candidate run that failed while it was timed
    said = f"candidate output changed on test drawn-3 during timing: {late.describe()}"
    problem = Problem("p", "int main(void){return 0;}", (TestCase("a", b"1\n", b"1\n"),))
    cmp = Comparison((), None, None, mismatch=said, mismatch_test="drawn-3")
    verdict = _timed_verdict(
        problem,
        [TestResult("a", Status.OK)],
        cmp,
        False,
        {},
        0.0,
        frozenset({"drawn-3"}),
        UnseenResult(3, Status.OK),
    )
    assert verdict.status is Status.TIMEOUT and verdict.unseen.status is Status.TIMEOUT
    assert "drawn-3" not in verdict.message and "10.02" not in verdict.message
    assert _timeout_note(verdict) == (
        ": it ran past its time limit on a drawn input (its data is never shown)"
    )
    # a wrong output while timing stays a wrong output
    wrong = replace(cmp, mismatch=said.replace(late.describe(), "it printed a different output"))
    other = _timed_verdict(
        problem, [TestResult("a", Status.OK)], wrong, False, {}, 0.0, frozenset({"drawn-3"})
    )
    assert other.status is Status.WRONG_OUTPUT
