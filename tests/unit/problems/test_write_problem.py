"""write_problem replaces a folder only when the new one is whole."""

from __future__ import annotations

import pytest

from supercoder.problems.loading import load_problem, write_problem
from tests.conftest import make_sum_problem


def test_write_problem_replaces_a_folder_only_when_the_new_one_is_whole(tmp_path):
    first = load_problem(make_sum_problem(tmp_path / "src"))
    dest = write_problem(first, tmp_path / "out" / "sum")
    assert len(load_problem(dest).tests) == len(first.tests)
    # a test whose input cannot be produced fails the write midway: the old folder stays
    from dataclasses import replace

    from supercoder.types import TestCase

    def broken() -> bytes:
        raise OSError(28, "No space left on device")

    bad = replace(first, tests=(*first.tests, TestCase("late", b"1\n", input_factory=broken)))
    with pytest.raises(OSError):
        write_problem(bad, dest)
    assert len(load_problem(dest).tests) == len(first.tests)
    assert sorted(p.name for p in dest.parent.iterdir()) == ["sum"]  # no partial left
