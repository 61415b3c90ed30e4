"""Every bundled problem loads, has enough tests, and its own -O3 baseline passes them all.

The check goes through the real evaluator (sandbox, every visible and hidden test),
without timing; problems run in a small process pool.


The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_bundled.py."""

from __future__ import annotations

import pytest

from supercoder.problems.loading import SPLITS, load_problem
from tests.integration.test_bundled import FOLDERS  # noqa: F401


def test_the_bundled_benchmark_is_there():
    assert len(FOLDERS) >= 60
    splits = {load_problem(f).split for f in FOLDERS}
    assert splits == set(SPLITS)


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_problem_loads_with_enough_tests_and_a_split(folder):
    problem = load_problem(folder)
    assert problem.split in SPLITS
    assert len(problem.visible_tests) >= 10
    assert problem.settings.tags, "problem.json should give tags"
    assert (folder / "gen.py").is_file()
