"""Fuzzed differential tests: format-keeping mutations, kept only where the reference agrees."""

from __future__ import annotations

import json

from supercoder.problems.fuzz import (
    fuzz_problem,
)
from supercoder.problems.loading import load_problem, write_problem
from supercoder.types import Problem, TestCase

# Sums n numbers; refuses (exit 2) input that is not sorted, a relational constraint
# that mutations can break: those inputs must be dropped, not kept.
SORTED_SUM = """#include <stdio.h>
int main(void) {
    int n;
    long long s = 0, prev = -1000000000, x;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) {
        if (scanf("%lld", &x) != 1) return 1;
        if (x < prev) return 2;
        prev = x;
        s += x;
    }
    printf("%d %lld\\n", n, s);
    return 0;
}
"""
INPUTS = ["5\n1 3 5 7 9\n", "4\n2 4 8 16\n", "6\n-5 -3 0 2 2 10\n", "3\n100 200 300\n"]


def sorted_sum_problem(tmp_path, meta: dict | None = None):
    tests = []
    for i, text in enumerate(INPUTS):
        nums = [int(x) for x in text.split()[1:]]
        expected = f"{len(nums)} {sum(nums)}\n".encode()
        tests.append(TestCase(f"t{i}", expected, input_bytes=text.encode()))
    folder = write_problem(Problem("sorted_sum", SORTED_SUM, tuple(tests)), tmp_path / "sorted_sum")
    if meta:  # problem.json as an author wrote it (a malformed one too)
        written = json.loads((folder / "problem.json").read_text())
        (folder / "problem.json").write_text(json.dumps({**written, **meta}))
    return load_problem(folder)


def test_fuzzed_tests_are_kept_only_where_the_reference_succeeds(tmp_path):
    problem = sorted_sum_problem(tmp_path)
    report = fuzz_problem(problem, count=30, seed=3)
    assert report.kept > 0 and report.dropped.get("reference_failed", 0) > 0
    assert report.kept + sum(report.dropped.values()) == 30
    files = sorted((tmp_path / "sorted_sum" / "fuzz").glob("*.in"))
    assert len(files) == report.kept
    for f in files:
        head, *nums = f.read_text().split()
        values = [int(x) for x in nums]
        assert int(head) == len(values)  # the leading count stays consistent
        assert values == sorted(values)  # unsorted variants made the reference fail
        assert f.with_suffix(".out").read_text() == f"{len(values)} {sum(values)}\n"
    reloaded = load_problem(tmp_path / "sorted_sum")
    fuzz_tests = [t for t in reloaded.tests if t.name.startswith("f")]
    assert len(fuzz_tests) == report.kept and all(t.hidden for t in fuzz_tests)
    assert len(reloaded.visible_tests) == len(INPUTS)


def test_rerun_replaces_fuzz_and_is_deterministic(tmp_path):
    problem = sorted_sum_problem(tmp_path)
    first = fuzz_problem(problem, count=10, seed=5)
    snapshot = {p.name: p.read_bytes() for p in (tmp_path / "sorted_sum" / "fuzz").iterdir()}
    again = fuzz_problem(load_problem(tmp_path / "sorted_sum"), count=10, seed=5)
    assert again == first
    assert {
        p.name: p.read_bytes() for p in (tmp_path / "sorted_sum" / "fuzz").iterdir()
    } == snapshot
