"""Timed inputs nobody can predict: drawn afresh every check, across the inputs' range.

Before: the timed inputs were fuzz mutations made once per machine and reused by every
check; a header number or a line of numbers was never changed (``3000001 12345`` came
back five times unchanged) and a lone size shrank by at most 5%, so a candidate that
keyed a table on a visible test's first line read 13.9x, and a third of real programs
got no timed input at all.


The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_timed_inputs.py."""

from __future__ import annotations

import random

from supercoder.problems.inputmodel import infer


def test_counts_that_govern_lines_stay_consistent() -> None:
    graph = [b"4 3\n1 2 5\n2 3 1\n3 4 7\n", b"6 5\n1 6 2\n2 5 3\n3 4 1\n1 3 9\n5 6 1\n"]
    for text in infer(graph).draw(random.Random(1), 20):
        lines = text.split("\n")[:-1]
        n, m = (int(x) for x in lines[0].split())
        assert len(lines) == 1 + m and 3 <= m <= 5 and 2 <= n <= 6
        assert all(1 <= int(u) <= n and 1 <= int(v) <= n for u, v, _ in map(str.split, lines[1:]))
    cases = [b"2\n3\n1 2 3\n2\n5 6\n", b"1\n4\n1 1 1 1\n"]
    for text in infer(cases).draw(random.Random(2), 20):
        lines = text.split("\n")[:-1]
        t, at = int(lines[0]), 1
        for _ in range(t):
            n = int(lines[at])
            assert len(lines[at + 1].split()) == n
            at += 2
        assert at == len(lines)
    grid = [b"3 4\n#..#\n....\n.##.\n", b"2 2\n#.\n.#\n"]
    for text in infer(grid).draw(random.Random(3), 20):
        lines = text.split("\n")[:-1]
        r, c = (int(x) for x in lines[0].split())
        assert len(lines) == 1 + r and all(len(x) == c and set(x) <= {"#", "."} for x in lines[1:])


def test_the_interval_includes_the_spread_between_drawn_inputs() -> None:
    """Drawn inputs make the interval one of the speedup over the input distribution:
    where the speedup differs between inputs, the spread between them widens it; where
    every input gives the same speedup (sampling noise only), it adds nothing."""
    import numpy as np

    from supercoder.timing.intervals import input_spread

    rng = np.random.default_rng(1)
    rounds = [np.arange(8)] * 3
    same = [rng.normal(0.0, 0.03, 8) for _ in range(3)]
    assert input_spread(same, np.random.default_rng(0), rounds) < 0.01
    varying = [rng.normal(m, 0.01, 8) for m in (0.1, 0.3, 0.5)]
    spread = input_spread(varying, np.random.default_rng(0), rounds)
    # sd of the medians 0.2, over sqrt(3) tests: about 0.115; times t(2)/z = 2.2 for a
    # spread seen in only three inputs: about 0.25
    assert 0.18 < spread < 0.33
    five = [rng.normal(m, 0.01, 8) for m in (0.1, 0.2, 0.3, 0.4, 0.5)]
    # sd 0.158 over sqrt(5): 0.071, times t(4)/z = 1.42: about 0.10
    assert 0.07 < input_spread(five, np.random.default_rng(0), [np.arange(8)] * 5) < 0.14
    assert input_spread(varying[:1], np.random.default_rng(0), rounds[:1]) == 0.0
