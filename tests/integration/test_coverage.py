"""gcov line/branch coverage of a problem's tests (real gcc --coverage, real gcov)."""

from __future__ import annotations

from dataclasses import replace

from supercoder.problems.coverage import coverage_many, means, problem_coverage
from supercoder.problems.loading import write_problem
from supercoder.types import Problem, TestCase

SOURCE = """#include <stdio.h>
int main(void) {
    int n;
    if (scanf("%d", &n) != 1)
        return 1;
    if (n < 0) {
        puts("negative");
        return 0;
    }
    printf("%d\\n", n * 2);
    return 0;
}
"""


def problem(*inputs: bytes) -> Problem:
    tests = tuple(TestCase(f"t{i}", b"", input_bytes=data) for i, data in enumerate(inputs))
    return Problem("cov", SOURCE, tests)


def test_more_tests_cover_more_lines_and_branches():
    positive = problem_coverage(problem(b"3\n", b"8\n"))
    everything = problem_coverage(problem(b"3\n", b"-2\n", b"junk"))
    # the executable lines: the 9 lines from "int main" to the last return, minus braces
    assert everything.lines == positive.lines > 0
    assert positive.lines - positive.lines_hit == 3  # return 1; puts; return 0 (negative)
    assert everything.line_rate == 1.0
    assert positive.branches == everything.branches > 0
    assert positive.branches_taken < everything.branches_taken == everything.branches
    assert 0 < positive.branch_rate < 1.0
    assert everything.tests == 3


def test_many_in_parallel_and_from_folders(tmp_path):
    folder = write_problem(problem(b"3\n", b"-2\n"), tmp_path / "cov")
    from supercoder.problems.loading import load_problem

    from_folder = load_problem(folder)
    results = coverage_many([problem(b"3\n"), from_folder], workers=2)
    assert [r.problem for r in results] == ["cov", "cov"]
    assert results[0].line_rate < results[1].line_rate
    line, branch = means(results)
    assert line == (results[0].line_rate + results[1].line_rate) / 2
    assert 0 < branch < 1


def test_hidden_tests_count_too():
    p = problem(b"3\n")
    with_hidden = replace(p, tests=(*p.tests, TestCase("h", b"", input_bytes=b"-1\n", hidden=True)))
    assert problem_coverage(with_hidden).lines_hit > problem_coverage(p).lines_hit
